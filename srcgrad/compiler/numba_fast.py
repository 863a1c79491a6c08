"""The Numba backend's fast path: a call with the arguments of the last call's kinds.

A Numba gradient of a scalar loop runs in about a microsecond, and the general
path around it (binding the arguments, keying the cache by their kinds, Numba's
own dispatch on their types, a separate finiteness check, the casts) cost
twice that. For the common case, arguments of the last call's kinds that are
Python or NumPy numbers and aligned, writeable, C-ordered arrays, this module
writes one small Python function (``fast_path``) that:

- checks each argument's type with the tests Numba's ``typeof`` would give the
  same type for (type, dtype object, rank, flags), so the compiled machine code
  (``entry_point``, no dispatch) is only called with the types it was compiled for;
- runs the entry's guards (``_Entry.valid``: globals, closures, the function's
  own code and defaults) at every call, as the general path does;
- reads the finiteness of the result from the compiled code itself (the
  ``_Entry``'s wrapper returns it beside the result);
- casts the gradients as ``Compiled.returned`` does, for the cases it decides
  without looking further.

Anything else (another kind, a failed guard) returns ``MISS`` before the code runs,
and the general path runs the call from the start; a result that is not finite
(the strong-zero rerun) or that the cast would change is handed to the general
path's tail (``NumbaCompiled.finish``), so the code never runs twice.
"""
import numpy as np

MISS = object()


def _check(i, value, nb_type):
    """A Python test that argument ``a{i}`` has Numba type ``nb_type`` as ``value``
    has it, with the objects it names; None where this path does not decide."""
    from numba.core import types

    t = type(value)
    if t is float and nb_type == types.float64:
        return f"type(a{i}) is float", {}
    if t is bool and nb_type == types.boolean:
        return f"type(a{i}) is bool", {}
    if t is int and nb_type == types.int64:
        # (Numba types a larger int as uint64, or refuses it)
        return f"type(a{i}) is int and -{2 ** 63} <= a{i} < {2 ** 63}", {}
    if t is np.float64 and nb_type == types.float64:
        return f"type(a{i}) is float64", {"float64": np.float64}
    if t is np.ndarray and isinstance(nb_type, types.Array) and nb_type.layout == "C" \
            and nb_type.mutable and nb_type.aligned and value.dtype.isnative:
        # Numba's typeof: the dtype, the rank, layout C when C-contiguous, read-only
        # and unaligned arrays typed apart.
        # (``flags.num``: C-contiguous 0x1, aligned 0x100, writeable 0x400, in one read)
        return (f"type(a{i}) is ndarray and a{i}.dtype is d{i} and a{i}.ndim == {value.ndim} "
                f"and a{i}.flags.num & 0x501 == 0x501",
                {f"d{i}": value.dtype, "ndarray": np.ndarray})
    return None


def _cast(j, like, nb_type):
    """The cast ``Compiled.returned`` gives gradient ``g{j}`` (of Numba type ``nb_type``)
    of an argument like ``like`` in the cases decided here, as (test the gradient
    passes, expression)."""
    from numba.core import types

    if type(like) is np.ndarray:
        # ``cache._cast``'s first case: the gradient returned as it is. Numba returns an
        # array of its type's dtype, writeable when the type is mutable: what is left
        # to see is its shape.
        if isinstance(nb_type, types.Array) and nb_type.mutable \
                and np.dtype(nb_type.dtype.name) == like.dtype:
            same = f"len(g{j}) == len(l{j})" if like.ndim == 1 else f"g{j}.shape == l{j}.shape"
            return (same, f"g{j}"), {}
        return (f"type(g{j}) is ndarray and g{j}.dtype is dl{j} and g{j}.shape == l{j}.shape "
                f"and g{j}.flags.writeable", f"g{j}"), {f"dl{j}": like.dtype}
    if type(like) in (float, np.float64):
        # ``cache._cast``: ``np.float64(grad)`` for a float, ``like.dtype.type(grad)`` for a
        # NumPy float64; a real gradient is a Python float as Numba returns it.
        return (f"type(g{j}) is float", f"float64(g{j})"), {"float64": np.float64}
    return None, None


