"""Helpers of the integration rules (``rules/integration.py``), reached as ``_sg.<name>``.

Each is plain Python over NumPy functions that have rules, so that adjoint code
calling it can be differentiated again (``tests/test_rule_table.py`` reads them).
The planning helpers at the end compute axes, lengths and indices from shapes and
are listed in the rules' ``NONDIFF``.

``lead`` is the number of leading axes of seed rows on ``g``: 0, or 1 in the row
forms of ``tape.jacobian``; forward values never have them.

The trapezoidal rules compute ``Q = d * (y[1:] + y[:-1]) / 2`` along ``axis`` (``d``
the spacing: ``dx``, or the differences of ``x``) and sum it (``trapezoid``) or take
its running sum (``cumulative_trapezoid``); the adjoints follow those operations
back, broadcasting included, in the order NumPy's and SciPy's code does them.
Simpson's rule is linear in ``y`` with weights that are functions of the spacings
``h`` of ``x`` (SciPy's formulas, with its correction of the last interval for an
even number of samples); the adjoint in ``x`` uses their derivatives in ``h``.
"""
import numpy as np

from .adjoints import axis_slice, not_differentiable
from .selection import sum_lead

__all__ = [
    # differentiable
    "trapezoid_grad", "cumulative_trapezoid_grad", "trapezoid_spacing_grad", "pairs_grad",
    "simpson_grad_y", "simpson_grad_x", "simpson_grad_dx", "simpson_tangent", "simpson_weights",
    "simpson_spacing_grad", "simpson_unit_weights", "ediff1d_grad", "trapezoid_tangent",
    "cumulative_trapezoid_tangent", "ediff1d_tangent",
    # planning (non-differentiable)
    "trapezoid_plan", "along_shape", "one_along", "simpson_plan", "simpson_checked", "ediff1d_plan",
]

# scipy.integrate's functions forward mode's tangents call: bound when a program has
# imported it (from_scipy.py; also ``_sg.<name>``).
scipy_trapezoid = scipy_cumulative_trapezoid = None


# ---------------------------------------------------------------------------
# Differentiable helpers: the trapezoidal rules
# ---------------------------------------------------------------------------

def trapezoid_grad(g, y, x, dx, axis, scipy_form, which, lead):
    """Adjoint of ``np.trapezoid(y, x, dx, axis)`` (``scipy_form`` False) or
    ``scipy.integrate.trapezoid`` (True) for ``y`` (``which`` 0), ``x`` (1), ``dx`` (2).

    The result is ``Q.sum(axis)``: each item's seed spread back over ``Q``'s axis."""
    if isinstance(y, (list, tuple)):
        y = np.array(y)
    ax, n, x_axis, q_shape, q_axis = trapezoid_plan(np.shape(y), np.shape(x) if x is not None
                                                    else None, np.shape(dx), axis, scipy_form)
    rows = np.shape(g)[:lead]
    spread = np.broadcast_to(np.expand_dims(g, lead + q_axis), rows + q_shape)
    return trapezoid_spacing_grad(spread, y, x, dx, ax, x_axis, scipy_form, which, lead)


def cumulative_trapezoid_grad(g, y, x, dx, axis, initial, which, lead):
    """Adjoint of ``scipy.integrate.cumulative_trapezoid(y, x, dx, axis, initial)`` for ``y``
    (``which`` 0), ``x`` (1), ``dx`` (2): the running sum of ``Q`` along ``axis`` (after
    the leading 0 ``initial=0`` puts there), transposed: a reversed running sum."""
    if isinstance(y, (list, tuple)):
        y = np.array(y)
    ax, n, x_axis, q_shape, q_axis = trapezoid_plan(np.shape(y), np.shape(x) if x is not None
                                                    else None, np.shape(dx), axis, False)
    if initial is not None:
        g = g[axis_slice(np.ndim(g), lead + q_axis, 1, None)]
    spread = np.flip(np.cumsum(np.flip(g, lead + q_axis), lead + q_axis), lead + q_axis)
    return trapezoid_spacing_grad(spread, y, x, dx, ax, x_axis, False, which, lead)


