"""Integrating samples: ``np.trapezoid``, ``np.ediff1d`` and, when SciPy is installed
(optional, never required), ``scipy.integrate.trapezoid``, ``cumulative_trapezoid`` and
``simpson``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Helpers live
in ``runtime/integration.py``; their last argument is the number of leading axes of
seed rows on ``g`` (1 in ``rows``, the forms ``tape.jacobian`` uses; ``selection.
lead_rule`` writes both).

- The trapezoidal rules are differentiable in ``y``, in the sample points ``x`` (1-d,
  or n-d as each function accepts them) and in ``dx`` (a number or an array; its
  gradient is 0 when ``x`` is given, as ``dx`` is then not read). They are bilinear in
  ``y`` and the spacing, so forward mode's tangent is the function of the tangents.
  ``cumulative_trapezoid``'s ``initial`` is None or 0 (SciPy's only values): a
  differentiated ``initial`` is refused at compile time.
- ``simpson`` follows SciPy's current formula: composite Simpson panels over an odd
  number of samples, and for an even number the panels over the first ``N - 1``
  samples plus SciPy's (Cartwright's) correction of the last interval; two samples
  are one trapezoid. Differentiable in ``y``, ``x`` and ``dx``. Where two samples of
  ``x`` coincide (a zero spacing, or the last two spacings cancelling for an even
  ``N``), SciPy's formula divides by zero and sets the ratio to 0: the result jumps
  there, so every gradient of such a call is refused when it runs.
- ``ediff1d``: linear in ``ary``, ``to_end`` and ``to_begin``.
"""
import numpy as np

from ..runtime import integration as _rt
from .selection import lead_rule

_TRAPEZOID = "_sg.trapezoid_grad(g, y, x, dx, axis, {scipy}, {which}, {{lead}})"
_CUMULATIVE = "_sg.cumulative_trapezoid_grad(g, y, x, dx, axis, initial, {which}, {{lead}})"
_EDIFF = "_sg.ediff1d_grad(g, ary, to_end, to_begin, {which}, {{lead}})"


def _trapezoid(scipy_form):
    return lead_rule("y, x=None, dx=1.0, axis=-1",
                     **{p: _TRAPEZOID.format(scipy=scipy_form, which=i)
                        for i, p in enumerate(("y", "x", "dx"))})


TABLE = {
    np.trapezoid: _trapezoid(False),
    np.ediff1d: lead_rule("ary, to_end=None, to_begin=None",
                          **{p: _EDIFF.format(which=i)
                             for i, p in enumerate(("ary", "to_end", "to_begin"))}),
}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = {_rt.trapezoid_plan, _rt.along_shape, _rt.one_along, _rt.simpson_plan, _rt.simpson_checked, _rt.ediff1d_plan}

# Forward mode (``rules/tangents.py``). (Bilinear in ``y`` and the spacing: a missing
# ``x`` has the tangent 0.0, and ``dx`` is read only without ``x``.)
_TRAPEZOID_TANGENT = "_sg.trapezoid_tangent(y, y_dot, x, x_dot, dx, dx_dot, axis, {scipy})"
EXPLICIT = {
    np.trapezoid: _TRAPEZOID_TANGENT.format(scipy=False),
    np.ediff1d: "_sg.ediff1d_tangent(ary_dot, to_end, to_end_dot, to_begin, to_begin_dot)",
}

def _with_integrate(integrate):
    """The entries keyed on ``scipy.integrate``'s functions: added when a program has
    imported it (``rules/optional.py``), so that ``import srcgrad`` never imports SciPy."""
    TABLE.update({
        integrate.trapezoid: _trapezoid(True),
        integrate.cumulative_trapezoid: lead_rule(
            "y, x=None, dx=1.0, axis=-1, initial=None",
            **{p: _CUMULATIVE.format(which=i) for i, p in enumerate(("y", "x", "dx"))}),
        integrate.simpson: lead_rule(
            "y, x=None, *, dx=1.0, axis=-1",
            y="_sg.simpson_grad_y(g, y, x, dx, axis, {lead})",
            x="_sg.simpson_grad_x(g, y, x, axis, {lead})",
            dx="_sg.simpson_grad_dx(g, y, x, dx, axis, {lead})"),
    })
    EXPLICIT.update({
        integrate.trapezoid: _TRAPEZOID_TANGENT.format(scipy=True),
        integrate.cumulative_trapezoid: "_sg.cumulative_trapezoid_tangent(y, y_dot, x, x_dot, "
                                        "dx, dx_dot, axis, initial)",
        integrate.simpson: "_sg.simpson_tangent(y, y_dot, x, x_dot, dx, dx_dot, axis)",
    })


# The SciPy modules whose functions key entries here, and what adds them.
SCIPY = {"scipy.integrate": _with_integrate}
