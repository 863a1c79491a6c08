"""srcgrad.testing.check_grads: it must pass right gradients and catch wrong ones.

Most tests swap the ``grad`` that check_grads calls for hand-written
gradients, so that they test the checker alone; the last ones use the compiler.
"""
import numpy as np
import pytest

import srcgrad
import srcgrad.testing
from srcgrad.testing import check_grads


def cube_sum(x):
    return np.sum(x ** 3)


def doubles_its_argument(x):
    x *= 2.0  # writes into the caller's array unless check_grads copies it
    return np.sum(x)


def mixed(a, n, x, s, label):
    return a * np.sum(x) + s * np.sum(n)


def use_grads(monkeypatch, gradients, calls=None):
    """Make check_grads see ``gradients[(f, wrt)]`` as ``srcgrad.grad(f, wrt)``."""

    def grad(f, wrt=0):
        if calls is not None:
            calls.append(wrt)
        return gradients[(f, wrt)]

    monkeypatch.setattr(srcgrad.testing, "grad", grad)


X = np.array([-1.5, -0.2, 0.3, 1.1])


def test_passes_a_right_gradient(monkeypatch):
    use_grads(monkeypatch, {(cube_sum, 0): lambda x: 3.0 * x ** 2})
    check_grads(cube_sum, (X,), order=1)


def test_rejects_a_wrong_gradient(monkeypatch):
    use_grads(monkeypatch, {(cube_sum, 0): lambda x: 3.0 * x ** 2 + 1e-3 * x})
    with pytest.raises(AssertionError) as failure:
        check_grads(cube_sum, (X,), order=1)
    message = str(failure.value)
    for part in ("cube_sum", "argument 0", "analytic", "numeric"):
        assert part in message


def test_rejects_a_gradient_of_the_wrong_shape(monkeypatch):
    use_grads(monkeypatch, {(cube_sum, 0): lambda x: 3.0 * x[:3] ** 2})
    with pytest.raises(AssertionError, match=r"shape \(3,\), expected \(4,\)"):
        check_grads(cube_sum, (X,), order=1)


def test_rejects_a_gradient_of_the_wrong_dtype(monkeypatch):
    x32 = X.astype(np.float32)
    use_grads(monkeypatch, {(cube_sum, 0): lambda x: 3.0 * x.astype(np.float64) ** 2})
    with pytest.raises(AssertionError, match="dtype float64, expected float32"):
        check_grads(cube_sum, (x32,), order=1)


def test_rejects_a_python_float_for_a_numpy_scalar(monkeypatch):
    use_grads(monkeypatch, {(cube_sum, 0): lambda x: float(3.0 * x ** 2)})
    with pytest.raises(AssertionError, match="dtype float, expected float64"):
        check_grads(cube_sum, (np.float64(0.5),), order=1)


def test_accepts_float32_with_a_float32_gradient(monkeypatch):
    x32 = X.astype(np.float32)
    use_grads(monkeypatch, {(cube_sum, 0): lambda x: np.float32(3.0) * x ** 2})
    check_grads(cube_sum, (x32,), order=1, rtol=1e-4)


def test_rejects_a_missing_gradient(monkeypatch):
    use_grads(monkeypatch, {(cube_sum, 0): lambda x: None})
    with pytest.raises(AssertionError, match="is None"):
        check_grads(cube_sum, (X,), order=1)


def test_never_changes_the_callers_arrays(monkeypatch):
    x = X.astype(np.float32)
    before = x.copy()
    use_grads(monkeypatch, {(doubles_its_argument, 0): lambda x: np.full_like(x, 2.0)})
    check_grads(doubles_its_argument, (x,), order=1, rtol=1e-4)
    assert x.dtype == np.float32
    np.testing.assert_array_equal(x, before)


def test_checks_every_float_argument_by_default(monkeypatch):
    args = (2.5, np.arange(3), np.ones(2), np.float32(1.5), "label")
    calls = []
    use_grads(monkeypatch, {
        (mixed, (0, 2, 3)): lambda a, n, x, s, label: (
            float(np.sum(x)), np.full_like(x, a), np.float32(np.sum(n))),
    }, calls)
    check_grads(mixed, args, order=1)
    assert calls == [(0, 2, 3)]  # (one gradient of all of them: one compile)


def test_arguments_refused_together_are_taken_one_by_one(monkeypatch):
    def together(*args):
        raise srcgrad.CompileError("refused with respect to several arguments at once")

    calls = []
    use_grads(monkeypatch, {
        (mixed, (0, 2)): together,
        (mixed, 0): lambda a, n, x, s, label: float(np.sum(x)),
        (mixed, 2): lambda a, n, x, s, label: np.full_like(x, a),
    }, calls)
    check_grads(mixed, (2.5, np.arange(3), np.ones(2), np.float32(1.5), "label"), order=1,
                wrt=(0, 2))
    assert calls == [(0, 2), 0, 2]


def test_wrt_selects_the_arguments(monkeypatch):
    calls = []
    use_grads(monkeypatch, {(mixed, 2): lambda a, n, x, s, label: np.full_like(x, a)}, calls)
    check_grads(mixed, (2.5, np.arange(3), np.ones(2), np.float32(1.5), "label"), order=1, wrt=2)
    assert calls == [2]


def test_needs_something_to_check():
    with pytest.raises(ValueError, match="no float argument"):
        check_grads(cube_sum, (np.arange(4),))


# --- with the compiler ----------------------------------------------------

def sin_poly(x):
    return np.sum(np.sin(x) * x ** 2)


def scaled_exp(a, x):
    return a * np.sum(np.exp(x)) + a ** 3


def test_compiled_gradients_pass_to_second_order():
    check_grads(sin_poly, (X,))
    check_grads(scaled_exp, (0.7, np.array([0.1, -0.4, 0.9])))


def test_a_wrong_compiled_gradient_is_caught(monkeypatch):
    def wrong_grad(f, wrt=0):
        right = srcgrad.grad(f, wrt=wrt)
        return lambda *args: 1.01 * right(*args)

    monkeypatch.setattr(srcgrad.testing, "grad", wrong_grad)
    with pytest.raises(AssertionError, match="sin_poly with respect to argument 0"):
        check_grads(sin_poly, (X,), order=1)
