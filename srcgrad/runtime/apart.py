"""``check_apart``: the inputs compiled code writes into share no memory with other inputs.

Generated code calls it first when it writes into an input (``passes/apart.py``):
it reads every input as a value of its own, where Python's code would see the
write through any other name of that memory.
"""
import numpy as np

__all__ = ["check_apart"]

_DEPTH = 4  # containers in containers: as deep as parameter trees go in practice


def check_apart(written, values, names):
    """Refuse if an array inside an input named in ``written`` (``"name (file:line)"``,
    where the code first writes into it) shares memory with an array inside another
    input, or at another place inside the same one. ``values``: the inputs, ``names``:
    theirs."""
    found = []
    for name, value in zip(names, values):
        _arrays(value, name, name, found, _DEPTH)
    if len(found) < 2:
        return
    for entry in written:
        name, _, where = entry.partition(" (")
        for owner, path, a in found:
            if owner != name:
                continue
            for other_owner, other, b in found:
                if other != path and np.may_share_memory(a, b) and np.shares_memory(a, b):
                    _refuse(name, where.rstrip(")"), path, other)


def _refuse(name, where, path, other):
    from ..errors import CompileError

    raise CompileError(
        f"`{other}` shares memory with `{path}`, which the code writes into in place: in "
        f"Python `{other}` would see the write, where srcgrad's compiled code reads each input "
        "as it was when the code started", where,
        remedy=f"pass a copy (`{other}.copy()`), or make `{other}` from `{name}` inside the "
               "code, after the write")


def _arrays(value, owner, path, out, depth):
    """(owner, path, array) of each array in ``value``: in lists, tuples, dicts and the
    attributes of objects, ``depth`` levels down."""
    if isinstance(value, np.ndarray):
        out.append((owner, path, value))
        return
    if depth == 0 or value is None or isinstance(value, (int, float, complex, str, np.generic)):
        return
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _arrays(v, owner, f"{path}[{i}]", out, depth - 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            _arrays(v, owner, f"{path}[{k!r}]", out, depth - 1)
    else:
        attributes = getattr(value, "__dict__", None)
        if isinstance(attributes, dict) and not isinstance(value, type) \
                and type(value).__module__ not in ("builtins", "numpy"):
            for k, v in attributes.items():
                _arrays(v, owner, f"{path}.{k}", out, depth - 1)