def trapezoid_spacing_grad(gq, y, x, dx, ax, x_axis, scipy_form, which, lead):
    """The adjoint of ``Q = d * (y[1:] + y[:-1]) / 2`` (along ``ax``) for ``y`` (``which`` 0),
    ``x`` (1) or ``dx`` (2), given ``Q``'s adjoint ``gq`` (``lead`` row axes first).

    ``d`` is ``dx`` when ``x`` is None; else the differences of ``x``: of a 1-d ``x``
    reshaped along ``ax``, of an n-d ``x`` along ``x_axis`` (SciPy's trapezoid first
    broadcasts ``x`` to ``y``'s shape)."""
    rows = np.shape(gq)[:lead]
    nd = np.ndim(y)
    n = np.shape(y)[ax]
    if n == 0:  # (nothing summed: every adjoint is zero)
        like = y if which == 0 else (x if which == 1 else dx)
        return np.zeros(rows + np.shape(like))
    half = (y[axis_slice(nd, ax, 1, None)] + y[axis_slice(nd, ax, None, n - 1)]) / 2.0
    if x is None:
        spacing = dx
    elif np.ndim(x) == 1:
        spacing = np.reshape(np.diff(x), along_shape(nd, ax, n - 1))
    elif scipy_form:
        spacing = np.diff(np.broadcast_to(x, np.shape(y)), axis=ax)
    else:
        spacing = np.diff(x, axis=x_axis)
    if which == 0:
        return pairs_grad(sum_lead(gq * spacing, half, lead) / 2.0, lead + ax, 1.0)
    if which == 2:
        if x is not None:  # (dx is not read when x is given)
            return np.zeros(rows + np.shape(dx))
        return sum_lead(gq * half, dx, lead)
    gd = sum_lead(gq * half, spacing, lead)
    if np.ndim(x) == 1:
        return pairs_grad(np.reshape(gd, rows + (n - 1,)), lead, -1.0)
    if scipy_form:
        return sum_lead(pairs_grad(gd, lead + ax, -1.0), x, lead)
    return pairs_grad(gd, lead + x_axis, -1.0)


def pairs_grad(grad, axis, sign):
    """Adjoint of ``v[1:] + sign * v[:-1]`` along ``axis`` (a sum of neighbours for
    ``sign`` 1, ``np.diff`` for -1): ``grad`` padded with a 0 before, plus ``sign`` times
    ``grad`` padded with a 0 after."""
    zero = np.zeros(one_along(np.shape(grad), axis))
    return np.concatenate([zero, grad], axis) + sign * np.concatenate([grad, zero], axis)


# ---------------------------------------------------------------------------
# Differentiable helpers: Simpson's rule
# ---------------------------------------------------------------------------

def simpson_grad_y(g, y, x, dx, axis, lead):
    """Adjoint of ``scipy.integrate.simpson(y, x=x, dx=dx, axis=axis)`` for ``y``: the
    seed times the weights of the samples (``dx`` times those of unit spacing when ``x``
    is None)."""
    if isinstance(y, (list, tuple)):
        y = np.array(y)
    ax, n, x_shape = simpson_plan(np.shape(y), np.shape(x) if x is not None else None, axis)
    if x is None:
        weights = np.reshape(simpson_unit_weights(n),
                             along_shape(np.ndim(y), ax, n))
        return sum_lead(np.expand_dims(g * dx, lead + ax) * weights, y, lead)
    spacing = np.diff(np.moveaxis(np.reshape(x, x_shape), ax, -1), axis=-1)
    n = simpson_checked(spacing, n)
    weights = np.moveaxis(simpson_weights(spacing, n), -1, ax)
    return sum_lead(np.expand_dims(g, lead + ax) * weights, y, lead)


def simpson_grad_x(g, y, x, axis, lead):
    """Adjoint of ``scipy.integrate.simpson(y, x=x, axis=axis)`` for ``x``: through the
    spacings ``h``, whose adjoint is the seed times ``y`` times the weights' slopes."""
    if isinstance(y, (list, tuple)):
        y = np.array(y)
    ax, n, x_shape = simpson_plan(np.shape(y), np.shape(x), axis)
    rows = np.shape(g)[:lead]
    spacing = np.diff(np.moveaxis(np.reshape(x, x_shape), ax, -1), axis=-1)
    n = simpson_checked(spacing, n)
    seeded = np.moveaxis(np.expand_dims(g, lead + ax) * y, lead + ax, -1)
    moved = pairs_grad(simpson_spacing_grad(seeded, spacing, n), np.ndim(seeded) - 1, -1.0)
    out = sum_lead(np.moveaxis(moved, -1, lead + ax), np.zeros(x_shape), lead)
    return np.reshape(out, rows + np.shape(x))


