"""A tape block reading a name its function binds over a builtin's (``len = 2``, a
``range`` of its own) read the builtin: a crash (``range(len)`` of the builtin ``len``)
or, with a ``range`` of the user's, a gradient of another loop, silently. Such names are
the block's inputs where the caller's frame holds them; srcgrad's own ``range(len(x))``
in the code it generates means the builtins whatever the user binds.

Each case in plain code and in ``@sg.function``, its answer worked out by hand.
"""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([1.5, 2.0, 3.0])


def local_len(x):
    len = 2
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = sum(x[i] ** 2 for i in range(len)) + x[0] * len
    return tape.gradient(y, x)


def local_range(x):
    range = lambda n: [1]  # noqa: E731
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = sum(x[i] ** 2 for i in range(3))
    return tape.gradient(y, x)


def local_max_and_sum(x):
    def sum(values):
        return values[0] - values[1]
    max = 3.0
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = sum([x[0] * max, x[2]])
    return tape.gradient(y, x)


CASES = [
    (local_len, [2.0 * 1.5 + 2.0, 4.0, 0.0]),
    (local_range, [0.0, 4.0, 0.0]),
    (local_max_and_sum, [3.0, 0.0, -1.0]),
]


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("f, want", CASES, ids=[f.__name__ for f, _ in CASES])
def test_a_builtins_name_bound_by_the_caller(f, want, placement):
    run = f if placement == "plain" else sg.function(f)
    np.testing.assert_allclose(run(X.copy()), want, rtol=1e-14)


def test_in_sg_grad_too():
    def f(x):
        range = lambda n: [1]  # noqa: E731
        len = 2.0
        return sum(x[i] ** 2 for i in range(3)) * len

    np.testing.assert_allclose(sg.grad(f)(X.copy()), [0.0, 8.0, 0.0], rtol=1e-14)
