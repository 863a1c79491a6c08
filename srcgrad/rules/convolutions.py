"""``scipy.signal``'s n-d convolutions, when SciPy is installed (optional, never required):
``convolve`` and ``correlate`` (any ``method``), ``fftconvolve`` and ``oaconvolve``
(``axes=None``), ``convolve2d`` (the zero fill), modes ``full``, ``same``, ``valid``,
real arrays; in both operands.

Every one is the full convolution of ``in1`` with ``in2`` (reversed for
``correlate``) cut to ``mode``; its adjoints are valid correlations with the
other operand (``runtime/convolutions.py``). Called with other options (``axes``,
another boundary, a fill value) they are written out instead (``transforms.py``); given
them unseen (``**options``), the gradient raises NotDifferentiableError when it runs.
``np.convolve``/``np.correlate`` (1-d) are in ``rules/sequences.py``.

Scope of a grad expression and the fields of an entry: ``entry.Rule``.
"""
from ..runtime import convolutions as _rt
from .selection import lead_rule

TABLE = {}
METHODS = {}
ATTRIBUTES = {}
NONDIFF = set()
# For forward mode (rules/tangents.py): bilinear in the two operands whatever the
# options, so the tangent is the call with one operand's tangent at a time.
BILINEAR = set()
EXPLICIT = {}


def _rule(signature, flip, options=""):
    grad = "_sg.signal_conv_grad(g, in1, in2, mode, {flip}, {which}, {{lead}}{options})"
    return lead_rule(signature, rank="same",
                     in1=grad.format(flip=flip, which=0, options=options),
                     in2=grad.format(flip=flip, which=1, options=options))


def _with_signal(signal):
    """The entries, keyed on ``scipy.signal``'s functions: added when a program has
    imported it (``rules/optional.py``), with the rewrites of their other options
    (``transforms.py``) in the same step."""
    TABLE.update({
        signal.convolve: _rule("in1, in2, mode='full', method='auto'", False),
        signal.correlate: _rule("in1, in2, mode='full', method='auto'", True),
        signal.fftconvolve: _rule("in1, in2, mode='full', axes=None", False,
                                  ", 'fftconvolve', axes"),
        signal.oaconvolve: _rule("in1, in2, mode='full', axes=None", False,
                                 ", 'oaconvolve', axes"),
        signal.convolve2d: _rule("in1, in2, mode='full', boundary='fill', fillvalue=0", False,
                                 ", 'convolve2d', None, boundary, fillvalue"),
    })
    BILINEAR.update({signal.convolve, signal.correlate, signal.fftconvolve, signal.oaconvolve})
    # (A fill value is not bilinear: the tangent checks the options first.)
    EXPLICIT[signal.convolve2d] = ("_sg.convolve2d_tangent(in1, in1_dot, in2, in2_dot, mode, "
                                   "boundary, fillvalue)")
    NONDIFF.update({_rt.signal_conv_mode, _rt.signal_conv_padding, _rt.correlate_slices,
                    _rt.trailing_axes})


# The SciPy modules whose functions key entries here, and what adds them.
SCIPY = {"scipy.signal": _with_signal}
