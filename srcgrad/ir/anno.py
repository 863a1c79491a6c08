"""What the passes attach to statements, in one place.

A statement produced by ``normalize`` carries ``sg_kind``, one of:

- ``opaque``: any statement that computes nothing differentiable (kept as the
  user wrote it; its targets only need saving if the backward pass reads them),
- ``copy``: ``t = a``,
- ``prim``: ``t = f(...)`` or ``t = a op b`` with a rule; ``sg_rule`` and
  ``sg_args`` (parameter -> atom node) say how to differentiate it,
- ``getitem``: ``t = a[index]``,
- ``literal``: ``t = [a, b]`` or ``t = (a, b)``,
- ``setitem``: ``a[index] = v``,
- ``append``: ``xs.append(v)``,
- ``pop``: ``t = xs.pop()``,
- ``read``: ``t = self.w`` reading a Variable a tape watches (a source),
- ``watch``: a marker where the backward pass reports a source's adjoint,

and ``sg_origin`` (a ``source.Origin``) pointing at the user's line.
Compound statements (if/for/while) carry ``sg_origin`` only.
"""
KIND = "sg_kind"
ORIGIN = "sg_origin"


def origin(node):
    return getattr(node, ORIGIN, None)


def set_origin(node, value):
    setattr(node, ORIGIN, value)
    return node


def like(new, old):
    """Give ``new`` the origin and line of ``old``; returns ``new``."""
    setattr(new, ORIGIN, getattr(old, ORIGIN, None))
    for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        if hasattr(old, attr):
            setattr(new, attr, getattr(old, attr))
    chain = getattr(old, "sg_chain", None)
    if chain is not None:
        new.sg_chain = chain
    if getattr(old, "sg_undone", False):  # (an append a try's handler undoes: try_except)
        new.sg_undone = True
    return new


def kind(node):
    return getattr(node, KIND, None)


def set_kind(node, value, **extra):
    setattr(node, KIND, value)
    for key, val in extra.items():
        setattr(node, "sg_" + key, val)
    return node

