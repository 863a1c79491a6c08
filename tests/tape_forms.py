"""The gradient of a function by a tape recording a call of it: the tape form of tests.

``sg.function(taped)(f, x)`` gives the same inside ``@sg.function``. Also the
central-difference Jacobian that ``tape.jacobian`` is checked against.
"""
import numpy as np

import srcgrad as sg


def taped(f, x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def taped_two(f, x, y):
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(y)
        z = f(x, y)
    return tape.gradient(z, [x, y])


def taped_three(f, x, y, w):
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(y)
        tape.watch(w)
        z = f(x, y, w)
    return tape.gradient(z, [x, y, w])


def taped_any(f, inputs):
    """The gradients of ``f(*inputs)`` (one to three inputs), by a tape, as a list."""
    if len(inputs) == 1:
        return [taped(f, inputs[0])]
    return taped_two(f, *inputs) if len(inputs) == 2 else taped_three(f, *inputs)


def fd_jacobian(build, x, eps=1e-6):
    """d build(x) / dx by central differences: shape ``build(x).shape + x.shape``."""
    columns = []
    for idx in np.ndindex(x.shape):
        step = np.zeros(x.shape)
        step[idx] = eps
        columns.append((np.asarray(build(x + step)) - np.asarray(build(x - step))) / (2 * eps))
    out = np.stack(columns, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


def assert_forms_agree(f, args, nonzero=False):
    """``sg.value_and_grad``'s value is ``f``'s, and its gradients and a tape's are
    ``sg.grad``'s, with respect to every argument.

    ``nonzero`` also asks that every gradient have some non-zero entry, for cases
    built so that each argument reaches the value."""
    import pytest

    wrt = tuple(range(len(args)))
    value, grads = sg.value_and_grad(f, wrt=wrt)(*args)
    want = sg.grad(f, wrt=wrt)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    on_tape = taped_any(f, [np.asarray(a, dtype=float) for a in args])
    for got, taped_grad, expected in zip(grads, on_tape, want):
        assert np.shape(got) == np.shape(expected)
        assert not nonzero or np.any(expected != 0)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(taped_grad, expected, rtol=1e-10, atol=1e-12)