def _casts(wrt, args, returned, env, filled=()):
    """(the tests the gradients pass, the expressions returning them), the names they read
    added to ``env``; ``filled``: the gradients written into arrays made per call
    (``_filled``), returned as they are. None where a cast is not decided here."""
    casts, results = [], []
    for j, i in enumerate(wrt):
        if j in filled:
            results.append(f"g{j}")
            continue
        (test, expr), names = _cast(j, args[i], returned[j])
        if test is None:
            return None
        env.update(names)
        casts.append(test.replace(f"l{j}", f"a{i}"))
        results.append(expr)
    return casts, results


def fast_path(owner, entry, args):
    """A function of a call's positional arguments giving what the general path
    would return, or ``MISS``; None when this call's kinds are not ones it takes."""
    c = owner.compiled
    if c.bound or not c.simple or len(args) != len(c.names):
        return None
    jitted = entry.jitted
    signature = tuple(map(jitted.typeof_pyval, args))
    compiled = jitted.overloads.get(signature)
    entry_point = getattr(compiled, "entry_point", None)  # (Numba's: none in another version)
    if entry_point is None:
        return None
    env = {"ep": entry_point, "valid": entry.valid, "MISS": MISS,
           "distinct": _distinct, "finish": lambda args, out, finite: owner.finish(
               entry, args, out, finite)}
    tests = []
    for i, (value, nb_type) in enumerate(zip(args, signature)):
        found = _check(i, value, nb_type)
        if found is None:
            return None
        tests.append(found[0])
        env.update(found[1])
    env["$tests"] = tests
    returned = compiled.signature.return_type.types[0]  # (beside the finiteness flag)
    if owner.mode == "value_and_grad":
        returned = returned.types[1]
    returned = list(returned.types) if c.multiple else [returned]
    found = _casts(c.wrt, args, returned, env)
    if found is None:
        return None
    casts, results = found
    params = ", ".join(f"a{i}" for i in range(len(args)))
    grads = ", ".join(f"g{j}" for j in range(len(c.wrt)))
    filled = _filled(owner, entry, args, signature, returned, env)
    if filled is not None:
        return filled
    if not c.multiple:
        unpack = "g0 = grads"
    elif any(type(args[i]) is np.ndarray for i in c.wrt):
        unpack = f"({grads},) = distinct(grads)"  # as the general path: no two share memory
    else:
        unpack = f"({grads},) = grads"  # (numbers share nothing)
    built = f"({', '.join(results)},)" if c.multiple else results[0]
    value = owner.mode == "value_and_grad"
    lines = [
        "def fast(args):",
        f"    if len(args) != {len(args)}:",
        "        return MISS",
        f"    ({params},) = args",
        f"    if not ({' and '.join(tests)}):",
        "        return MISS",
        "    if not valid():",
        "        return MISS",
        f"    out, finite = ep({params})",
        "    if not finite:",
        "        return finish(args, out, finite)  # (the strong-zero rerun, maybe)",
        "    value, grads = out" if value else "    grads = out",
        f"    {unpack}",
        f"    if not ({' and '.join(casts)}):",
        "        return finish(args, out, finite)",
        f"    return (value, {built})" if value else f"    return {built}",
    ]
    scope = dict(env)
    exec(compile("\n".join(lines) + "\n", "<srcgrad numba fast path>", "exec"), scope)
    return scope["fast"]


