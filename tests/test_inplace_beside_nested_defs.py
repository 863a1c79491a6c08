"""An in-place update of a private array in a function that also defines a nested
helper: the leapfrog with its ``force`` inside. The def made every array before it
"maybe shared", and ``q += dt * force(q)`` was refused. A def keeps only what it reads
(those are still treated as shared); the others stay private. Every form, against
central differences. A def that reads the updated array still has it refused.
"""
import numpy as np
import pytest

import srcgrad as sg

from tape_forms import assert_every_form


def leapfrog(q0):
    q = q0.copy()
    p = np.zeros_like(q0)

    def force(z):
        return -np.sin(z)
    for _ in range(3):
        p += 0.05 * force(q)
        q += 0.1 * p
        p += 0.05 * force(q)
    return np.sum(q ** 2) + np.sum(p ** 2)


def def_reads_the_updated_array(q0):
    q = q0 * 1.0

    def energy():
        return np.sum(q ** 2)
    before = energy()
    q += 0.5 * np.cos(q)
    return before + energy() * q[0]


def def_with_a_parameter_of_the_same_name(x):
    y = np.exp(x)

    def scale(y):
        return 2.0 * y
    y *= np.sin(x)
    return np.sum(scale(y) * y)


@pytest.mark.parametrize("f", [leapfrog, def_with_a_parameter_of_the_same_name])
def test_every_form(f):
    assert_every_form(f, np.array([0.3, -0.8, 1.2]))


def test_a_def_reading_the_array_keeps_the_update_refused():
    with pytest.raises(sg.CompileError, match=r"in-place update `q \+= \.\.\.`"):
        sg.grad(def_reads_the_updated_array)(np.array([0.3, -0.8, 1.2]))
