"""An item's augmented assignment (``K[i, j] += a``, ``K[np.diag_indices_from(K)] += lam``,
``Z[:, 1] -= mean``) where the first gradient does not flow through it: its code runs it
as written (``K[i] = _sg.update(K[i], '+=', a)``), and differentiated again (``sg.grad`` of
a gradient, nested tapes, jvp of a gradient) that call had no derivative: the terms
through the item were dropped, silently (found by a battery of statistics programs: the
ridge of a bilevel kernel regression). It is read as the user's statement again, as a
name's update was."""
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import taped_hvp  # noqa: E402

A = np.array([[1.0, 0.5], [0.5, 1.0]])
Y = np.array([0.3, -1.2])


def item_update(a, y):
    K = A * a
    K[0, 0] += a
    return np.sum(K @ y)


def diagonal_update(a, y):
    K = A * a
    K[np.diag_indices_from(K)] += a * a
    return np.sum(K @ y) + np.sum(y ** 2) * a


def mask_and_ellipsis(a, y):
    K = A * a
    K[K > 0.6 * a] -= 0.5 * a
    K[...] *= a
    return np.sum(K @ y)


def sum_of_gradient(f):
    def h(a, y):
        return np.sum(sg.grad(f, wrt=1)(a, y))
    return h


@pytest.mark.parametrize("f", [item_update, diagonal_update, mask_and_ellipsis],
                         ids=lambda f: f.__name__)
def test_derivative_of_the_gradient(f):
    h = sum_of_gradient(f)
    eps = 1e-6
    expected = (h(0.7 + eps, Y) - h(0.7 - eps, Y)) / (2 * eps)
    np.testing.assert_allclose(sg.grad(h)(0.7, Y), expected, rtol=1e-6)
    np.testing.assert_allclose(sg.jvp(h, (0.7, Y), (1.0, np.zeros(2)))[1], expected, rtol=1e-6)
    check_grads(f, (0.7, Y), order=2)


def test_nested_tapes():
    x = np.float64(0.7)
    y = Y.copy()
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(y)
            v = item_update(x, y)
        s = np.sum(inner.gradient(v, y))
    assert outer.gradient(s, x) == pytest.approx(np.sum(A) + 1.0, rel=1e-12)


rng = np.random.default_rng(0)
XS = rng.uniform(-2, 2, size=(8, 1))
YS = np.sin(2 * XS[:, 0])


def dual_loss(alpha, hyp):
    ls, lam = np.exp(hyp[0]), np.exp(hyp[1])
    K = np.exp(-0.5 * (XS - XS.T) ** 2 / ls ** 2)
    K[np.diag_indices_from(K)] += lam  # the usual way to add the ridge
    return 0.5 * alpha @ K @ alpha - alpha @ YS


def dual_loss_written_out(alpha, hyp):
    ls, lam = np.exp(hyp[0]), np.exp(hyp[1])
    K = np.exp(-0.5 * (XS - XS.T) ** 2 / ls ** 2) + lam * np.eye(len(YS))
    return 0.5 * alpha @ K @ alpha - alpha @ YS


def fitted_error(hyp, loss=dual_loss):
    alpha = np.zeros(len(YS))
    for _ in range(5):
        alpha = alpha - 0.1 * sg.grad(loss)(alpha, hyp)
    return np.sum((alpha - 0.3) ** 2)


def test_bilevel_kernel_ridge_in_both_styles():
    hyp, eps = np.array([-0.2, -1.0]), 1e-6
    fd = np.array([(fitted_error(hyp + eps * e) - fitted_error(hyp - eps * e)) / (2 * eps)
                   for e in np.eye(2)])
    np.testing.assert_allclose(sg.grad(fitted_error)(hyp), fd, rtol=1e-5)
    np.testing.assert_allclose(sg.grad(lambda h: fitted_error(h, dual_loss_written_out))(hyp),
                               fd, rtol=1e-5)


def standardized_fit(X, w):
    Z = X.copy()
    Z[:, 1] -= np.mean(Z[:, 1])
    Z[:, 1] /= np.std(Z[:, 1])
    return np.sum((Z @ w - 1.0) ** 2)


def test_data_sensitivity_of_a_gradient_through_in_place_standardizing():
    X = np.random.default_rng(1).standard_normal((5, 2))
    w = np.array([0.4, -0.7])
    v = np.array([1.0, 2.0])

    def gradient_along(X):
        return np.sum(sg.grad(standardized_fit, wrt=1)(X, w) * v)
    check_grads(gradient_along, (X,), order=1)
    np.testing.assert_allclose(sg.grad(gradient_along)(X)[:, 1] != 0, True)


def test_an_array_item_of_a_dict_updated_again_is_refused_not_dropped():
    def f_dict(a, y):
        d = {"k": A * a}
        d["k"] += a
        return np.sum(d["k"] @ y)

    def h(a, y):
        return np.sum(sg.grad(f_dict, wrt=1)(a, y))
    with pytest.raises(sg.CompileError, match="an item of a dict that is an array"):
        sg.grad(h)(0.7, Y)


def test_hessian_vector_product_of_a_tape():
    def f(y):
        K = A * np.sum(y)
        K[0, 1] += y[0] ** 2
        return np.sum(K @ y)
    v = np.array([1.0, -2.0])
    eps = 1e-6

    def grad_at(y):
        return sg.grad(f)(y)
    expected = (grad_at(Y + eps * v) - grad_at(Y - eps * v)) / (2 * eps)
    np.testing.assert_allclose(taped_hvp(f, Y.copy(), v), expected, rtol=1e-6)