def simpson_grad_dx(g, y, x, dx, axis, lead):
    """Adjoint of ``scipy.integrate.simpson(y, x=x, dx=dx, axis=axis)`` for ``dx``: the
    result is ``dx`` times the sum of ``y`` with the weights of unit spacing (0 when ``x``
    is given: ``dx`` is not read then)."""
    if isinstance(y, (list, tuple)):
        y = np.array(y)
    rows = np.shape(g)[:lead]
    if x is not None:
        return np.zeros(rows + np.shape(dx))
    ax, n, x_shape = simpson_plan(np.shape(y), None, axis)
    weights = np.reshape(simpson_unit_weights(n),
                         along_shape(np.ndim(y), ax, n))
    return sum_lead(g * np.sum(weights * y, axis=ax), dx, lead)


def simpson_tangent(y, y_dot, x, x_dot, dx, dx_dot, axis):
    """Forward mode's tangent of ``scipy.integrate.simpson(y, x=x, dx=dx, axis=axis)``."""
    if isinstance(y, (list, tuple)):
        y = np.array(y)
    ax, n, x_shape = simpson_plan(np.shape(y), np.shape(x) if x is not None else None, axis)
    if x is None:
        weights = np.reshape(simpson_unit_weights(n),
                             along_shape(np.ndim(y), ax, n))
        return np.sum(weights * y_dot, axis=ax) * dx + np.sum(weights * y, axis=ax) * dx_dot
    spacing = np.diff(np.moveaxis(np.reshape(x, x_shape), ax, -1), axis=-1)
    n = simpson_checked(spacing, n)
    spacing_dot = np.diff(np.moveaxis(np.reshape(x_dot, x_shape), ax, -1), axis=-1)
    moved_y = np.moveaxis(y, ax, -1)
    along_y = np.sum(simpson_weights(spacing, n) * np.moveaxis(y_dot, ax, -1), axis=-1)
    along_x = np.sum(simpson_spacing_grad(moved_y, spacing, n) * spacing_dot, axis=-1)
    return along_y + along_x


def trapezoid_tangent(y, y_dot, x, x_dot, dx, dx_dot, axis, scipy_form):
    """Forward mode's tangent of ``np.trapezoid`` (``scipy_form`` False) or
    ``scipy.integrate.trapezoid`` (True): bilinear in ``y`` and the spacing, which is
    linear in ``x`` (or ``dx``, read only without ``x``)."""
    if scipy_form:
        if x is None:
            return scipy_trapezoid(y_dot, x, dx, axis) + scipy_trapezoid(y, x, dx_dot, axis)
        return scipy_trapezoid(y_dot, x, dx, axis) + scipy_trapezoid(y, x_dot, dx, axis)
    if x is None:
        return np.trapezoid(y_dot, x, dx, axis) + np.trapezoid(y, x, dx_dot, axis)
    return np.trapezoid(y_dot, x, dx, axis) + np.trapezoid(y, x_dot, dx, axis)


def cumulative_trapezoid_tangent(y, y_dot, x, x_dot, dx, dx_dot, axis, initial):
    """Forward mode's tangent of ``scipy.integrate.cumulative_trapezoid`` (bilinear, as
    ``trapezoid_tangent``; ``initial`` is 0 or None)."""
    if x is None:
        return scipy_cumulative_trapezoid(y_dot, x, dx, axis, initial) \
            + scipy_cumulative_trapezoid(y, x, dx_dot, axis, initial)
    return scipy_cumulative_trapezoid(y_dot, x, dx, axis, initial) \
        + scipy_cumulative_trapezoid(y, x_dot, dx, axis, initial)


def simpson_unit_weights(n):
    """The weights of ``n`` samples one apart (``simpson_weights`` of unit spacings)."""
    return simpson_weights(np.ones(max(n - 1, 0)), n)


