"""A dropout step in a tape block, run under pdb with a breakpoint after each
block (tests/test_tape_once.py): pdb's trace function is set while the tape
skips the block's statements."""
import numpy as np

import srcgrad as sg

draws = []


def step(w, x, rng):
    with sg.GradientTape() as tape:
        tape.watch(w)
        mask = rng.random(w.shape) < 0.5
        draws.append(mask)
        loss = np.sum(np.where(mask, np.tanh(x * w), 0.0) ** 2)
    return mask, tape.gradient(loss, w)


def checkpoint(step_number):
    return step_number  # BREAK HERE


def main():
    rng = np.random.default_rng(0)
    w, x = np.linspace(-1.0, 1.0, 6), np.linspace(0.5, 2.0, 6)
    for k in range(3):
        mask, g = step(w, x, rng)
        t = np.tanh(x * w)
        assert np.allclose(g, np.where(mask, 2.0 * t * (1.0 - t * t) * x, 0.0), rtol=1e-12)
        checkpoint(k)
        w = w - 0.1 * g
    assert len(draws) == 3, len(draws)


if __name__ == "__main__":
    import io
    import pdb
    import sys

    line = open(__file__).read().splitlines().index("    return step_number  # BREAK HERE") + 1
    debugger = pdb.Pdb(stdin=io.StringIO("continue\n" * 10), stdout=sys.stdout)
    debugger.use_rawinput = False
    debugger.set_break(__file__, line)
    debugger.runcall(main)
    print("ok")
