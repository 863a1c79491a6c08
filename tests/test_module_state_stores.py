"""A function storing a differentiable value into a module's (or a closure's) container —
a dict used as state, a work buffer, a history list — which a helper reads back. The
helper, called with nothing differentiated, ran as a constant: gradient 0 (and, where it
changed the state, called twice: once for the value's check, once for the value). Its
calls are inlined and differentiated now that the code stores out (``ctx.stores_out``).
Checked against central differences with sg.grad, value_and_grad and jvp, the state left
as Python leaves it."""
import numpy as np
import pytest

import srcgrad as sg

STATE = {"x": 1.0}
BUF = np.zeros(2)
HIST = []


def _read():
    return STATE["x"] * 3


def _bump():
    STATE["x"] = STATE["x"] * 2
    return STATE["x"]


def through_read(q):
    STATE["x"] = q
    return _read()


def through_bump(q):
    STATE["x"] = q
    return _bump()


def _read_buffer():
    return BUF[0] * 3


def through_buffer(q):
    BUF[0] = q
    return _read_buffer()


def _last():
    return HIST[-1] * 3


def through_history(q):
    HIST.append(q * 2)
    return _last() + HIST[-1]


def _make():
    buf = np.zeros(2)
    state = {"x": 0.0}

    def read():
        return buf[0] * 3 + state["x"]

    def f(q):
        buf[0] = q
        state["x"] = q * 10
        return read()
    return f


through_closure = _make()
CASES = [through_read, through_bump, through_buffer, through_history, through_closure]


def _reset():
    STATE["x"] = 1.0
    BUF[:] = 0.0
    HIST.clear()


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_state_read_back_by_a_helper(f):
    q, h = 0.7, 1e-6
    _reset()
    want_value = f(q)
    want = (f(q + h) - f(q - h)) / (2 * h)
    _reset()
    np.testing.assert_allclose(sg.grad(f)(q), want, rtol=1e-6)
    _reset()
    value, grad = sg.value_and_grad(f)(q)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(grad, want, rtol=1e-6)
    _reset()
    value, tangent = sg.jvp(f, (q,), (1.0,))
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    np.testing.assert_allclose(tangent, want, rtol=1e-6)


def test_the_state_is_left_as_python_leaves_it():
    _reset()
    sg.grad(through_bump)(0.7)
    np.testing.assert_allclose(STATE["x"], 1.4)
    _reset()
    sg.grad(through_history)(0.7)
    np.testing.assert_allclose(HIST, [1.4])


LAP = np.zeros(6)


def with_scratch(u0):
    """A module's work buffer written in a loop (a TypeError from the generated code: it
    pre-set the global as a local None)."""
    u = u0.copy()
    for _ in range(2):
        LAP[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + 0.2 * LAP
    return np.sum(u ** 2 * np.arange(6))


def test_scratch_buffer_written_in_a_loop():
    x = np.array([0.1, 0.5, 0.9, 0.3, 0.2, 0.7])
    h = 1e-6
    want = np.array([(with_scratch(x + h * e) - with_scratch(x - h * e)) / (2 * h)
                     for e in np.eye(6)])
    np.testing.assert_allclose(sg.grad(with_scratch)(x), want, rtol=1e-6)
    np.testing.assert_allclose(sg.value_and_grad(with_scratch)(x)[1], want, rtol=1e-6)


class _Model:
    def loss(self):
        return self._penalty() * 2.0

    def _penalty(self):
        return np.sum(STATE["x"] ** 2)


_M = _Model()


def _apply(fn):
    return fn() * 2.0


def _read_state():
    return np.sum(STATE["x"] ** 2)


def through_a_method(q):
    STATE["x"] = q * 2.0
    return _M.loss()


def through_a_callback(q):
    STATE["x"] = q * 2.0
    return _apply(_read_state)


@pytest.mark.parametrize("f", [through_a_method, through_a_callback], ids=lambda f: f.__name__)
def test_read_back_by_other_code_it_calls(f):
    q = np.array([0.5, -1.0, 0.8])
    _reset()
    np.testing.assert_allclose(sg.grad(f)(q), 16 * q)


def _by_default(buf=STATE):
    return np.sum(buf["x"] ** 2)


def read_back_by_another_name(q):
    STATE["x"] = q * 2.0
    return _by_default()


def test_read_back_by_another_name_refused():
    _reset()
    with pytest.raises(sg.CompileError, match="follows what is stored there"):
        sg.grad(read_back_by_another_name)(np.array([0.5, -1.0]))


SMOOTH = np.zeros(5)


def _smooth_into(u):
    SMOOTH[1:-1] = 0.5 * (u[:-2] + u[2:])
    return SMOOTH


def through_a_slice_written_by_a_helper(x):
    """(The generated code saved the slot with a slice as a dict's key: SyntaxError.)"""
    a = _smooth_into(x)
    return np.sum(a * x)


def test_slice_of_a_module_array_written_by_a_helper():
    x = np.array([0.5, -1.0, 0.8, 0.3, 1.2])
    h = 1e-6
    f = through_a_slice_written_by_a_helper
    want = np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(5)])
    np.testing.assert_allclose(sg.grad(f)(x), want, rtol=1e-6)


def popped_off_a_module_list(x):
    HIST.append(x * 3.0)
    v = np.sum(HIST[-1] ** 2)
    HIST.pop()
    return v


def test_pop_off_a_module_list_refused():
    _reset()
    with pytest.raises(sg.CompileError, match="module's list"):
        sg.grad(popped_off_a_module_list)(np.array([0.5, -1.0]))
