"""The Numba rewrite of saved values' stacks and ``None`` placeholders.

Generated code saves values a loop overwrites on Python lists used as stacks
(``s_stack.append(s)`` ... ``s = s_stack.pop()``) and starts a name that may be
unbound at its first save at ``None`` (``passes/record.py``). Numba types such a
name ``Optional`` and its stack a list of optionals: each push, pop and read
checks and converts, which costs most of a scalar loop's time. This module
rewrites, in the Numba form of the code only (line for line):

- a ``name = None`` placeholder whose name Numba types ``Optional(T)``, T a float,
  int or bool, as ``name = T()`` when the placeholder is provably never read
  (``_never_read_unset``): the value then differs only where nothing looks;
- a stack whose items Numba types as one such T (after the rewrite above) as a
  NumPy array grown by doubling and a count: ``_sg.stack_new``/``stack_push``
  and an item read. Other stacks (arrays, mixed types) stay lists.

The types are Numba's own, from typing the code once as it stands
(``_typemap``); if that typing fails the code is left as it is.
"""
import ast

_NO_ARRAYS = False
_NO_SIZING = False  # (tests: stacks grown by doubling only)
_SAMPLES = {"float64": "0.0", "int64": "0", "bool": "False"}  # T() as a literal


def typed_stacks(text, fn, args):
    """``text`` (the generated function, Numba's form) with its placeholders and
    stacks rewritten where types and reads allow; ``fn`` is it loaded, ``args`` a call's."""
    tree = ast.parse(text)
    code = tree.body[0]
    placeholders, stacks = {}, {}
    for s in code.body:  # the recorder's head: placeholders, then empty lists
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], ast.Name)):
            break
        if isinstance(s.value, ast.Constant) and s.value.value is None:
            placeholders[s.targets[0].id] = s
        elif isinstance(s.value, ast.List) and not s.value.elts:
            stacks[s.targets[0].id] = s
        else:
            break
    if not placeholders and not stacks:
        return text  # (nothing to rewrite: no typing)
    typemap = _typemap(fn, args)
    if typemap is None:
        return text
    names = {n.id for n in ast.walk(code) if isinstance(n, ast.Name)}
    lines = text.splitlines()
    edits = []
    typed = set()  # placeholders rewritten to a typed value
    appended = {}  # line -> statements added at its end (reservations before loops)
    parents = {child: node for node in ast.walk(code) for child in ast.iter_child_nodes(node)}
    for name, s in placeholders.items():
        sample = _sample(typemap.get(name), optional=True)
        if sample is not None and _never_read_unset(code, name, typemap):
            edits.append((s.value, sample))
            typed.add(name)
    for stack, s in stacks.items():
        uses = _stack_uses(code, stack)
        if uses is None:
            continue
        pushes, pops = uses
        item = _list_item(typemap.get(stack))
        pushed = {v for _, v in pushes} | {v for _, v in pops}
        sample = _sample(item, optional=False)
        if sample is None and pushed <= typed:
            sample = _sample(item, optional=True)  # (its Nones are now typed values)
        count = f"{stack}_sg_n"
        if sample is None or count in names or _NO_ARRAYS:
            continue
        sized = None if _NO_SIZING else _sized(code, pushes, typemap, parents, text)
        if sized is not None:
            # Every push is counted in advance (``_sized``): room reserved before each
            # outermost loop, pushes checked against the end without growing.
            edits.append((s.value, f"_sg.stack_new({sample}, 0); {count} = 0"))
            for before, budget in sized:
                appended.setdefault(before.end_lineno, []).append(
                    f"{stack} = _sg.stack_reserve({stack}, {count}, {budget})")
            for node, v in pushes:
                edits.append((node, f"_sg.stack_put({stack}, {count}, {v}); {count} += 1"))
            for node, v in pops:
                edits.append((node, f"{v}, {count} = {stack}[{count} - 1], {count} - 1"))
            continue
        edits.append((s.value, f"_sg.stack_new({sample}); {count} = 0"))
        for node, v in pushes:
            # (The array is assigned only when full: an assignment at each push costs
            # Numba a reference count's increment and decrement.)
            edits.append((node, f"{stack} = {stack} if {count} < len({stack}) else "
                                f"_sg.stack_grown({stack}); {stack}[{count}] = {v}; {count} += 1"))
        for node, v in pops:
            edits.append((node, f"{v}, {count} = {stack}[{count} - 1], {count} - 1"))
    for node, new in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        if node.lineno != node.end_lineno:
            continue  # (one-line statements only: the code keeps its lines)
        line = lines[node.lineno - 1]
        lines[node.lineno - 1] = line[:node.col_offset] + new + line[node.end_col_offset:]
    for lineno, added in appended.items():
        lines[lineno - 1] += "; " + "; ".join(added)
    return "\n".join(lines) + "\n"


