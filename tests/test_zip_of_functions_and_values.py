"""``for fun, param in zip(apply_funs, params)``: functions known when compiling beside a
list of values whose length the code shows (JAX's stax ``serial``). The loop was not
unrolled, so ``fun`` was refused as a function srcgrad cannot tell (found by a battery
of ports of autograd's and JAX's examples)."""
import numpy as np

import srcgrad as sg
from srcgrad.testing import check_grads


def dense():
    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return np.dot(inputs, W) + b
    return None, apply_fun


def elementwise(fun):
    return None, lambda params, inputs, **kwargs: fun(inputs)


def serial(*layers):
    _, apply_funs = zip(*layers)

    def apply_fun(params, inputs, **kwargs):
        for fun, param in zip(apply_funs, params):
            inputs = fun(param, inputs, **kwargs)
        return inputs
    return None, apply_fun


_, PREDICT = serial(dense(), elementwise(np.tanh), dense())


def loss(params, x):
    return np.sum(PREDICT(params, x) ** 2)


def test_stax_serial():
    rng = np.random.default_rng(0)
    params = [(rng.standard_normal((3, 4)), rng.standard_normal(4)), (),
              (rng.standard_normal((4, 2)), rng.standard_normal(2))]
    check_grads(loss, (params, rng.standard_normal((5, 3))), order=1, wrt=0)


def lin(p, x):
    return x * p


def sq(p, x):
    return x ** 2 + p


FUNS = (lin, sq)


def applied(params, x):
    for fun, param in zip(FUNS, params):
        x = fun(param, x)
    return x


def test_a_tuple_of_functions_beside_a_list():
    np.testing.assert_allclose(sg.grad(applied)([0.5, 1.5], 2.0), [4.0, 1.0])
