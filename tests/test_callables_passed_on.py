"""A function passed to a library routine that has no rule, closing over what is
differentiated: ``quad(lambda t: np.exp(-p[0] * t), 0, 1)``, ``odeint``, ``minimize``,
``brentq``, ``np.fromfunction``.

The routine calls the function where srcgrad cannot see: its result depends on ``p``
through it. The gradient was a silent zero (a tape's None): the call read only the
def's name, which nothing varied reached. Now the def reads what it closes over, so
the call is refused naming the routine, in every form. A function that closes over
nothing differentiated is passed on as before.
"""
import numpy as np
import pytest

import srcgrad as sg

scipy = pytest.importorskip("scipy")
from scipy.integrate import odeint, quad  # noqa: E402
from scipy.optimize import brentq, minimize  # noqa: E402


def with_quad(p):
    return quad(lambda t: np.exp(-p[0] * t), 0.0, 1.0)[0]


def with_quad_def(p):
    rate = p[0] * 2.0

    def decay(t):
        return np.exp(-rate * t)
    value, _ = quad(decay, 0.0, 1.0)
    return value


def with_odeint(p):
    k = p[0]
    return odeint(lambda y, t: -k * y, 1.0, [0.0, 1.0])[-1, 0]


def with_fromfunction(p):
    return np.sum(np.fromfunction(lambda i: np.exp(-p[0] * i), (5,)))


def with_minimize(p):
    res = minimize(lambda w: (w[0] - p[0]) ** 2 + 0.2 * w[0] ** 4, np.array([0.0]))
    return res["fun"]


def with_brentq(p):
    return brentq(lambda E: E - p[1] * np.sin(E) - p[0], 0.0, 2 * np.pi)


CASES = [(with_quad, "quad"), (with_quad_def, "quad"), (with_odeint, "odeint"),
         (with_fromfunction, "fromfunction"), (with_minimize, "minimize"),
         (with_brentq, "brentq")]
P = np.array([0.7, 0.3])


def _taped(f, p):
    with sg.GradientTape() as tape:
        tape.watch(p)
        y = f(p)
    return tape.gradient(y, p)


FORMS = {
    "grad": lambda f: sg.grad(f)(P.copy()),
    "value_and_grad": lambda f: sg.value_and_grad(f)(P.copy()),
    "jvp": lambda f: sg.jvp(f, (P.copy(),), (np.ones(2),)),
    "tape": lambda f: _taped(f, P.copy()),
    "function": lambda f: sg.function(_taped)(f, P.copy()),
}


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("f, routine", CASES, ids=[f.__name__ for f, _ in CASES])
def test_refused_naming_the_routine(f, routine, form):
    with pytest.raises(sg.CompileError, match=f"no derivative rule for .*{routine}"):
        FORMS[form](f)


def constant_integral_times(p):
    c = quad(lambda t: t ** 2, 0.0, 1.0)[0]
    return c * p[0] + p[1]


def test_a_function_over_constants_is_passed_on():
    np.testing.assert_allclose(sg.grad(constant_integral_times)(P.copy()), [1.0 / 3.0, 1.0],
                               rtol=1e-12)
    np.testing.assert_allclose(_taped(constant_integral_times, P.copy()), [1.0 / 3.0, 1.0],
                               rtol=1e-12)