def _typemap(fn, args):
    """Numba's types of ``fn``'s variables for ``args`` (its type inference only, not
    compiled); None where it cannot type it (the compile that follows says why)."""
    try:
        import numba
        from numba.core import compiler, typed_passes
        from numba.core.registry import cpu_target

        interp = compiler.run_frontend(fn)
        typing, target = cpu_target.typing_context, cpu_target.target_context
        typing.refresh()
        target.refresh()
        found = typed_passes.type_inference_stage(
            typing, target, interp, tuple(map(numba.typeof, args)), None)
        return found.typemap
    except Exception as error:
        if type(error).__module__.split(".")[0] not in ("numba", "builtins"):
            raise  # (not Numba's: an interrupt, say, is not ours to swallow)
        return None


def _sample(t, optional):
    from numba.core import types

    if optional:
        if not isinstance(t, types.Optional):
            return None
        t = t.type
    if isinstance(t, (types.Float, types.Integer, types.Boolean)) and str(t) in _SAMPLES:
        return _SAMPLES[str(t)]
    return None


def _list_item(t):
    from numba.core import types

    return t.dtype if isinstance(t, types.List) else None


def _stack_uses(code, stack):
    """([(push statement, name)], [(pop statement, name)]) when ``stack`` is only
    created empty, pushed a name and popped into a name (one statement each); None
    for any other use."""
    pushes, pops, seen = [], [], 0
    for node in ast.walk(code):
        if isinstance(node, ast.Expr) and _method(node.value, stack, "append", 1) \
                and isinstance(node.value.args[0], ast.Name):
            pushes.append((node, node.value.args[0].id))
            seen += 1
        elif isinstance(node, ast.Assign) and _method(node.value, stack, "pop", 0) \
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            pops.append((node, node.targets[0].id))
            seen += 1
    every = sum(1 for n in ast.walk(code) if isinstance(n, ast.Name) and n.id == stack)
    return (pushes, pops) if every == seen + 1 else None  # (+1: its creation)


def _method(call, obj, name, nargs):
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
        and call.func.attr == name and isinstance(call.func.value, ast.Name) \
        and call.func.value.id == obj and len(call.args) == nargs and not call.keywords


class _Unproven(Exception):
    pass


def _never_read_unset(code, name, typemap):
    """Is ``name`` never read while it holds its ``None`` placeholder, but to be pushed
    on a stack (popped back only) or given to ``_sg.zeros_like`` (0.0 for None and for
    a number alike)?

    A must-be-assigned analysis over the function's statements: a store makes the
    name set, a pop unsets it (the bottom of a stack is the placeholder), a loop may
    run no trip, and a read needs it set. One rule is the recorder's: a backward loop
    ``for t in _sg.reversed_of(r)`` runs its trip k as the forward ``for t in r`` left
    its trip k (stacks restore what that trip overwrote), so each of its trips starts
    as the forward loop's trips end, and it runs only if that loop did. Code with
    ``break``, ``continue``, ``try``, ``with``, nested functions or comprehensions is
    not analysed (unproven).
    """
    for node in (n for s in code.body for n in ast.walk(s)):
        if isinstance(node, (ast.Break, ast.Continue, ast.Try, ast.With, ast.Lambda,
                             ast.FunctionDef, ast.ListComp, ast.GeneratorExp, ast.SetComp,
                             ast.DictComp, ast.Global, ast.Nonlocal)):
            return False
    try:
        _block(code.body, name, False, {"$types": typemap})
    except _Unproven:
        return False
    return True