def simpson_weights(h, n):
    """The weights ``w`` (last axis, ``n`` samples) with ``simpson(y, x) == sum(w * y)`` for
    the spacings ``h = diff(x)`` (last axis, none zero where a formula divides by it).

    Panel ``p`` (samples ``2p .. 2p+2``, spacings ``a = h[2p]``, ``b = h[2p+1]``) gives
    ``(a+b)/6 * (2 - b/a)``, ``(a+b)^3 / (6ab)``, ``(a+b)/6 * (2 - a/b)``; for an even ``n``
    the panels cover the first ``n - 1`` samples and the last interval adds
    ``alpha = (2b^2 + 3ab) / 6(a+b)``, ``beta = (b^2 + 3ab) / 6a``, ``-eta = -b^3 / 6a(a+b)``
    to the last three (``a``, ``b`` the last two spacings); 2 samples: ``h/2`` each."""
    lead_shape = np.shape(h)[:-1]
    if n == 1:
        return np.zeros(lead_shape + (1,))
    if n == 2:
        return np.concatenate([h / 2.0, h / 2.0], -1)
    panels = (n - 1) // 2
    a = h[..., 0:2 * panels:2]
    b = h[..., 1:2 * panels:2]
    s = a + b
    first = s / 6.0 * (2.0 - b / a)
    middle = s * s * s / (6.0 * a * b)
    last = s / 6.0 * (2.0 - a / b)
    zero = np.zeros(lead_shape + (1,))
    ends = np.concatenate([first, zero], -1) + np.concatenate([zero, last], -1)
    inner = np.reshape(np.stack([ends[..., :panels], middle], -1), lead_shape + (2 * panels,))
    w = np.concatenate([inner, ends[..., panels:]], -1)
    if n % 2 == 1:
        return w
    a = h[..., n - 3]
    b = h[..., n - 2]
    s = a + b
    alpha = (2.0 * b * b + 3.0 * a * b) / (6.0 * s)
    beta = (b * b + 3.0 * a * b) / (6.0 * a)
    eta = b * b * b / (6.0 * a * s)
    fix = np.stack([-eta, beta, alpha], -1)
    return np.concatenate([w, zero], -1) \
        + np.concatenate([np.zeros(np.shape(fix)[:-1] + (n - 3,)), fix], -1)


def simpson_spacing_grad(u, h, n):
    """``sum_k u_k d w_k / d h_j`` (last axes): the adjoint of the spacings ``h`` of
    ``sum(w(h) * y)`` with ``u`` the seed times ``y`` (or ``y`` itself, for a tangent)."""
    if n == 1:
        return 0.0 * (u[..., :0] + h)
    if n == 2:
        return (u[..., 0:1] + u[..., 1:2]) / 2.0 + 0.0 * h
    panels = (n - 1) // 2
    a = h[..., 0:2 * panels:2]
    b = h[..., 1:2 * panels:2]
    s = a + b
    u0 = u[..., 0:2 * panels:2]
    u1 = u[..., 1:2 * panels:2]
    u2 = u[..., 2:2 * panels + 1:2]
    # d/da and d/db of the three weights of each panel (see simpson_weights)
    ga = u0 * (2.0 + (b / a) ** 2) / 6.0 + u1 * s * s * (2.0 * a - b) / (6.0 * a * a * b) \
        + u2 * (1.0 - 2.0 * a / b) / 6.0
    gb = u0 * (1.0 - 2.0 * b / a) / 6.0 + u1 * s * s * (2.0 * b - a) / (6.0 * a * b * b) \
        + u2 * (2.0 + (a / b) ** 2) / 6.0
    both = np.stack([ga, gb], -1)
    out = np.reshape(both, np.shape(both)[:-2] + (2 * panels,))
    if n % 2 == 1:
        return out
    a = h[..., n - 3]
    b = h[..., n - 2]
    s = a + b
    u_alpha = u[..., n - 1]
    u_beta = u[..., n - 2]
    u_eta = u[..., n - 3]
    ga = u_alpha * b * b / (6.0 * s * s) - u_beta * b * b / (6.0 * a * a) \
        + u_eta * b * b * b * (2.0 * a + b) / (6.0 * a * a * s * s)
    gb = u_alpha * (3.0 * a * a + 4.0 * a * b + 2.0 * b * b) / (6.0 * s * s) \
        + u_beta * (b / (3.0 * a) + 0.5) - u_eta * b * b * (3.0 * a + 2.0 * b) / (6.0 * a * s * s)
    fix = np.stack([ga, gb], -1)
    zero = np.zeros(np.shape(out)[:-1] + (1,))
    return np.concatenate([out, zero], -1) \
        + np.concatenate([np.zeros(np.shape(out)[:-1] + (n - 3,)), fix], -1)


# ---------------------------------------------------------------------------
# Differentiable helpers: ediff1d
# ---------------------------------------------------------------------------

