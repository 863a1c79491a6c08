"""A name holding a record (dataclass or namedtuple) built from constants first and then
rebuilt from differentiable values (``normalize/normalizer.py``:
``_record_of_a_varied_name``; ``structure.Facts.record_class``).

``p = Particle(p0, np.zeros(2))`` with ``p0`` not differentiated, then ``p =
dataclasses.replace(p, vel=p.vel - dt * g * p.pos)`` in a loop: the first object was left
as a constant the compiler does not read by fields, so ``p.pos`` after it was refused
(first order when only ``g`` was differentiated, and every second order, tape and
``@sg.function`` form). Every binding of such a name now builds a record.
"""
import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest

from srcgrad.testing import check_grads
from tape_forms import assert_every_form

P0 = np.array([1.0, -0.5])
G = np.array([0.7, 1.3])


@dataclass(frozen=True)
class Particle:
    pos: np.ndarray
    vel: np.ndarray


class State(NamedTuple):
    pos: np.ndarray
    vel: np.ndarray


def replaced_in_a_loop(g):
    p = Particle(P0, np.zeros(2))
    for _ in range(3):
        p = dataclasses.replace(p, vel=p.vel - 0.1 * g * p.pos)
        p = dataclasses.replace(p, pos=p.pos + 0.1 * p.vel)
    return np.sum(p.pos ** 2) + np.sum(p.vel ** 2)


def rebuilt_by_its_class(g):
    p = Particle(P0, np.zeros_like(P0))
    for _ in range(3):
        p = Particle(p.pos + 0.1 * p.vel, p.vel - 0.1 * g * p.pos)
    return np.sum(p.pos * p.vel)


def namedtuple_replaced(g):
    s = State(P0, np.ones(2))
    s = s._replace(vel=s.vel * np.tanh(g))
    s = s._replace(pos=s.pos + s.vel)
    return np.sum(s.pos ** 3)


@pytest.mark.parametrize("f", [replaced_in_a_loop, rebuilt_by_its_class, namedtuple_replaced])
def test_records_rebuilt_from_differentiable_values(f):
    assert_every_form(f, G.copy())


def test_only_the_rate_differentiated():
    def run(g, p0):
        p = Particle(p0, np.zeros_like(p0))
        for _ in range(2):
            p = dataclasses.replace(p, vel=p.vel - 0.1 * g * p.pos)
        return np.sum(p.pos ** 2) + np.sum(p.vel ** 2)

    check_grads(run, (0.7, P0.copy()), order=2, wrt=0)
    check_grads(run, (0.7, P0.copy()), order=2, wrt=(0, 1))
