"""``global`` statements (passes/normalize/global_names.py): counters and flags kept
in the module, read and written when the code runs, as Python does. Was refused:
"global statement is not supported".
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped

NCALLS = 0
STEPS = 0
SCALE = 1.0
CACHE = None
X = np.array([0.2, 1.1, -0.7])


def counted(x):
    global NCALLS
    NCALLS += 1
    return np.sum(np.sin(x) * x)


def _step(h, w):
    global STEPS
    STEPS = STEPS + 1
    return np.tanh(w * h + STEPS * 0.1)  # (the counter read back: 1, 2, 3)


def stepped(w):
    h = np.ones(3)
    for _ in range(3):
        h = _step(h, w)
    return np.sum(h)


def _set_scale():
    global SCALE
    SCALE = SCALE * 2.0


def scaled(x):
    _set_scale()
    return np.sum(x * x) * SCALE  # (read without a declaration: the new value)


def _reset():
    global NCALLS, STEPS, SCALE
    NCALLS, STEPS, SCALE = 0, 0, 1.0


def _differences(f, x, eps=1e-6):
    out = []
    for d in np.eye(x.size):
        _reset()
        plus = f(x + eps * d)
        _reset()
        out.append((plus - f(x - eps * d)) / (2 * eps))
    return np.array(out)


@pytest.mark.parametrize("f", [counted, stepped, scaled])
def test_every_form_runs_the_code_once_and_leaves_what_python_leaves(f):
    expected = _differences(f, X)
    _reset()
    python_value = f(X.copy())
    after_python = (NCALLS, STEPS, SCALE)
    runs = {
        "grad": lambda: sg.grad(f)(X.copy()),
        "value_and_grad": lambda: sg.value_and_grad(f)(X.copy())[1],
        "tape": lambda: taped(f, X.copy()),
        "function": lambda: sg.function(taped)(f, X.copy()),
    }
    for name, run in runs.items():
        _reset()
        np.testing.assert_allclose(run(), expected, rtol=1e-6, atol=1e-8, err_msg=name)
        assert (NCALLS, STEPS, SCALE) == after_python, name
    _reset()
    assert sg.value_and_grad(f)(X.copy())[0] == pytest.approx(python_value)
    _reset()
    v = np.array([1.0, -0.5, 2.0])
    gradient = sg.grad(f)
    product = sg.hvp(f)(X.copy(), v)
    assert (NCALLS, STEPS, SCALE) == after_python  # (forward over reverse: one run)
    hv = []
    for sign in (1, -1):
        _reset()
        hv.append(gradient(X + sign * 1e-6 * v))
    np.testing.assert_allclose(product, (hv[0] - hv[1]) / 2e-6, rtol=1e-5, atol=1e-6)


def test_second_order_and_the_check():
    _reset()
    check_grads(counted, (X.copy(),), order=2)
    assert NCALLS > 0


def test_a_differentiable_value_stored_in_a_global_is_refused():
    def f(x):
        global CACHE
        CACHE = x * 2.0
        return np.sum(CACHE)

    with pytest.raises(sg.CompileError, match="differentiable value in the global `CACHE`"):
        sg.grad(f)(X.copy())


def test_a_global_not_defined_raises_name_error():
    def f(x):
        global DEFINED_LATER
        y = np.sum(x) * DEFINED_LATER  # (not defined yet: Python's NameError)
        DEFINED_LATER = 1.0
        return y

    with pytest.raises(NameError, match="DEFINED_LATER"):
        sg.value_and_grad(f)(X.copy())
    assert "DEFINED_LATER" not in globals()


def test_other_bindings_of_a_global_and_nonlocal_are_refused():
    def loop_variable(x):
        global STEPS
        for STEPS in range(2):
            x = x * 2.0
        return np.sum(x)

    with pytest.raises(sg.CompileError, match="declared global, is bound other than by `=`"):
        sg.grad(loop_variable)(X.copy())

    def outer(x):
        n = 0

        def bump():
            nonlocal n
            n += 1

        bump()
        return np.sum(x) * n

    with pytest.raises(sg.CompileError, match="nonlocal statement"):
        sg.grad(outer)(X.copy())


FLAG = False


def _arm():
    global FLAG
    FLAG = True


def flag_tested(x):
    _arm()  # (run as written: no differentiable value reaches it)
    if FLAG:  # (the test itself is the module variable: read when it runs)
        return np.sum(x * 3.0)
    return np.sum(x)


def test_a_flag_a_helper_sets_decides_the_branch_as_python_does():
    global FLAG
    for run in (sg.grad(flag_tested), lambda x: taped(flag_tested, x)):
        FLAG = False
        np.testing.assert_allclose(run(X.copy()), np.full(3, 3.0))
        assert FLAG
