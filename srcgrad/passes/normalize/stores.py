"""Calls that write into an array, written as the store they are.

srcgrad differentiates writes into arrays when an assignment shows them
(``a[i] = v``, ``a[...] = v``: checked for shared arrays, saved and restored
for the backward pass, ir/private.py). A call that writes into its argument
hides the write (ir/effects.py refuses it where the gradient may read that
array). The calls whose write is a store of a value NumPy computes without
the write are rewritten as that store, which is then checked and
differentiated like one the user wrote::

    np.copyto(y, x * 3.0)             y[...] = x * 3.0
    np.fill_diagonal(A, 0.0)     ->   A[_sg.diagonal_index(A, False)] = 0.0
    y.sort()                          _sg.check_array(y, 'y.sort()', ...)
                                      y[...] = np.sort(y)
    np.multiply(x, x, out=y)          y[...] = np.multiply(x, x)
    np.add.at(a, idx, v)              a_scattered = _sg.add_at(a, idx, v)
                                      a[...] = a_scattered

Only where the hidden write may reach the gradient (elsewhere the call runs
as written) and only into a name; anything else stays refused.
"""
import gast
import numpy as np

from ...ir import anno, templates as T
from ...ir.effects import hidden_write
from ...ir.resolve import MISSING, is_library
from ...ir.varied import expr_varied
from ...rules import table


def rewrite(norm, body):
    """``body`` with each call written as a store (its nested blocks too), and whether
    any was. Run over the body before its statements are normalized, so that what may
    share an array is found for these stores as for those the user wrote."""
    out, changed = [], False
    for s in body:
        if isinstance(s, (gast.If, gast.For, gast.While)):
            for field in ("body", "orelse"):
                block, inner = rewrite(norm, getattr(s, field))
                setattr(s, field, block)
                changed |= inner
        norm.cur = norm.ctx.cur = s
        stored = as_stores(norm, s) if anno.kind(s) in (None, "opaque") else None
        out += [s] if stored is None else stored
        changed |= stored is not None
    return out, changed


