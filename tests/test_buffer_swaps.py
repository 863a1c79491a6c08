"""Double buffers swapped by ``u, v = v, u`` (``ir/private.py``: ``_State.moved``).

A PDE step written into a second array that is then swapped with the first is how
explicit solvers avoid an allocation per step. The analysis of private arrays took the
tuple ``(v, u)`` for a container that may keep both arrays, so the next step's write
into ``v[1:-1]`` was refused as a write into a shared array. Names bound to names at
once hand their objects on: each array keeps one name, and the writes stay exact.

Also: in a tape block, ``x.copy()`` of a watched array (whose method is known when
compiling) is a new array, as it is in a function.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.sin(np.linspace(0.2, 2.5, 6))


def heat_steps(x):
    u = x.copy()
    v = np.zeros_like(u)
    for _ in range(3):
        v[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        v[0] = v[1] * 0.5
        v[-1] = u[-1] * 0.9
        u, v = v, u
    return np.sum(u ** 2) + np.sum(v ** 3)


def rotate_three(x):
    a = x * 1.0
    b = x * 2.0
    c = x * 3.0
    for _ in range(2):
        a[0] = b[1] * c[2]
        a, b, c = b, c, a
    return np.sum(a * b) + np.sum(c ** 2)


def updated_then_swapped(x):
    u = x * 1.0
    v = x * 2.0
    for _ in range(2):
        v += u * 0.5
        u, v = v, u
    return np.sum(u * v)


def swapped_as_lists(x):
    u = x * 1.0
    v = x * 2.0
    [u, v] = [v, u]
    v[0] = u[1] ** 2
    return np.sum(u * v)


@pytest.mark.parametrize("f", [heat_steps, rotate_three, updated_then_swapped,
                               swapped_as_lists])
def test_swapped_buffers(f):
    assert_every_form(f, X.copy())


def test_swapped_buffers_in_a_tape_block():
    # (``heat_steps``'s statements written in the block itself, which the tape compiles
    # in place: there ``x.copy()`` of the watched array is a known array's method)
    x = X.copy()
    with sg.GradientTape() as tape:
        tape.watch(x)
        u = x.copy()
        v = np.zeros_like(u)
        for _ in range(3):
            v[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])
            v[0] = v[1] * 0.5
            v[-1] = u[-1] * 0.9
            u, v = v, u
        y = np.sum(u ** 2) + np.sum(v ** 3)
    np.testing.assert_allclose(tape.gradient(y, x), sg.grad(heat_steps)(X.copy()),
                               rtol=1e-12)
    np.testing.assert_allclose(y, heat_steps(X.copy()), rtol=1e-14)


def kept_under_another_name(x):
    u = x.copy()
    v = np.zeros_like(u)
    first = u  # the first buffer, written into two steps later
    for _ in range(3):
        v[1:-1] = u[1:-1] * 1.1 + u[2:] * u[:-2]
        v[0] = 0.3
        v[-1] = u[0]
        u, v = v, u
    return np.sum(u ** 2) + np.sum(first * x)


def both_names_for_one(x):
    u = x * 2.0
    v = x * 3.0
    u, v = v, v
    u[0] = 0.0  # writes into v's array too
    return np.sum(u * x) + np.sum(v * x)


@pytest.mark.parametrize("f", [kept_under_another_name, both_names_for_one])
def test_a_buffer_with_another_name_is_still_refused(f):
    with pytest.raises(sg.CompileError, match="may be shared with another variable"):
        sg.grad(f)(X.copy())
