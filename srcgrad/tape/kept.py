"""What a block run once keeps for its backward code, as the block left it.

The backward code reads the block's record when ``gradient`` is called, after
the user's code has gone on. ``keep_as_computed`` copies, when the block
ends, the arrays of the record the user can reach (which names those are is
``ir/escapes.py``'s finding), so that writing into them afterwards does not
change the gradient (TensorFlow's is at the values the block computed with).
``pristine`` gives each backward run of a persistent tape its own copy of
what that code restores in place (stacks it pops, slots it writes back).
"""
import numpy as np


_SCALARS = frozenset({float, int, bool, complex, type(None), np.float64, np.float32, np.int64,
                      np.bool_, range})


def keep_as_computed(record, names, containers_only=(), inputs_only=(), inputs=()):
    """Replace the arrays under ``names`` in ``record`` (also inside lists, tuples and
    dicts) by copies, so that writes the user's code makes after the block do not
    change what the backward code reads; under ``containers_only``, only the
    arrays inside containers; under ``inputs_only``, only the arrays that are one
    of ``inputs`` (the block's input values). Returns {id(copy): original} for
    the copies the backward code may report a gradient for."""
    originals, memo = {}, {}
    only = None  # ids of the arrays to copy, or None for all

    def keep(value):
        kind = type(value)
        if kind is np.ndarray:
            if not value.flags.writeable and value.base is None:
                return value  # a Variable's frozen array: no one writes into it
            if only is not None and id(value) not in only:
                return value
            copy = memo.get(id(value))
            if copy is None:
                copy = memo[id(value)] = value.copy()
                originals[id(copy)] = value
            return copy
        if kind is list or kind is tuple:
            if _SCALARS.issuperset(map(type, value)):
                return value  # a stack of numbers: nothing to copy
            items = [keep(v) for v in value]
            if all(a is b for a, b in zip(items, value)):
                return value
            copy = items if kind is list else tuple(items)
        elif kind is dict:
            items = {k: keep(v) for k, v in value.items()}
            if all(items[k] is v for k, v in value.items()):
                return value
            copy = items
        else:
            return value
        originals[id(copy)] = value
        return copy

    for name in names:
        if name in record:
            record[name] = keep(record[name])
    for name in containers_only:
        if type(record.get(name)) in (list, tuple, dict):
            record[name] = keep(record[name])
    if inputs_only:
        only = {id(v) for v in inputs if type(v) is np.ndarray}
        for name in inputs_only:
            if name in record:
                record[name] = keep(record[name])
    return originals


def pristine(value):
    """A copy of ``value`` and of the lists, dicts, tuples and arrays in it: the backward
    code restores a stack by popping it and a slot by writing into the array."""
    kind = type(value)
    if kind is np.ndarray:
        return value.copy()
    if kind is list or kind is tuple:
        return kind(pristine(v) for v in value)
    if kind is dict:
        return {k: pristine(v) for k, v in value.items()}
    return value