def ediff1d_grad(g, ary, to_end, to_begin, which, lead):
    """Adjoint of ``np.ediff1d(ary, to_end, to_begin)`` for ``ary`` (``which`` 0),
    ``to_end`` (1) or ``to_begin`` (2): the result is ``to_begin``, the differences of the
    flattened ``ary`` and ``to_end``, each flattened, joined."""
    rows = np.shape(g)[:lead]
    start, stop = ediff1d_plan(np.size(ary), to_begin)
    nd = np.ndim(g)
    if which == 2:
        return np.reshape(g[axis_slice(nd, lead, 0, start)], rows + np.shape(to_begin))
    if which == 1:
        return np.reshape(g[axis_slice(nd, lead, stop, None)], rows + np.shape(to_end))
    if np.size(ary) == 0:
        return np.zeros(rows + np.shape(ary))
    flat = pairs_grad(g[axis_slice(nd, lead, start, stop)], lead, -1.0)
    return np.reshape(flat, rows + np.shape(ary))


def ediff1d_tangent(ary_dot, to_end, to_end_dot, to_begin, to_begin_dot):
    """Forward mode's tangent of ``np.ediff1d(ary, to_end, to_begin)`` (linear): the
    function of the tangents, an end that is not given left out."""
    if to_end is None:
        to_end_dot = None
    if to_begin is None:
        to_begin_dot = None
    return np.ediff1d(ary_dot, to_end_dot, to_begin_dot)


# ---------------------------------------------------------------------------
# Planning (non-differentiable)
# ---------------------------------------------------------------------------

def trapezoid_plan(y_shape, x_shape, dx_shape, axis, scipy_form):
    """For the trapezoidal rules: ``y``'s axis (from 0) and length along it, ``x``'s axis
    (an n-d ``x``, NumPy's form), and the shape of ``Q`` and the axis its sum runs over."""
    nd = len(y_shape)
    ax = axis % nd
    n = y_shape[ax]
    halves = tuple(max(n - 1, 0) if i == ax else y_shape[i] for i in range(nd))
    x_axis = None
    if x_shape is None:
        spacing = dx_shape
    elif len(x_shape) == 1:
        spacing = tuple(max(x_shape[0] - 1, 0) if i == ax else 1 for i in range(nd))
    elif scipy_form:
        spacing = halves
    else:
        x_axis = axis % len(x_shape)
        spacing = tuple(max(x_shape[i] - 1, 0) if i == x_axis else x_shape[i]
                        for i in range(len(x_shape)))
    q_shape = np.broadcast_shapes(spacing, halves)
    return ax, n, x_axis, q_shape, axis % len(q_shape)


def along_shape(ndim, axis, n):
    """The shape of ``ndim`` axes, ``n`` long along ``axis`` and 1 along the others."""
    return tuple(n if i == axis else 1 for i in range(ndim))


def one_along(shape, axis):
    """``shape`` with 1 along ``axis``."""
    return tuple(1 if i == axis else shape[i] for i in range(len(shape)))


def simpson_plan(y_shape, x_shape, axis):
    """For Simpson's rule: ``y``'s axis (from 0), the number of samples along it, and the
    shape ``x`` is read in (a 1-d ``x`` laid along the axis)."""
    nd = len(y_shape)
    ax = axis % nd
    n = y_shape[ax]
    if x_shape is None:
        return ax, n, None
    if len(x_shape) == 1:
        return ax, n, tuple(x_shape[0] if i == ax else 1 for i in range(nd))
    return ax, n, tuple(x_shape)


def simpson_checked(h, n):
    """``n``, once the spacings ``h`` are checked: no formula may divide by zero (where two
    samples coincide SciPy sets the ratio to 0, a value the formulas jump to)."""
    if n > 2 and np.any(h == 0):
        not_differentiable("scipy.integrate.simpson where two samples of x coincide "
                           "(a zero spacing)")
    if n > 2 and n % 2 == 0 and np.any(h[..., n - 3] + h[..., n - 2] == 0):
        not_differentiable("scipy.integrate.simpson where the last two spacings of x cancel "
                           "(x[-3] == x[-1])")
    return n


def ediff1d_plan(size, to_begin):
    """Where the differences sit in ``np.ediff1d``'s result: ``(start, stop)``."""
    start = 0 if to_begin is None else int(np.size(to_begin))
    return start, start + max(size - 1, 0)
