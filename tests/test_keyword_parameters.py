"""``**kwargs`` of the function differentiated itself (``pipeline._signature``).

A decorator written the usual way (``functools.wraps`` around ``def wrapper(*args,
**kw)``) makes every decorated loss such a function; so does ``def loss(x, **opts)``.
Both were refused ("**kw parameter of function 'wrapper' is not supported"). The code
is now compiled for the keys the call passes (the cache keys on them): ``**kw`` is the
display of those keys, read from the dict given, so ``fn(*args, **kw)`` forwards them
as a call with known keywords. Each checked against central differences; another set
of keys compiles anew.
"""
import functools

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

X = np.array([0.3, 0.7, -0.4])


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kw):
        return 2.0 * fn(*args, **kw)
    return wrapper


@doubled
def decorated(x, scale=1.0, *, shift=0.0):
    return np.sum(np.sin(x * scale) + shift * x ** 2)


def with_options(x, **opts):
    scale = opts.get("scale", 1.0)
    loss = np.sum((x * scale) ** 2)
    if "l1" in opts:
        loss = loss + opts["l1"] * np.sum(np.abs(x))
    return loss


def _expected_decorated(x, scale=1.0, shift=0.0):
    return 2.0 * (scale * np.cos(x * scale) + 2 * shift * x)


@pytest.mark.parametrize("args, kwargs", [((), {}), ((2.0,), {}), ((), {"scale": 2.0}),
                                          ((), {"shift": 0.5}), ((1.5,), {"shift": 0.5})],
                         ids=["none", "positional", "keyword", "keyword-only", "both"])
def test_a_decorated_loss_differentiated_directly(args, kwargs):
    grad = sg.grad(decorated)
    scale = args[0] if args else kwargs.get("scale", 1.0)
    want = _expected_decorated(X, scale, kwargs.get("shift", 0.0))
    np.testing.assert_allclose(grad(X, *args, **kwargs), want, rtol=1e-12)
    value, g = sg.value_and_grad(decorated)(X, *args, **kwargs)
    np.testing.assert_allclose(value, decorated(X, *args, **kwargs), rtol=1e-12)
    np.testing.assert_allclose(g, want, rtol=1e-12)


def test_options_read_from_kwargs_compile_for_the_keys_passed():
    grad = sg.grad(with_options)
    np.testing.assert_allclose(grad(X), 2 * X, rtol=1e-12)
    np.testing.assert_allclose(grad(X, scale=3.0), 18 * X, rtol=1e-12)
    np.testing.assert_allclose(grad(X, scale=3.0, l1=0.5), 18 * X + 0.5 * np.sign(X),
                               rtol=1e-12)
    np.testing.assert_allclose(grad(X), 2 * X, rtol=1e-12)  # (the first code again)
    check_grads(lambda x: with_options(x, scale=1.5, l1=0.2), (X,), order=2)
