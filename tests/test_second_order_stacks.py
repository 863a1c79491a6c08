"""Second derivatives through the stacks a first derivative's code keeps:

- a loop rebinding a name between a value that depends on x and a constant (``p = 1.0;
  p = p * eps``; an ELBO's ``z = e; z = z * np.exp(log_s)``; HMC's momentum refresh):
  the adjoint of the constant pushed on the stack was dead, so its pop was dropped with
  it, and every later pop took the wrong item (reverse over reverse: sg.grad of sg.grad,
  sg.hessian, nested tapes; about 3% of random loop programs);
- a try body that raised inside a loop (``except KeyError: pass``): forward over reverse
  (sg.hvp, sg.jvp of sg.grad) took the value's tangent off the stack the value's own
  rollback had cut back already.

Checked against central differences of the first derivative, in every form."""
import sys
from pathlib import Path

import numpy as np
import pytest

import srcgrad as sg

sys.path.insert(0, str(Path(__file__).parent))
from tape_forms import assert_every_form  # noqa: E402


def rebound_in_a_loop(x):
    q = 1.0
    for _ in range(2):
        p = 1.0
        p = p * x
        q = q * p
    return np.sum(q)


def reparameterized(theta):
    mu, log_s = theta[:2], theta[2:]
    total = 0.0
    for e in (np.array([0.3, -1.2]), np.array([1.1, 0.4])):
        z = e
        z = z * np.exp(log_s)
        z = z + mu
        total = total + np.sum(np.sin(z) * z)
    return total


def active_then_constant(x):
    total = 0.0
    C = [0.5, 2.0, -1.0]
    for i in range(3):
        c = x[0] + x[1]
        c = C[i]
        total = total + c * x[i % 2] ** 2
    return total


def missing_key_raises(x):
    d = {"a": x[0], "b": x[1]}
    total = 0.0
    for key in ("a", "b", "c"):
        try:
            total += d[key] ** 2
        except KeyError:
            pass
    return total


def index_error_breaks(x):
    total = 0.0
    items = [x[0], x[2]]
    for i in range(3):
        try:
            total += items[i] ** 3
        except IndexError:
            break
    return total


@pytest.mark.parametrize("f,x", [
    (rebound_in_a_loop, np.array([0.2, -0.4])),
    (reparameterized, np.array([0.1, -0.3, 0.2, -0.5])),
    (active_then_constant, np.array([0.3, -0.7, 1.1])),
    (missing_key_raises, np.array([0.3, -0.7, 1.1])),
    (index_error_breaks, np.array([0.3, -0.7, 1.1])),
], ids=lambda v: getattr(v, "__name__", ""))
def test_second_order(f, x):
    assert_every_form(f, x, order=2)
    v = np.linspace(1.0, 2.0, x.size)
    gv = lambda z: np.sum(sg.grad(f)(z) * v)  # noqa: E731
    fd = np.array([(gv(x + e) - gv(x - e)) / 2e-6 for e in np.eye(x.size) * 1e-6])
    np.testing.assert_allclose(sg.hvp(f)(x, v), fd, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(sg.grad(gv)(x), fd, rtol=1e-5, atol=1e-7)


def _mixed(x, y):
    z = np.ones(5)
    z[::2] += y  # (y not differentiated by the inner gradient: run as written there)
    v = z
    v[0] = v[0] * x[4]
    return np.sum(z)


def _mixed_view(x, y):
    z = np.ones(4) * y
    z[0] += 1.2
    v = z[:]
    v[3] = x[3]
    return np.sin(np.sum(v))


@pytest.mark.parametrize("f,i,x", [
    (_mixed, 4, np.array([0.1, -0.2, 0.3, 0.4, 0.5])),
    (_mixed_view, 3, np.array([0.1, -0.2, 0.3, 0.4])),
], ids=["alias", "view"])
def test_mixed_second_order_through_an_augmented_write(f, i, x):
    """d/dy of df/dx where the first derivative ran ``z[::2] += y`` (``z[0] += 1.2`` of a
    ``z`` made from ``y``) as written: cut when differentiated again (0 for 1, 2/3 of the
    value), silently; read as the update it is."""
    def h(x, y):
        return sg.grad(f, wrt=0)(x, y)[i]
    y = 0.7
    fd = (h(x, y + 1e-6) - h(x, y - 1e-6)) / 2e-6
    np.testing.assert_allclose(sg.grad(h, wrt=1)(x, y), fd, rtol=1e-6)
    np.testing.assert_allclose(sg.jvp(h, (x, y), (np.zeros(x.size), 1.0))[1], fd, rtol=1e-6)
