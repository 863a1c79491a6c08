"""A write into a view of an array, written as the write into that array it is.

``w = v[1:3]`` (or ``v.T``, ``v.ravel()``, ``np.asarray(v)``, an inlined
helper's parameter ``u = v``) makes ``w`` and ``v`` one memory: a write into
``w`` changes ``v``, which rebinding-based adjoints do not see, so such a
write was refused. Where every binding of ``w`` is the same view of one name
``v``, the write becomes one into ``v``, at the places of ``v`` that the
written items of ``w`` are, and ``w`` is made again as it was::

    w = v[1:3]                     w = v[1:3]
    w[0] = x * 2            ->     w_now = v[1:3]
                                   w_at = _sg.view_places(w, v, w_now, 0, 'w[0]', 'f.py:3')
                                   v[w_at] = x * 2
                                   w = v[1:3]

``_sg.view_places`` checks, when the code runs, that ``w`` is that view of ``v``
now (the same memory, shape and strides as ``v[1:3]`` made again), and gives
the index of ``v`` its written items are at; it refuses anything else (``w``
a copy, ``v`` rebound since). The write into ``v`` is then checked and
differentiated as one the user wrote into it (``v`` may be shared in turn).
"""
import types

import gast

from ...ir import anno, templates as T
from ...ir.aliasing import _shared_sources
from ...ir.names import bound_names, walk_stmts
from ...ir.varied import expr_varied
from ...rules import table


def view_bindings(body, scope):
    """name -> (the name it is a view of, the view's expression), for each name every
    binding of which in ``body`` is that one view expression."""
    seen = {}
    for s in walk_stmts(body):
        if getattr(s, "sg_inplace", False) and isinstance(s.targets[0], gast.Name):
            continue  # (``w *= 3``: in place on an array, ``array_view`` below)
        for n in bound_names(s):
            seen.setdefault(n, []).append(
                s.value if isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) else None)
    out = {}
    for name, values in seen.items():
        first = values[0]
        base = view_base(first, scope) if first is not None else None
        if base is None or base == name:
            continue
        if all(v is not None and gast.dump(v) == gast.dump(first) for v in values[1:]):
            out[name] = (base, first)
    return out


def pending(norm, body):
    """Is there a write into a known view, refused as shared, left to write into the
    array it views? (Other writes into shared arrays wait for those.)"""
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Subscript) \
                and isinstance(s.targets[0].value, gast.Name):
            w = s.targets[0].value.id
            if _written_through(norm, w) and w in norm.shared and id(s) not in norm.private \
                    and (w in norm.varied or expr_varied(s.value, norm.varied, norm.scope)):
                return True
    return False


def _written_through(norm, name):
    """The (array, view expression) a write into ``name`` is written into, or None."""
    found = norm.view_bindings.get(name)
    if found is None or found[0] in norm.ctx.containers:
        return None  # (an item of a list is no view: refused as shared)
    return found


def array_view(norm, name):
    """Is ``name`` known as a view (above) that is an array whenever the array it views is
    one: a slice, ``.T``, ``.ravel()``..., not an item (``v[1]`` of a vector is a number,
    which ``w *= 3`` rebinds)?"""
    found = _written_through(norm, name)
    if found is None:
        return False
    view = found[1]
    if isinstance(view, gast.Subscript):
        parts = view.slice.elts if isinstance(view.slice, gast.Tuple) else [view.slice]
        return any(isinstance(p, gast.Slice) or isinstance(p, gast.Constant)
                   and (p.value is None or p.value is Ellipsis) for p in parts)
    return True


