"""A training loop with dropout in a tape block, run under ``coverage run``
(tests/test_tape_once.py): coverage's trace function is on while the tape skips
the block's statements, and must be on again after it."""
import sys

import numpy as np

import srcgrad as sg


def step(w, x, rng):
    with sg.GradientTape() as tape:
        tape.watch(w)
        mask = rng.random(w.shape) < 0.5
        loss = np.sum(np.where(mask, np.tanh(x * w), 0.0) ** 2)
    return mask, tape.gradient(loss, w)


def after_the_block(v):
    return v * 2.0  # coverage must see this line run


rng = np.random.default_rng(0)
w, x = np.linspace(-1.0, 1.0, 6), np.linspace(0.5, 2.0, 6)
for _ in range(3):
    mask, g = step(w, x, rng)
    t = np.tanh(x * w)
    expected = np.where(mask, 2.0 * t * (1.0 - t * t) * x, 0.0)
    assert np.allclose(g, expected, rtol=1e-12), (g, expected)
    assert sys.gettrace() is not None  # coverage's tracer is back
    w = after_the_block(w - 0.1 * g)
print("ok")
