"""A log message formatted from a differentiated value with ``%``: ``"loss=%.3f" % s``.

``%`` of a string is formatting, no arithmetic: it carries no gradient. It was taken
as the modulo of ``s`` (forward mode and tapes then crashed computing its derivative).
Every form, against central differences.
"""
import numpy as np
import pytest

from tape_forms import assert_every_form

LOG = []


def printf_style(x):
    s = np.sum(x ** 2)
    msg = "loss=%.3f" % s
    LOG.append(msg)
    return s * 2.0


def printf_of_a_tuple(x):
    s = np.sum(np.sin(x))
    LOG.append("%s: %.2f (%d)" % ("loss", s, 3))
    return s * np.sum(x)


def f_string_beside(x):
    s = np.sum(np.exp(x))
    LOG.append(f"s={s:.3f}, " + "x0=%g" % x[0])
    return s


@pytest.mark.parametrize("f", [printf_style, printf_of_a_tuple, f_string_beside])
def test_every_form(f):
    assert_every_form(f, np.array([0.3, -0.7, 1.1]))
    assert LOG and all(isinstance(m, str) for m in LOG)