def through_view(norm, s, target):
    """The statements writing ``s`` (``w[index] = value``) into the array ``w`` is a
    view of (above), or None where ``w`` is not known as one."""
    base = target.value.id
    found = _written_through(norm, base)
    if found is None:
        return None
    of, view = found
    namer = norm.ctx.namer
    value, now, at, again = (namer.fresh(f"{base}_{part}")
                             for part in ("value", "now", "at", "again"))
    o = anno.origin(s)
    written = f"{norm._spelling(target.value, s)}[{gast.unparse(target.slice).strip()}]"
    # (The value first, as Python computes it before the write. Where it reads the view
    # (``w[2] += v``), from a copy of it: the same values, and no view of the array
    # written into is held across the write.)
    out = []
    if any(isinstance(n, gast.Name) and n.id == base for n in gast.walk(s.value)):
        read = namer.fresh(f"{base}_read")
        out.append(T.assign(read, T.expr("_sg.copy_slot(w)", w=base)))
        rename_reads([gast.Expr(s.value)], base, read)
    out += [T.assign(value, s.value), T.assign(now, T.clone(view)),
           T.assign(at, T.expr("_sg.view_places(w, v, now, index, shown, where)",
                               w=base, v=of, now=now, index=_as_expr(target.slice),
                               shown=T.const(written), where=T.const(o.short() if o else "?"))),
           T.assign(gast.Subscript(T.name(of), T.name(at), gast.Store()), T.name(value)),
           T.assign(again, T.clone(view))]
    for n in out:
        anno.like(n, s)
    store = out[-2]
    store.sg_inplace = getattr(s, "sg_inplace", False)
    # (Refused in turn, the message names the write the user wrote, through ``w``.)
    store.sg_call = getattr(s, "sg_call", None) or f"{written} = ..."
    # The view made again, under a new name that the reads after the write (in the rest
    # of the block) take, so that the first binding's reads all come before the write.
    out[-1].sg_renames = (base, again)
    return out


def rename_reads(stmts, old, new):
    """Read ``new`` for ``old`` in ``stmts`` (the rest of a block), up to the first
    statement that binds ``old`` again (reads past it keep ``old``); an update in place
    of ``old`` is of ``new`` too."""
    for s in stmts:
        in_place = getattr(s, "sg_inplace", False) and isinstance(s.targets[0], gast.Name)
        if not in_place and any(isinstance(n, gast.Name) and n.id == old
                                and not isinstance(n.ctx, gast.Load) for n in gast.walk(s)):
            return  # (``w *= 3`` updates the one array: its name follows, ``view_bindings``)
        for n in gast.walk(s):
            if isinstance(n, gast.Name) and n.id == old:
                n.id = new


def _as_expr(index):
    """An index as the value it is (``1:3`` as ``slice(1, 3)``), to pass to a helper."""
    if isinstance(index, gast.Slice):
        parts = [T.const(None) if p is None else T.clone(p)
                 for p in (index.lower, index.upper, index.step)]
        return gast.Call(T.name("slice"), parts, [])
    if isinstance(index, gast.Tuple):
        return gast.Tuple([_as_expr(e) for e in index.elts], gast.Load())
    return T.clone(index)


def view_base(value, scope):
    """The name ``value`` is a view of, where it is a chain of subscripts, view
    attributes and view methods or functions down to a name; else None."""
    node = value
    while True:
        if isinstance(node, gast.Name):
            break
        if isinstance(node, gast.Subscript):
            if any(isinstance(n, gast.Call) for n in gast.walk(node.slice)):
                return None  # (made again: its index must not call anything)
            node = node.value
        elif isinstance(node, gast.Attribute) and node.attr in table.VIEW_ATTRIBUTES:
            node = node.value
        elif isinstance(node, gast.Call) and _shared_sources(node, scope):
            parts = list(node.args) + [k.value for k in node.keywords]
            f = node.func
            if isinstance(f, gast.Attribute) \
                    and not isinstance(scope.value(f.value), types.ModuleType):
                node = f.value  # (a method of the array: ``v.ravel()``, ``v.reshape(2, 3)``)
            elif node.args:
                node, parts = node.args[0], parts[1:]  # (``np.asarray(v)``)
            else:
                return None
            if any(isinstance(n, gast.Call) for p in parts for n in gast.walk(p)):
                return None
        else:
            return None
    sources = _shared_sources(value, scope)
    return node.id if sources == {node.id} else None
