"""Central finite differences in float64, with a stability test.

Each partial derivative is estimated at three steps, ``h``, ``2h`` and ``φh``
(φ the golden ratio). For a function smooth around the point they agree to
``O(h^2)`` plus rounding; a kink, a branch that flips or a loop that runs once
more within the step makes them disagree, and the component is *unstable*: the
finite difference says nothing there and the check is inconclusive, not failed.
The third step, not a multiple of ``h``, is for a function that is a staircase at
this scale: ``a - (a - x)`` with ``|a|`` near 1e8 rounds ``x + h`` to a grid of
1.5e-8, so the step taken is ``h`` rounded to that grid, and ``d(h)``, ``d(2h)``
and ``d(4h)`` all gave 1.99974 for a derivative of 2 (fuzzer 35074:938). The
estimate itself is the Richardson combination ``(4 d(h) - d(2h)) / 3``, which
cancels the ``h^2`` term.

A kink exactly at the point (``np.clip(z, -0.8, 0.8)`` at ``z = -0.8``, ``abs`` at 0)
gives the mean of the two one-sided slopes at every step, which agree: its jump is
read from the second differences ``s(h) = f(x+h) - 2 f(x) + f(x-h)``, where
``(s(2h) - 4 s(h)) / 2h`` is ``O(h^3)`` for a smooth function and minus the jump in
slope at a kink (fuzzer 2802:78: any slope between the two is a right answer there).
"""
import numpy as np

STEP = 1e-5
GOLDEN = (1 + 5 ** 0.5) / 2
RTOL = 1e-5
ATOL = 1e-6  # times max(1, |f|): rounding in f is relative to its size


def tolerance(reference, scale):
    return ATOL * scale + RTOL * np.abs(reference)


def partials(fn, args, i, scale):
    """(estimate, stable) arrays of d fn / d args[i], each of args[i]'s shape."""
    x = np.asarray(args[i], dtype=np.float64)
    d = [np.empty(x.shape) for _ in range(3)]
    jump = np.zeros(x.shape)
    at = fn(*args)
    for j in np.ndindex(x.shape):
        second = []
        for k, h in enumerate((STEP, 2 * STEP, GOLDEN * STEP)):
            up = fn(*_moved(args, i, j, h))
            down = fn(*_moved(args, i, j, -h))
            d[k][j] = (up - down) / (2 * h)
            second.append(up - 2 * at + down)
        jump[j] = (second[1] - 4 * second[0]) / (2 * STEP)
    estimate = (4 * d[0] - d[1]) / 3
    stable = (np.abs(d[0] - d[1]) <= tolerance(d[0], scale)) \
        & (np.abs(d[0] - d[2]) <= tolerance(d[0], scale)) \
        & (np.abs(jump) <= tolerance(d[0], scale))
    return estimate, stable & np.isfinite(estimate)


def _moved(args, i, j, h):
    """Copies of ``args`` with element ``j`` of ``args[i]`` moved by ``h``, same kind."""
    out = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    x = out[i]
    if isinstance(x, np.ndarray):
        x[j] += h
    else:
        out[i] = type(x)(x + h)
    return out
