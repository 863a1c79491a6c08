"""The feature families a run can switch on and off.

Each program draws a few of the enabled families and uses only those (plus
plain arithmetic and assignments), so that a failure can be attributed to the
families of the programs that show it. The generator records which families
a program really used (``Program.features``).
"""

FEATURES = {
    "elementwise": "math functions with valid domains (log/sqrt of positive values), "
                   "division, powers, where/maximum/minimum/clip/abs",
    "broadcast": "operands of different shapes, including 1-sized axes",
    "reduce": "sum/mean/prod/max/min with axis and keepdims, as functions, methods, builtins",
    "index_read": "int, negative, slice, fancy (repeated) and boolean-mask reads",
    "index_write": "a[i] = v, a[idx] += v with repeated (also negative) fancy indices, index pairs, "
                   "index arrays beside slices or of two axes, masks, broadcast values, on a copy; "
                   "np.copyto, a ufunc's out=, .sort(), .fill() into it",
    "alias": "w = v and views (reshape, .T, rows, rows bound by tuple unpacking) updated "
             "in place; a[0], a[1] = a[1], a[0]",
    "shape_ops": "reshape, transpose, expand_dims, squeeze, flip, concatenate, stack, "
                 "broadcast_to",
    "matmul": "@, np.dot, np.outer, np.einsum",
    "branches": "if/elif/else on data-dependent conditions, conditional expressions",
    "loops": "for over range/arrays/zip/enumerate, while, break, continue, a loop's else",
    "rebind_loop": "a loop over a name that its body rebinds (for p in a: a = a + p)",
    "rebind_param": "a parameter rebound in the body (x = x * x, a = x; x = a, x, y = y, x); "
                    "without this family no other one rebinds a parameter",
    "early_return": "return inside branches and loops",
    "exceptions": "try/except (several types, as err, else; in loops) whose body raises on "
                  "a data-dependent condition",
    "helpers": "module-level helper functions returning tuples, keyword/default arguments",
    "closures": "nested functions reading enclosing variables",
    "nested_grad": "sg.grad / sg.value_and_grad of a helper called inside f (second order)",
    "comprehensions": "list comprehensions and generator expressions in sum(...)/np.stack(...)",
    "unpack": "tuple unpacking and swaps a, b = b, a",
    "containers": "dicts (string or int keys), lists and tuples of arrays, spelled as "
                  "displays, dict(k=v), merges (| and **), comprehensions over zip, "
                  "concatenations, list(...); a dict read through a copy of its name (or "
                  "copy.copy/deepcopy of it), an item written (also of another shape; "
                  "d[k] = v, d.update(...), d |= {...}), unpacked as Python iterates it "
                  "(a, b = d gives keys; d.values(), d.items())",
    "scalars": "Python float and 0-d array inputs and values, math module functions",
}


def parse_features(text):
    """The set of family names in a comma-separated ``text`` (all when empty)."""
    if not text:
        return frozenset(FEATURES)
    names = frozenset(n.strip() for n in text.split(",") if n.strip())
    unknown = names - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown feature(s) {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(FEATURES)}")
    return names
