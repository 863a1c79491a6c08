"""Functions decorated with a ``functools.wraps`` decorator (logging, timing): refused
with 'the source of `a` has changed since the function was defined' (hunt 4), as the
source was looked up through ``__wrapped__``, whose code is not the code that runs.
The wrapper is compiled, and the function it calls inlined."""
import functools

import numpy as np

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped

X = np.array([0.3, -0.7, 1.1])
CALLS = []


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def scaled(factor):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(x):
            return factor * fn(x)
        return wrapper
    return decorate


@logged
def energy(x):
    return np.sum(np.sin(x) ** 2)


@scaled(3.0)
def cubic(x):
    return np.sum(x ** 3)


def uses_both(x):
    return energy(x) * cubic(x)


def energy_of(x):
    return energy(x) + 0.5


def test_wrapped_functions_every_form():
    for f in (energy_of, cubic, uses_both):
        check_grads(f, (X,), order=2)
        np.testing.assert_allclose(taped(f, X.copy()), sg.grad(f)(X), rtol=1e-12)
    np.testing.assert_allclose(sg.grad(cubic)(X), 9.0 * X ** 2, rtol=1e-12)