def _block(stmts, name, state, forward):
    for s in stmts:
        state = _stmt(s, name, state, forward)
    return state


def _reads(node, name):
    exempt = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr == "zeros_like" and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == "_sg" and len(n.args) == 1 \
                and isinstance(n.args[0], ast.Name):
            exempt.add(id(n.args[0]))
    return any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Store)
               and id(n) not in exempt for n in ast.walk(node))


def _stores(targets, name):
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
               for t in targets for n in ast.walk(t))


def _need(node, name, state):
    if not state and node is not None and _reads(node, name):
        raise _Unproven


def _stmt(s, name, state, forward):
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) \
            and isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "append" \
            and len(s.value.args) == 1 and isinstance(s.value.args[0], ast.Name) \
            and s.value.args[0].id == name and isinstance(s.value.func.value, ast.Name):
        return state  # a push: the value kept, to be popped back into a name
    if isinstance(s, ast.Assign):
        _need(s.value, name, state)
        for t in s.targets:
            if not isinstance(t, ast.Name):
                _need(t, name, state)  # (subscripts and attributes read their bases)
        if not _stores(s.targets, name):
            return state
        if len(s.targets) != 1:
            raise _Unproven
        target, value = s.targets[0], s.value
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) \
                and len(target.elts) == len(value.elts) \
                and all(isinstance(t, ast.Name) for t in target.elts):
            value = value.elts[[t.id for t in target.elts].index(name)]
        elif not isinstance(target, ast.Name):
            raise _Unproven
        return _never_none(value, forward["$types"])
    if isinstance(s, ast.AugAssign):
        _need(s, name, state)  # (``x += v`` reads x: set before, set after)
        return state
    if isinstance(s, ast.AnnAssign):
        raise _Unproven
    if isinstance(s, (ast.Expr, ast.Return, ast.Pass, ast.Assert, ast.Raise, ast.Delete)):
        _need(s, name, state)
        if isinstance(s, ast.Delete) and _stores(s.targets, name):
            return False
        return True if isinstance(s, (ast.Return, ast.Raise)) else state
    if isinstance(s, ast.If):
        _need(s.test, name, state)
        return _block(s.body, name, state, forward) and _block(s.orelse, name, state, forward)
    if isinstance(s, (ast.For, ast.While)):
        if s.orelse:
            raise _Unproven
        head = s.iter if isinstance(s, ast.For) else s.test
        _need(head, name, state)
        if isinstance(s, ast.For):
            _need(s.target, name, state)
        mirrored = _mirrored(s, forward)
        if mirrored is not None:
            # A backward loop: each trip starts as its forward trip ended.
            out = _block(s.body, name, mirrored, forward)
        else:
            out = _block(s.body, name, state, forward)
            entry = state and out  # a later trip starts as the one before ended
            if isinstance(s, ast.While):
                _need(s.test, name, entry)
            out = _block(s.body, name, entry, forward)
            if isinstance(s, ast.For) and isinstance(s.iter, ast.Name):
                forward[s.iter.id] = out
        if isinstance(s, ast.For) and _stores([s.target], name):
            raise _Unproven
        return state and out  # (it may run no trip)
    raise _Unproven


