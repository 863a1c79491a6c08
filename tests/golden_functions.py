"""Representative functions whose generated adjoint is stored in ``tests/golden``.

Owned by ``tests/test_golden.py``. Editing a function here changes its golden
text: regenerate with ``SRCGRAD_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py``
and review the diff.
"""
import numpy as np


def broadcast_arith(x, b):
    """Straight-line arithmetic with broadcasting: x (n, m), b (m,)."""
    y = x * b + 2.0
    z = y / (1.0 + x * x) - b
    return np.sum(z * z)


def reduce_axis(x):
    """A reduction along an axis, with keepdims, then a full one."""
    m = np.mean(x, axis=1, keepdims=True)
    c = x - m
    s = np.sum(c * c, axis=0)
    return np.sum(np.sqrt(s + 1.0))


def range_loop(x, n):
    """A for loop over range with an accumulator."""
    total = 0.0
    for i in range(n):
        total = total + np.sin(x * i)
    return np.sum(total)


def branch(x, a):
    """An if/else on a value known at run time."""
    if np.sum(x) > a:
        y = x * a
    else:
        y = np.exp(x)
    return np.sum(y * x)


def while_loop(x):
    """A while loop whose trip count depends on the data."""
    y = x
    k = 0
    while np.max(np.abs(y)) > 1.0 and k < 10:
        y = y * 0.5
        k = k + 1
    return np.sum(y * y)


def list_comprehension(x):
    """A list comprehension inside a call."""
    parts = [x[i] * float(i + 1) for i in range(3)]
    return np.sum(np.stack(parts) ** 2)


def _softplus(v):
    return np.log1p(np.exp(v))


def calls_helper(w, x):
    """A call to a user helper function (inlined)."""
    h = _softplus(x @ w)
    return np.mean(h)


# (function, wrt) for each golden file; the file is tests/golden/<name>.txt
GOLDEN = [
    (broadcast_arith, (0, 1)),
    (reduce_axis, 0),
    (range_loop, 0),
    (branch, 0),
    (while_loop, 0),
    (list_comprehension, 0),
    (calls_helper, (0, 1)),
]
