"""Values known when compiling that hide a read of what a tape watches, made explicit.

``m.l2`` where ``l2`` is a ``@property`` computing ``np.sum(self.w ** 2)`` from a
Variable the tape watches: read as an attribute, its value is right but the
read is a constant to the backward pass (the regulariser's term silently
missing from every gradient). Called instead, ``l2_getter(m)``, it is inlined
as a method is, and ``self.w`` is the watched read. Only where the property
gives a number or an array (a flag or a function it gives still decides
branches when compiling).

Likewise ``proj = functools.partial(np.dot, w)`` then ``proj(x)``: the call is
``np.dot(w, x)``, the bound values compiled in as values known when compiling
are (a watched one is then read as the source it is).

Only in a tape's block, where an object known when compiling may hold what is
differentiated.
"""
import functools
import inspect
import types

import gast
import numpy as np

from ...ir import anno, templates as T
from ...ir.names import walk_stmts
from ...ir.resolve import MISSING, is_library

_NUMERIC = (float, complex, np.ndarray, np.number)
_BINARY = {gast.Add: "__add__", gast.Sub: "__sub__", gast.Mult: "__mul__",
           gast.MatMult: "__matmul__", gast.Div: "__truediv__", gast.Pow: "__pow__"}


def inline_getters(norm, fn):
    """Rewrite, in ``fn``, each such property read as a call of its getter."""
    if not (norm.ctx.tape_region or norm.ctx.variable_sources or norm.ctx.watched_reads
            or norm.ctx.mirrors):  # (``robot.state = x0``, then ``robot.energy``)
        return
    rewrite = _Getters(norm)
    for s in walk_stmts(fn.body):
        if anno.kind(s) not in (None, "opaque") or isinstance(s, gast.FunctionDef):
            continue  # (normalized: its operands are named; a nested def: when inlined)
        for field in ("value", "test", "iter", "targets", "target"):
            if hasattr(s, field):
                old = getattr(s, field)
                new = [rewrite.visit(t) for t in old] if isinstance(old, list) else \
                    rewrite.visit(old) if old is not None else None
                setattr(s, field, new)


class _Getters(gast.NodeTransformer):
    def __init__(self, norm):
        self.norm = norm

    def visit_Lambda(self, node):
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        p = self.norm.scope.value(node.func) if isinstance(node.func, (gast.Name, gast.Attribute)) \
            else MISSING
        if not isinstance(p, functools.partial) or not any(
                isinstance(a, _NUMERIC) or self.norm.ctx.is_variable(a)
                for a in list(p.args) + list(p.keywords.values())):
            return node
        ctx = self.norm.ctx
        func = T.name(ctx.inject(p.func, getattr(p.func, "__name__", "partial_func")))
        given = {k.arg for k in node.keywords}
        keywords = [gast.keyword(k, ctx.constant(v)) for k, v in p.keywords.items()
                    if k not in given]
        return gast.Call(func, [ctx.constant(a) for a in p.args] + list(node.args),
                         keywords + list(node.keywords))

    def _dunder(self, obj, name):
        """``type(obj).<name>``, a function of the user's, where ``obj`` is an object
        known when compiling (not a container, an array or a class), else None."""
        if obj is MISSING or isinstance(obj, (type, types.ModuleType, list, tuple, dict,
                                              np.ndarray, np.generic, str, bytes)) \
                or self.norm.ctx.is_variable(obj):
            return None
        member = inspect.getattr_static(type(obj), name, None)
        return member if isinstance(member, types.FunctionType) and not is_library(member) \
            else None

    def visit_Subscript(self, node):
        # ``robot[0]`` of an object whose class defines ``__getitem__``: that method, called
        self.generic_visit(node)
        if not isinstance(node.ctx, gast.Load) or isinstance(node.slice, gast.Slice):
            return node
        method = self._dunder(self.norm.scope.value(node.value), "__getitem__")
        if method is None:
            return node
        name = self.norm.ctx.inject(method, "getitem")
        return gast.Call(T.name(name), [node.value, node.slice], [])

    def visit_BinOp(self, node):
        # ``robot @ v``: the left operand's ``__matmul__`` (``__add__``...), called
        self.generic_visit(node)
        dunder = _BINARY.get(type(node.op))
        method = self._dunder(self.norm.scope.value(node.left), dunder) \
            if dunder and isinstance(node.left, (gast.Name, gast.Attribute)) else None
        if method is None:
            return node
        name = self.norm.ctx.inject(method, dunder.strip("_"))
        return gast.Call(T.name(name), [node.left, node.right], [])

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if not isinstance(node.ctx, gast.Load):
            return node
        obj = self.norm.scope.value(node.value)
        if obj is MISSING or isinstance(obj, (type, types.ModuleType)):
            return node
        member = inspect.getattr_static(type(obj), node.attr, None)
        if not isinstance(member, property) or member.fget is None \
                or not isinstance(member.fget, types.FunctionType) or is_library(member.fget):
            return node
        value = self.norm.scope.value(node)  # (guarded: another value compiles anew)
        if self.norm.ctx.is_variable(value) or not isinstance(value, _NUMERIC):
            return node
        getter = self.norm.ctx.inject(member.fget, member.fget.__name__)
        return gast.Call(T.name(getter), [node.value], [])
