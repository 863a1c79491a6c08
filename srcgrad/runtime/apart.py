"""Arrays that share memory, checked when the code runs.

``check_apart``: generated code calls it first when it writes into an input
(``passes/apart.py``): it reads every input as a value of its own, where
Python's code would see the write through any other name of that memory.
``view_places``: where in an array the items of a view of it are, for a write
into the view written as one into the array (``passes/normalize/views.py``).
"""
import numpy as np

__all__ = ["check_apart", "view_places"]

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


def view_places(view, base, now, index, text, where):
    """The index of ``base`` that ``view[index]`` is at (a tuple of integer arrays), for
    a write into the view written as one into ``base`` (``passes/normalize/views.py``).

    ``now`` is the view's expression made again from ``base``: it must be ``view``
    itself as memory goes (the same start, shape, strides and item type), else the
    write would not be the one into ``base``; refused then, as for a copy."""
    name = text.split("[")[0]
    if not (type(view) is np.ndarray and type(base) is np.ndarray and type(now) is np.ndarray
            and _same_memory(view, now) and view.dtype == base.dtype):
        _not_a_view(name, text, where)
    places = _places_in(view, base)
    if places is None:
        _not_a_view(name, text, where)
    return np.unravel_index(places[index], base.shape)


def _same_memory(a, b):
    return a.__array_interface__["data"][0] == b.__array_interface__["data"][0] \
        and a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype


def _places_in(view, base):
    """The flat index in ``base`` of each item of ``view`` (``view``'s shape), or None if
    some item of ``view`` is not one of ``base``'s, or two are one."""
    if base.size == 0 or view.size == 0:
        return None
    start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    own = _offsets(base).ravel()
    order = np.argsort(own, kind="stable")
    wanted = start + _offsets(view).ravel()
    found = np.clip(np.searchsorted(own[order], wanted), 0, own.size - 1)
    places = order[found]
    if not np.array_equal(own[places], wanted) or np.unique(places).size != places.size:
        return None
    return places.reshape(view.shape)


def _offsets(a):
    """The byte offset of each item of ``a`` from its first, in ``a``'s shape."""
    out = np.zeros(a.shape, dtype=np.intp)
    for axis, (n, step) in enumerate(zip(a.shape, a.strides)):
        shape = [1] * a.ndim
        shape[axis] = n
        out = out + (np.arange(n, dtype=np.intp) * step).reshape(shape)
    return out


def _not_a_view(name, text, where):
    from ..errors import CompileError

    raise CompileError(
        f"writing into `{text}`: srcgrad writes it into the array `{name}` was made a view "
        f"of, and `{name}` is not that view of it when the code runs (a copy, an item of "
        "a container, or made from an array rebound since)", where,
        remedy=f"make a private copy first: {name} = {name}.copy(), or write into the "
               "array itself")
