"""Array methods called on a module-level array with differentiable arguments:
``G.dot(x)``, ``Y.T.dot(alpha)`` (the Gaussian process's ``Y.dot(alpha)``). They were
refused ("no derivative rule for ndarray.dot") while ``g = G; g.dot(x)`` worked: a
global array's bound method is NumPy's method, differentiated as one of an array
computed. Every form, against central differences.
"""
import numpy as np
import pytest

from tape_forms import assert_every_form

G = np.array([[1.0, 2.0, -1.0], [0.5, -3.0, 2.0]])
V = np.array([0.3, -1.2, 2.0])


def dot_of_global(x):
    return np.sum(np.sin(G.dot(x)))


def dot_of_transposed_global(x):
    y = G.T.dot(np.tanh(G.dot(x)))
    return float(V.dot(y * x))


def global_methods_in_a_loop(x):
    total = 0.0
    for k in range(2):
        total = total + G[k].dot(x) ** 2 + V.clip(-1.0, 1.0).dot(x * x)
    return total


@pytest.mark.parametrize("f", [dot_of_global, dot_of_transposed_global,
                               global_methods_in_a_loop])
def test_every_form(f):
    assert_every_form(f, np.array([0.4, -0.7, 1.1]))