def as_stores(norm, s, build=True):
    """The statements ``s`` (a call writing into an array) is rewritten to, or None
    (without ``build``: True instead of the statements, nothing named or injected)."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
        call, bound = s.value, None
    elif isinstance(s, gast.Assign) and len(s.targets) == 1 \
            and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call):
        call, bound = s.value, s.targets[0].id
    else:
        return None
    found = hidden_write(call, norm.scope)
    if found is None or found[1] is None:
        return None
    what, written = found
    if not expr_varied(call, norm.varied, norm.scope) and norm.writes.harmless(s, what, written):
        return None  # runs as written: nothing the gradient reads sees it
    fn = norm.scope.value(call.func)
    # NumPy by the name the generated code has for it (the user's ``np`` may be another).
    numpy = T.own_name(norm.ctx.module_names["np"])
    if what == "out=":
        made = _without_out(call, fn, written, numpy)
    elif bound is not None:
        return None  # (``z = np.copyto(y, x)`` binds None: left to the checks)
    else:
        made = _store_of(norm, s, call, fn, what, numpy)
    if made is None:
        return None
    base, index, value, checks = made
    if isinstance(base, gast.Subscript) and isinstance(index, gast.Constant) \
            and index.value is Ellipsis and _basic_index(base.slice):
        # ``out=a[:3]``: a view of ``a``, written through (an array: checked).
        checks = (_check_array(norm, s, base.value, call),) + tuple(checks)
        base, index = base.value, base.slice
    if not isinstance(base, gast.Name):
        return None
    if not build:
        return True
    out = list(checks)
    if what == "at":
        helper = norm.ctx.inject(norm.ctx.runtime.add_at, "add_at")
        tmp = norm.ctx.namer.fresh(f"{base.id}_scattered")
        out.append(T.assign(tmp, T.expr("f(a, i, v)", f=helper, a=base.id, i=index, v=value)))
        index, value = gast.Constant(Ellipsis, None), T.name(tmp)
    store = T.assign(gast.Subscript(T.name(base.id), index, gast.Store()), value)
    store.sg_call = gast.unparse(call).strip()  # (what messages about the write name)
    out.append(store)
    if bound is not None:
        out.append(T.assign(bound, T.name(base.id)))  # ``z = np.add(a, b, out=y)``: z is y
    return [anno.like(T.fix_ctx(o), s) for o in out]


def _arguments(call, names, required):
    """``call``'s arguments by name (positional ones in the order ``names`` gives), or
    None where one is a ``*`` or ``**`` spread, unknown or missing."""
    if any(isinstance(a, gast.Starred) for a in call.args) or len(call.args) > len(names) \
            or any(k.arg is None or k.arg not in names for k in call.keywords):
        return None
    given = dict(zip(names, call.args))
    for k in call.keywords:
        if k.arg in given:
            return None
        given[k.arg] = k.value
    return given if all(n in given for n in names[:required]) else None


def _is(node, value):
    return isinstance(node, gast.Constant) and node.value is value


def _store_of(norm, s, call, fn, what, numpy):
    """``(base, index, value, checks)`` for a function or method writing into an argument."""
    whole = gast.Constant(Ellipsis, None)
    if what == "copyto":
        a = _arguments(call, ["dst", "src", "casting", "where"], 2)
        if a is None or "casting" in a and not (isinstance(a["casting"], gast.Constant)
                                                 and a["casting"].value in ("same_kind", "unsafe")):
            return None
        value = a["src"]
        if "where" in a and not _is(a["where"], True):
            value = T.expr("np.where(w, src, dst)", np=numpy, w=a["where"], src=value, dst=a["dst"])
        return a["dst"], whole, value, ()
    if what == "fill_diagonal":
        a = _arguments(call, ["a", "val", "wrap"], 2)
        if a is None:
            return None
        index = T.expr("_sg.diagonal_index(a, wrap)", a=a["a"], wrap=a.get("wrap", T.const(False)))
        return a["a"], index, a["val"], ()
    if what == "put_along_axis":
        a = _arguments(call, ["arr", "indices", "values", "axis"], 4)
        if a is None:
            return None
        index = T.expr("_sg.along_axis_index(a, i, axis)", a=a["arr"], i=a["indices"],
                       axis=a["axis"])
        return a["arr"], index, a["values"], ()
    if what == "put" and fn is np.put:
        return _put(call, ["a", "ind", "v", "mode"], None, ())
    if what == "place":
        a = _arguments(call, ["arr", "mask", "vals"], 3)
        return None if a is None else (a["arr"], a["mask"], a["vals"], ())
    if what == "at":
        if fn.__self__ not in (np.add, np.subtract) or call.keywords or len(call.args) != 3:
            return None
        base, index, value = call.args
        if fn.__self__ is np.subtract:
            value = gast.UnaryOp(gast.USub(), value)
        return base, index, value, ()
    f = call.func
    if not isinstance(f, gast.Attribute) or not (fn is MISSING or isinstance(
            getattr(fn, "__self__", None), np.ndarray)):
        return None
    receiver = f.value
    check = _check_array(norm, s, receiver, call)
    if what == "fill":
        a = _arguments(call, ["value"], 1)
        return None if a is None else (receiver, whole, a["value"], (check,))
    if what == "sort":
        a = _arguments(call, ["axis", "kind", "order"], 0)
        if a is None or "order" in a and not _is(a["order"], None):
            return None  # (fields of a structured array)
        value = T.expr("np.sort(a, axis=axis)", np=numpy, a=receiver,
                       axis=a.get("axis", T.const(-1)))
        return receiver, whole, value, (check,)
    if what == "partition":
        a = _arguments(call, ["kth", "axis", "kind", "order"], 1)
        if a is None or "order" in a and not _is(a["order"], None):
            return None
        value = T.expr("np.partition(a, kth, axis=axis)", np=numpy, a=receiver, kth=a["kth"],
                       axis=a.get("axis", T.const(-1)))
        return receiver, whole, value, (check,)
    if what == "put":
        return _put(call, ["ind", "v", "mode"], receiver, (check,))
    return None


def _check_array(norm, s, value, call):
    """``_sg.check_array(value, ...)``: a write NumPy makes into an ndarray only (a list's
    ``sort``, an item of a list, are not compiled as stores into an array)."""
    o = anno.origin(s)
    text = norm.ctx.in_user_names(gast.unparse(call).strip())
    return norm._mark(T.stmt("_sg.check_array(a, call, where)", a=value, call=T.const(text),
                             where=T.const(o.short() if o else "?")), "opaque")


def _basic_index(node):
    """An index of constant ints and slices (and ``...``): it makes a view, never a copy."""
    parts = node.elts if isinstance(node, gast.Tuple) else [node]
    for p in parts:
        if isinstance(p, gast.Slice):
            if not all(b is None or isinstance(b, gast.Constant) and isinstance(b.value, int)
                       or isinstance(b, gast.UnaryOp) and isinstance(b.operand, gast.Constant)
                       for b in (p.lower, p.upper, p.step)):
                return False
        elif not (isinstance(p, gast.Constant) and (type(p.value) is int or p.value is Ellipsis
                                                    or p.value is None)
                  or isinstance(p, gast.UnaryOp) and isinstance(p.operand, gast.Constant)
                  and type(p.operand.value) is int):
            return False
    return True


def _put(call, names, receiver, checks):
    """``np.put(a, ind, v)`` / ``a.put(ind, v)``: a store at the flat indices ``ind``
    (mode 'raise' only: 'wrap' and 'clip' move indices NumPy's stores would refuse)."""
    a = _arguments(call, names, len(names) - 1)
    if a is None or "mode" in a and not (isinstance(a["mode"], gast.Constant)
                                         and a["mode"].value == "raise"):
        return None
    base = receiver if receiver is not None else a["a"]
    return base, T.expr("_sg.flat_index(a, ind)", a=base, ind=a["ind"]), a["v"], checks


def _without_out(call, fn, written, numpy):
    """``f(..., out=y)`` as ``y[...] = f(...)`` (``where=`` of a ufunc: where it is False
    ``y`` keeps its values). None for calls of code that is not NumPy's or SciPy's, whose
    ``out`` may mean anything."""
    f = call.func
    ufunc = fn if isinstance(fn, np.ufunc) else None
    known = ufunc is not None or fn is not MISSING and is_library(fn) \
        or fn is MISSING and isinstance(f, gast.Attribute) and f.attr in table.METHODS
    if not known:
        return None
    if isinstance(written, (gast.Tuple, gast.List)):
        if len(written.elts) != 1:
            return None  # (a ufunc with two results: np.divmod(a, b, out=(q, r)))
        written = written.elts[0]
    args = list(call.args)
    if ufunc is not None and len(args) > ufunc.nin:
        if len(args) != ufunc.nin + 1 or ufunc.nout != 1:
            return None
        args = args[:ufunc.nin]
    keywords = [k for k in call.keywords if k.arg not in ("out", "where")]
    where = [k.value for k in call.keywords if k.arg == "where"]
    if where and ufunc is None:
        keywords.append(gast.keyword("where", where.pop()))  # a reduction's own where=
    value = gast.Call(call.func, args, keywords)
    if where and not _is(where[0], True):
        value = T.expr("np.where(w, v, y)", np=numpy, w=where[0], v=value, y=written)
    return written, gast.Constant(Ellipsis, None), value, ()