def _never_none(value, typemap):
    """Is ``value`` a number or an array, never None, whatever it reads? (A copy of a
    name Numba types optional may be its None; arithmetic on None raises.)"""
    from numba.core import types

    if isinstance(value, (ast.BinOp, ast.UnaryOp, ast.Compare)):
        return True
    if isinstance(value, ast.Constant):
        return value.value is not None
    if isinstance(value, ast.Name):
        t = typemap.get(value.id)
        return t is not None and not isinstance(t, (types.Optional, types.NoneType))
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and isinstance(value.func.value, ast.Name) \
            and value.func.value.id in ("_sg", "np", "math") and value.func.attr != "pop":
        return True  # (srcgrad's helpers, NumPy's and math's functions give values)
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        return isinstance(typemap.get(value.value.id), types.Array)
    return False


def _mirrored(loop, forward):
    """The state a forward loop's trips ended in, for its backward loop
    ``for t in _sg.reversed_of(r)``; None for any other loop."""
    it = loop.iter if isinstance(loop, ast.For) else None
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) \
            and it.func.attr == "reversed_of" and isinstance(it.func.value, ast.Name) \
            and it.func.value.id == "_sg" and len(it.args) == 1 \
            and isinstance(it.args[0], ast.Name) and it.args[0].id in forward:
        return forward[it.args[0].id]
    return None


# -- Stacks sized in advance ---------------------------------------------------------

_COMPOUND = (ast.If, ast.For, ast.While)