def _filled(owner, entry, args, signature, returned, env):
    """The fast path where gradients of array arguments are written into arrays made
    here (Numba's boxing of an array it returns costs more than the code of a small
    loop): a wrapper of the entry's code, compiled with Numba, copies each such
    gradient into a new array of its argument's shape and dtype (broadcast as
    ``cache._cast`` broadcasts, a ``ValueError`` where it cannot) and returns the
    finiteness of the code's result, its value and the other gradients. Each call's
    arrays are its own. None where no gradient is such an array, or Numba cannot
    compile the wrapper."""
    from numba.core import types

    c = owner.compiled
    slots = [j for j, i in enumerate(c.wrt)
             if type(args[i]) is np.ndarray and isinstance(returned[j], types.Array)
             and returned[j].ndim == args[i].ndim
             and np.dtype(returned[j].dtype.name) == args[i].dtype]
    if not slots or _NO_FILL:
        return None
    numba = owner.numba
    n = len(args)
    params = ", ".join(f"a{i}" for i in range(n))
    outs = ", ".join(f"o{j}" for j in slots)
    value = owner.mode == "value_and_grad"
    grads = ", ".join(f"g{j}" for j in range(len(c.wrt)))
    rest = [j for j in range(len(c.wrt)) if j not in slots]
    inner, written = _written(owner, entry, slots, value, c.multiple, outs)
    body = [f"def filled({params}, {outs}):",
            f"    out = inner({params}, {outs})" if written else f"    out = inner({params})",
            "    fin = finite(out)",
            "    value, grads = out" if value else "    grads = out",
            f"    ({grads},) = grads" if c.multiple else "    g0 = grads"]
    body += [f"    o{j}[...] = g{j}" for j in slots if j not in written]
    got = ["fin"] + (["value"] if value else []) + [f"g{j}" for j in rest]
    # (a lone flag returned as it is: no tuple to box)
    body.append("    return " + ("fin" if len(got) == 1 else "(" + ", ".join(got) + ",)"))
    scope = {"inner": inner, "finite": owner.rt.finite_of}
    exec("\n".join(body) + "\n", scope)
    jitted = numba.njit(scope["filled"])
    made = [np.empty(args[c.wrt[j]].shape, args[c.wrt[j]].dtype) for j in slots]
    sig = tuple(signature) + tuple(map(numba.typeof, made))
    try:
        jitted.compile(sig)
    except Exception as error:
        if type(error).__module__.split(".")[0] not in ("numba", "builtins"):
            raise
        return None
    entry_point = getattr(jitted.overloads.get(sig), "entry_point", None)
    if entry_point is None:
        return None
    env = dict(env, fp=entry_point, empty=np.empty, written=frozenset(written))
    lines = [
        "def fast(args):",
        "    try:",
        f"        ({params},) = args",
        "    except ValueError:  # (another number of arguments)",
        "        return MISS",
        f"    if not ({' and '.join(env.pop('$tests'))}):",
        "        return MISS",
        "    if not valid():",
        "        return MISS",
    ]
    for j in slots:
        i = c.wrt[j]
        shape = f"len(a{i})" if args[i].ndim == 1 else f"a{i}.shape"
        lines.append(f"    o{j} = empty({shape}, dl{j})")
        env[f"dl{j}"] = args[i].dtype
    lines.append(f"    ({', '.join(got)},) = fp({params}, {outs})" if len(got) > 1
                 else f"    fin = fp({params}, {outs})")
    grads_t = f"({grads},)" if c.multiple else "g0"
    lines += [f"    g{j} = o{j}" for j in slots]
    out = f"(value, {grads_t})" if value else grads_t
    lines += ["    if not fin:",
              f"        return finish(args, {out}, fin)  # (the strong-zero rerun, maybe)"]
    found = _casts(c.wrt, args, returned, env, slots)
    if found is None:
        return None
    casts, results = found
    if casts:
        lines += [f"    if not ({' and '.join(casts)}):",
                  f"        return finish(args, {out}, fin)"]
    built = f"({', '.join(results)},)" if c.multiple else results[0]
    lines.append(f"    return (value, {built})" if value else f"    return {built}")
    scope = dict(env)
    exec(compile("\n".join(lines) + "\n", "<srcgrad numba fast path>", "exec"), scope)
    return scope["fast"]


