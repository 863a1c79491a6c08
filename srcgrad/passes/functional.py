"""Writes into arrays as new arrays, in code that is differentiated again.

The first derivative's code writes ``a[i] = v`` in place, saves the slot it
overwrites and puts it back in the backward code; views and saved values of
``a`` then share its memory. Differentiating that code again (``sg.grad`` of a
gradient, ``sg.hessian``, a gradient taken inside an outer tape's block) would
have to prove every such sharing harmless, and refused it. In code compiled to be
differentiated again, a write into an array (the normalizer has checked that
no other name sees it) becomes a new array instead::

    a[1:-1] = v            ->     a_at = _sg.place(a, slice(1, -1, None))
                                  a_new = _sg.with_item(a, a_at, v)
                                  a = a_new

Nothing is written in place, so nothing needs saving or putting back, and the
outer compiler differentiates ``with_item`` by its rule (``rules/helpers.py``).
Each write copies the array: code differentiated again pays that for exactness.
Items of lists and dicts stay as they are (their slots are the reverse pass's).
"""
import gast

from .. import runtime
from ..ir import anno, templates as T
from ..ir.names import bound_names, statement_lists, walk_stmts
from .reverse import _dict_key, _index_expr, passed_container


def rewrite(tree, ctx, params):
    """Make the array writes in ``tree`` (a def) new arrays, in place. Only into arrays
    the code made (names it binds, not ``params``): a write into an argument the caller
    sees stays one (and is refused where it may be shared, as before)."""
    rule = ctx.rule(runtime.with_item)
    local = {n for s in walk_stmts(tree.body) for n in bound_names(s)} - set(params)
    for stmts in list(statement_lists(tree)):
        out = []
        for s in stmts:
            out += _functional(s, ctx, rule, local) if anno.kind(s) == "setitem" else [s]
        stmts[:] = out


def _functional(s, ctx, rule, local):
    target = s.targets[0]
    if not isinstance(target, gast.Subscript) or not isinstance(target.value, gast.Name):
        return [s]
    base, index = target.value.id, target.slice
    if base not in local or base in ctx.containers or passed_container(ctx, base) \
            or _dict_key(index):
        return [s]
    # (``place`` says where a store into integers truncates: runtime/stores.py.)
    at = ctx.namer.fresh(f"{base}_at")
    where = T.expr("_sg.place(a, i)", a=base, i=_index_expr(index))
    out = [anno.set_kind(anno.like(T.assign(at, where), s), "opaque")]
    index = T.name(at)
    # (The rule's arguments are the call's own nodes: forward mode finds them there.)
    args = {"base": T.name(base), "index": index, "value": s.value}
    call = gast.Call(T.expr("_sg.with_item"), list(args.values()), [])
    # (Under a name of its own, then copied: the backward code reads the statement's
    # ``base`` as it was before it, as the normalizer's ``x_new`` does.)
    made = ctx.namer.fresh(f"{base}_new")
    new = anno.like(T.assign(made, call), s)
    out.append(anno.set_kind(new, "prim", rule=rule, args=args, func=runtime.with_item))
    out.append(anno.set_kind(anno.like(T.assign(base, T.name(made)), s), "copy"))
    return out