def _sized(code, pushes, typemap, parents, text):
    """[(statement, budget)] when every push of a stack is counted in advance: a
    reservation of ``budget`` more items is appended to ``statement``, the one right
    before each outermost loop holding pushes; None where a push is not counted.

    The bound, from the code's structure: a push's statement runs at most once per
    trip of each loop around it, and every loop around it is a ``for`` over a range
    (no ``else``, no ``break`` or ``continue`` anywhere in the outermost) whose trip
    count is known when the outermost starts: the outermost iterates over a name the
    statement right before it has just bound to ``range(...)`` (its trips are that
    range's length, read right then), and each inner loop over ``range(args)``, or over
    a name the last statement of its block binding it bound to ``range(args)``, where
    ``args`` are integers and arrays' lengths and shapes of names that nothing in the
    outermost loop stores (numbers and arrays: their value and shape stay as they
    were). The pushes under one outermost loop are at most the sum, over its push
    statements, of the product of their loops' trip counts (a push under an ``if``:
    an upper bound). Pushes outside a loop, or under a ``while``: not sized.
    """
    by_outer = {}
    for node, _ in pushes:
        chain, up = [], parents.get(node)
        while up is not None and up is not code:
            if not isinstance(up, _COMPOUND):
                return None
            if isinstance(up, (ast.For, ast.While)):
                chain.append(up)
            up = parents.get(up)
        if not chain:
            return None
        chain.reverse()  # outermost first
        by_outer.setdefault(id(chain[0]), (chain[0], []))[1].append(chain)
    out = []
    for outer, chains in by_outer.values():
        if any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Raise, ast.Try,
                              ast.With, ast.FunctionDef, ast.Lambda, ast.Global,
                              ast.Nonlocal, ast.NamedExpr)) for n in ast.walk(outer)):
            return None
        stored = {n.id for n in ast.walk(outer)
                  if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        before = _before(outer, parents, text)
        if before is None:
            return None
        terms = []
        for chain in chains:
            counts = []
            for loop in chain:
                count = _trips(loop, loop is outer, before, stored, typemap, parents)
                if count is None:
                    return None
                counts.append(count)
            term = counts[0]
            for count in counts[1:]:  # (a product by a helper: checked, 64 bits)
                term = f"_sg.stack_product({term}, {count})"
            terms.append(term)
        out.append((before, " + ".join(terms)))
    return out


def _block_of(node, parents):
    """(the list of statements holding ``node``, its index there)"""
    parent = parents.get(node)
    for field in ("body", "orelse"):
        block = getattr(parent, field, None)
        if isinstance(block, list):
            for i, s in enumerate(block):
                if s is node:
                    return block, i
    return None, None


def _before(loop, parents, text):
    """The one-line simple statement right before ``loop`` in its block, where a
    reservation can be appended to its line (nothing after it there)."""
    block, i = _block_of(loop, parents)
    if not block or i == 0:
        return None
    s = block[i - 1]
    if isinstance(s, _COMPOUND) or not isinstance(s, (ast.Assign, ast.Expr, ast.AugAssign)) \
            or s.lineno != s.end_lineno:
        return None
    if text.splitlines()[s.end_lineno - 1][s.end_col_offset:].strip():
        return None
    return s


def _range_call(node):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id == "range" and 1 <= len(node.args) <= 3 and not node.keywords \
        and not any(isinstance(a, ast.Starred) for a in node.args)


def _trips(loop, outermost, before, stored, typemap, parents):
    """An expression of ``loop``'s trip count, valid at the end of ``before`` (see
    ``_sized``); None where it is not known then."""
    if not isinstance(loop, ast.For) or loop.orelse or not isinstance(loop.target, ast.Name):
        return None
    it = loop.iter
    if isinstance(it, ast.Name):
        if outermost:
            # bound by the statement right before: its length is the trip count
            if isinstance(before, ast.Assign) and len(before.targets) == 1 \
                    and isinstance(before.targets[0], ast.Name) \
                    and before.targets[0].id == it.id and _range_call(before.value):
                return f"len({it.id})"
            return None
        block, i = _block_of(loop, parents)
        if block is None:
            return None
        definition = None
        for s in reversed(block[:i]):
            if any(isinstance(n, ast.Name) and n.id == it.id and not isinstance(n.ctx, ast.Load)
                   for n in ast.walk(s)):
                definition = s
                break
        if not (isinstance(definition, ast.Assign) and len(definition.targets) == 1
                and isinstance(definition.targets[0], ast.Name)
                and definition.targets[0].id == it.id and _range_call(definition.value)):
            return None
        it = definition.value
    # (The outermost's own range is read as it starts, right after ``before``: what
    # its trips store does not matter.)
    if not _range_call(it) or not all(
            _invariant(a, set() if outermost else stored, typemap) for a in it.args):
        return None
    return "len(" + ast.unparse(it) + ")"


def _invariant(node, stored, typemap):
    """Is ``node`` an integer expression of constants, integer names and arrays'
    lengths and shapes, none of whose names is in ``stored``?"""
    from numba.core import types

    def name_ok(name, array):
        if name in stored or name in ("len", "range"):
            return False
        found = [t for k, t in typemap.items()
                 if k == name or k.startswith(name + ".") and k[len(name) + 1:].isdigit()]
        kind = types.Array if array else types.Integer
        return bool(found) and all(isinstance(t, kind) for t in found)

    def ok(n):
        if isinstance(n, ast.Constant):
            return type(n.value) is int
        if isinstance(n, ast.Name):
            return name_ok(n.id, False)
        if isinstance(n, ast.BinOp):
            return isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)) \
                and ok(n.left) and ok(n.right)
        if isinstance(n, ast.UnaryOp):
            return isinstance(n.op, ast.USub) and ok(n.operand)
        if isinstance(n, ast.Call):
            return isinstance(n.func, ast.Name) and n.func.id == "len" \
                and len(n.args) == 1 and not n.keywords \
                and isinstance(n.args[0], ast.Name) and name_ok(n.args[0].id, True)
        if isinstance(n, ast.Attribute):
            return n.attr in ("size", "ndim") and isinstance(n.value, ast.Name) \
                and name_ok(n.value.id, True)
        if isinstance(n, ast.Subscript):
            return isinstance(n.value, ast.Attribute) and n.value.attr == "shape" \
                and isinstance(n.value.value, ast.Name) and name_ok(n.value.value.id, True) \
                and isinstance(n.slice, ast.Constant) and type(n.slice.value) is int
        return False
    return ok(node)
