"""Which names a function binds and which it reads from outside, via beniget.

beniget's def-use chains follow Python's scoping rules (comprehensions and
nested functions have their own scopes), which hand-written walks get wrong.
"""
import beniget
import gast


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


def function_locals(fn):
    """Names local to ``fn``: its parameters and what it binds (not nested scopes')."""
    return {d.name() for d in _chains(fn).locals[fn]}


def free_names(fn):
    """Names ``fn`` (or a function nested in it) reads but nothing inside binds."""
    return _chains(fn).unbound


def names(fn):
    """``(function_locals(fn), free_names(fn))`` from one pass."""
    chains = _chains(fn)
    return {d.name() for d in chains.locals[fn]}, chains.unbound