_NO_FILL = False  # (tests: the gradients returned by Numba, boxed, as before)
_NO_WRITTEN = False  # (tests: filled by a copy only)


def _written(owner, entry, slots, value, multiple, outs):
    """(the entry's code, the slots it writes itself): where slot j's gradient is a
    name bound once, at the function's top level, to ``_sg.zeros_like(param)`` of its
    argument and returned as it is (the only ``return``), a variant of the code taking
    the arrays made by the fast path, that name bound to its own one, zeroed
    (``_sg.zeros_into``): the code accumulates into it, nothing is copied. Otherwise
    ``entry.inner`` and no slot."""
    import ast

    none = (entry.inner, set())
    if _NO_WRITTEN:
        return none
    text = entry.text
    tree = ast.parse(text)
    code = tree.body[0]
    a = code.args
    if a.vararg or a.kwonlyargs or a.kwarg or a.posonlyargs or code.lineno != a.args[-1].end_lineno:
        return none
    returns = [n for n in ast.walk(code) if isinstance(n, ast.Return)]
    if len(returns) != 1 or returns[0] is not code.body[-1] or returns[0].value is None:
        return none
    ret = returns[0].value
    if value:
        if not (isinstance(ret, ast.Tuple) and len(ret.elts) == 2):
            return none
        ret = ret.elts[1]
    if isinstance(ret, ast.Call) and isinstance(ret.func, ast.Attribute) \
            and ret.func.attr == "distinct" and len(ret.args) == 1:
        ret = ret.args[0]
    grads = ret.elts if multiple and isinstance(ret, ast.Tuple) else [ret] if not multiple else None
    if grads is None:
        return none
    params = [p.arg for p in a.args]
    wrt = owner.compiled.wrt
    lines = text.splitlines()
    edits, written = [], set()
    for j in slots:
        g = grads[j] if j < len(grads) else None
        if not isinstance(g, ast.Name):
            continue
        name = g.id
        stores = [n for n in ast.walk(code) if isinstance(n, ast.Name) and n.id == name
                  and not isinstance(n.ctx, ast.Load)]
        if len(stores) != 1 or sum(1 for k in grads if isinstance(k, ast.Name) and k.id == name) != 1:
            continue
        top = [s for s in code.body if isinstance(s, ast.Assign) and len(s.targets) == 1
               and s.targets[0] is stores[0]]
        if not top:
            continue
        v = top[0].value
        if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)
                and isinstance(v.func.value, ast.Name) and v.func.value.id == "_sg"
                and v.func.attr == "zeros_like" and len(v.args) == 1 and not v.keywords
                and isinstance(v.args[0], ast.Name) and v.args[0].id == params[wrt[j]]
                and v.lineno == v.end_lineno):
            continue
        edits.append((v.lineno, v.col_offset, v.end_col_offset,
                      f"_sg.zeros_into(o{j}, {params[wrt[j]]})"))
        written.add(j)
    if not written:
        return none
    for lineno, start, stop, new in sorted(edits, reverse=True):
        line = lines[lineno - 1]
        lines[lineno - 1] = line[:start] + new + line[stop:]
    head = lines[code.lineno - 1]
    at = head.rfind(")")
    if at < 0 or f"o{min(slots)}" in {n.id for n in ast.walk(code) if isinstance(n, ast.Name)} \
            or any(f"o{j}" in params for j in slots):
        return none
    lines[code.lineno - 1] = head[:at] + ", " + outs + head[at:]
    fn = entry.loaded
    from . import codegen
    loaded = codegen.load("\n".join(lines) + "\n", fn.__name__, fn.__globals__,
                          entry.cells, f"numba {fn.__name__} filled")
    return owner.numba.njit(loaded), written


def _distinct(grads):
    from ..runtime.core import distinct
    return distinct(grads)
