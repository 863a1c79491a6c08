"""A view of an array, then a write into the array, then the view read: srcgrad must
give Python's value and the right gradient, or refuse. On main before hunt 15 this
grid gave 74 silent wrong values and gradients: ``np.transpose(x)`` was taken for a
method of ``np`` (a view of the module), views of views (``x.T[0]``, ``x[0][1:]``)
were not followed, comprehensions holding rows were not seen, and a view kept past
the end of its block or read through another name was taken as transient.
"""
import importlib.util

import numpy as np
import pytest

import srcgrad as sg

X0 = np.arange(1.0, 7.0).reshape(2, 3) / 3
VIEWS = ["np.transpose(X)", "X.T", "np.ravel(X)", "X.reshape(6)", "np.diagonal(X)",
         "np.swapaxes(X, 0, 1)", "np.flip(X)", "X.T[0]", "np.transpose(X)[1]",
         "X.reshape(3, 2)[0]", "X.ravel()[1:3]", "np.diagonal(X)[0:1]", "X[1:][0]",
         "X[0][1:]", "X[0][None]", "X[0].T", "np.ravel(X[0])", "X[0].reshape(3, 1)",
         "np.expand_dims(X[0], 0)", "X[0]", "X[0, 1]", "X[0][1]",
         "[X[i] for i in range(2)][0]"]
WRITES = ["X *= 5.0", "X[0, 0] = 5.0", "X[0] = 5 * X[0]", "X += 1.0", "X.fill(2.0)"]


def _function(tmp_path, view, write, name):
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\n\n\ndef f(X):\n    X = X * 1.0\n"
                    f"    a = {view}\n    {write}\n    return np.sum(a ** 2) + np.sum(X)\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def _central(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (f(up) - f(down)) / (2 * eps)
    return out


@pytest.mark.parametrize("view", VIEWS)
def test_a_view_then_a_write_is_right_or_refused(tmp_path, view):
    refused = set()
    for k, write in enumerate(WRITES):
        f = _function(tmp_path, view, write, f"view_{k}")
        try:
            value, grad = sg.value_and_grad(f)(X0.copy())
        except sg.CompileError:
            refused.add(write)
            continue
        assert value == pytest.approx(f(X0.copy()), rel=1e-12), write
        np.testing.assert_allclose(grad, _central(f, X0), rtol=1e-6, atol=1e-6, err_msg=write)
    if view in ("X[0, 1]", "X[0][1]"):  # numbers, copies: an item written compiles
        assert not refused & {"X[0, 0] = 5.0", "X[0] = 5 * X[0]"}


def captured_then_updated(X):
    Y = X * 1.0

    def get():
        return Y.T

    b = get()
    Y += 1.0  # b sees this
    return np.sum(b ** 2)


def captured_row_written_through(X):
    Y = X * 1.0

    def get():
        return Y[0]

    b = get()
    b[1] = 7.0  # writes Y[0, 1]
    return np.sum(Y ** 2)


@pytest.mark.parametrize("f", [captured_then_updated, captured_row_written_through],
                         ids=lambda f: f.__name__)
def test_an_array_a_closure_returns_is_shared_with_it(f):
    """Hunt 16: a nested def returning the array it captures (or a view of it), then a
    write: the call's result was a new array, a silent wrong value and gradient."""
    try:
        value, grad = sg.value_and_grad(f)(X0.copy())
    except sg.CompileError as e:
        assert "may share" in str(e) or "may be shared" in str(e)
        return
    assert value == pytest.approx(f(X0.copy()), rel=1e-12)
    np.testing.assert_allclose(grad, _central(f, X0), rtol=1e-6, atol=1e-6)
