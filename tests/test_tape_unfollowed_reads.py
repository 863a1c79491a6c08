"""A Variable a tape block computes with where srcgrad could not tell it would be one
(hunt 4): its gradient was None, silently, where TensorFlow gives one.

Reached through ``vars(m)["w"]``, ``next(iter(ws))``, ``list(d.values())[0]``, a
user container's own ``__iter__``/``__getitem__``, a class attribute read in a
generator, or made in the block (a lazily built layer): the compiled code computes
with the Variable object itself, which notes it; asking for its gradient is then an
error naming the block, never None or a gradient missing those terms."""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([0.5, -1.0, 2.0])


class Box:
    def __init__(self):
        self.w = sg.Variable(np.array([0.2, 0.4, -0.1]))


class ModuleList:
    def __init__(self, ws):
        self.ws = [sg.Variable(np.array(w)) for w in ws]

    def __iter__(self):
        return iter(self.ws)

    def __getitem__(self, i):
        return self.ws[i]


def through_vars(m):
    with sg.GradientTape() as tape:
        y = np.sum(np.sin(vars(m)["w"] * X))
    return tape.gradient(y, m.w)


def through_next_iter(m):
    ws = [m.w]
    with sg.GradientTape() as tape:
        y = np.sum(next(iter(ws)) * X)
    return tape.gradient(y, m.w)


def through_a_container_protocol(s):
    with sg.GradientTape() as tape:
        y = 0.0
        for w in s:
            y = y + np.sum(w ** 2)
    return tape.gradient(y, s.ws[0])


def made_in_the_block():
    with sg.GradientTape() as tape:
        v = sg.Variable(np.array([1.0, 2.0]))
        y = np.sum(v ** 2)
    return tape.gradient(y, v)


def partly_followed(m):
    """One read srcgrad follows (m.w), one it does not: the gradient would miss a term."""
    with sg.GradientTape() as tape:
        y = np.sum(m.w * X) + np.sum(vars(m)["w"] ** 2)
    return tape.gradient(y, m.w)


@pytest.mark.parametrize("case", [
    lambda: through_vars(Box()),
    lambda: through_next_iter(Box()),
    lambda: through_a_container_protocol(ModuleList([[0.5, -0.3], [1.0, 2.0]])),
    made_in_the_block,
    lambda: partly_followed(Box()),
], ids=["vars", "next_iter", "dunder_iter", "made_in_block", "partly"])
def test_unfollowed_reads_are_an_error_not_none(case):
    with pytest.raises(sg.CompileError) as e:
        case()
    assert "where srcgrad could not tell it would be a Variable" in str(e.value)
    assert "test_tape_unfollowed_reads.py:" in str(e.value)


def test_followed_reads_and_unwatched_variables_are_not_errors():
    m = Box()
    with sg.GradientTape() as tape:
        y = np.sum(np.sin(m.w * X))
    np.testing.assert_allclose(tape.gradient(y, m.w), np.cos(m.w.numpy() * X) * X, rtol=1e-12)
    frozen = Box()
    frozen.w = sg.Variable(np.array([0.2, 0.4, -0.1]), trainable=False)
    with sg.GradientTape() as tape:  # not watched: None, as TensorFlow gives
        y = np.sum(vars(frozen)["w"] * X)
    assert tape.gradient(y, frozen.w) is None
