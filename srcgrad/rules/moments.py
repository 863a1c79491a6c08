"""Second moments of samples: ``np.cov`` and ``np.corrcoef``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``. Helpers
live in ``runtime/moments.py``; their last argument is the number of leading
axes of seed rows on ``g`` (1 in ``rows``, the forms ``tape.jacobian`` uses).

- ``cov``: in ``m`` and ``y``, with ``rowvar``, ``bias``, ``ddof``, and constant
  ``fweights``/``aweights`` (the weighted covariance is still a quadratic form of
  the samples); differentiated weights are refused when compiled. Complex
  samples are refused when the gradient runs.
- ``corrcoef``: ``C / sqrt(diag C diag C^T)``; NumPy then clips the result to
  [-1, 1], which only moves values off by rounding and is not differentiated.
"""
import numpy as np

from ..runtime import moments as _rt
from .selection import lead_rule

_COV = "_sg.cov_grad(g, m, y, rowvar, bias, ddof, fweights, aweights, {which}, {{lead}})"
_CORRCOEF = "_sg.corrcoef_grad(g, x, y, rowvar, {which}, {{lead}})"

TABLE = {
    np.cov: lead_rule("m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, "
                      "aweights=None, *, dtype=None",
                      m=_COV.format(which=0), y=_COV.format(which=1)),
    np.corrcoef: lead_rule("x, y=None, rowvar=True, *, dtype=None",
                           x=_CORRCOEF.format(which=0), y=_CORRCOEF.format(which=1)),
}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = {_rt.cov_plan, _rt.average_weights_plan}

# Forward mode (``rules/tangents.py``).
EXPLICIT = {
    np.cov: "_sg.cov_tangent(m, m_dot, y, y_dot, rowvar, bias, ddof, fweights, aweights, ans)",
    np.corrcoef: "_sg.corrcoef_tangent(x, x_dot, y, y_dot, rowvar, ans)",
}
