"""Which names a function binds and which it reads from outside, via beniget.

beniget's def-use chains follow Python's scoping rules (comprehensions and
nested functions have their own scopes), which hand-written walks get wrong.
A function with no nested scope gets the same answer from one walk
(``_flat_names``; ``tests/test_scopes.py`` holds it to beniget's).
"""
import beniget
import gast

from .templates import walk


class _Chains(beniget.DefUseChains):
    """Def-use chains that collect unbound names instead of printing warnings."""

    def __init__(self):
        super().__init__()
        self.unbound = set()

    def warn(self, msg, node):
        if msg.startswith("unbound identifier"):
            self.unbound.add(msg.split("'")[1])


def _chains(fn):
    chains = _Chains()
    chains.visit(gast.Module([fn], []))
    return chains


_BUILTINS = set(beniget.beniget.Builtins)
# Nodes that open a scope or bind names other than through ``Name`` nodes.
_NOT_FLAT = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef, gast.ListComp,
             gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.Global, gast.Nonlocal,
             gast.Import, gast.ImportFrom, gast.ExceptHandler, gast.MatchAs, gast.MatchStar,
             gast.MatchMapping)


def _flat_names(fn):
    """``names(fn)`` of a body without nested scopes, from one walk, or None.

    Most user functions, and all generated and inlined bodies, are such; the
    compiler asks for the locals of the body it builds again after each
    inlining round, and beniget's full def-use chains cost twenty times as much.
    """
    a = fn.args
    local = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs}
    local |= {p.id for p in (a.vararg, a.kwarg) if p is not None}
    loads = set()
    for stmt in fn.body:
        for n in walk(stmt):
            if isinstance(n, gast.Name):
                (loads if isinstance(n.ctx, gast.Load) else local).add(n.id)
            elif isinstance(n, _NOT_FLAT):
                return None
    # Decorators, defaults and annotations are read outside the function.
    outside = fn.decorator_list + a.defaults + [d for d in a.kw_defaults if d is not None]
    outside += [p.annotation for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                if p is not None and p.annotation is not None]
    outside += [fn.returns] if fn.returns is not None else []
    outer = set()
    for expr in outside:
        for n in walk(expr):
            if isinstance(n, gast.Name):
                outer.add(n.id)
            elif isinstance(n, _NOT_FLAT):
                return None
    # As beniget sees it: builtins and the function's own name are bound outside.
    return local, (loads - local - {fn.name} | outer) - _BUILTINS


def function_locals(fn):
    """Names local to ``fn``: its parameters and what it binds (not nested scopes')."""
    flat = _flat_names(fn)
    return flat[0] if flat is not None else {d.name() for d in _chains(fn).locals[fn]}


def free_names(fn):
    """Names ``fn`` (or a function nested in it) reads but nothing inside binds."""
    return _chains(fn).unbound


def names(fn):
    """``(function_locals(fn), free_names(fn))`` from one pass."""
    flat = _flat_names(fn)
    if flat is not None:
        return flat
    chains = _chains(fn)
    return {d.name() for d in chains.locals[fn]}, chains.unbound
