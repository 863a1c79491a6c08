"""Tape blocks of an ``@sg.function`` are compiled into the function's own code: no
trace function, no frame writes (issue 11, section 2). Everything the plain
placement does is tested there too (``tape_forms``, test_tape_once.py); these
tests pin what is particular to the rewrite."""
import traceback

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.tape import blocks, once

SCALE = 3.0
calls = []


def _no_frame_tricks(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a frame trick in an @sg.function")
    monkeypatch.setattr(once.Skipper, "arm", refuse)
    monkeypatch.setattr(once, "write_back", refuse)
    monkeypatch.setattr(blocks, "locate", refuse)


@sg.function
def step(w, x, rng, log):
    with sg.GradientTape() as tape:
        tape.watch(w)
        mask = rng.random(w.shape) < 0.5
        loss = np.sum(np.where(mask, np.sin(x * w), 0.0)) * SCALE
        log.append(float(loss))
    return loss, mask, tape.gradient(loss, w)


def test_a_block_runs_once_with_no_trace_function_and_no_frame_writes(monkeypatch):
    _no_frame_tricks(monkeypatch)
    rng, log = np.random.default_rng(3), []
    w, x = np.linspace(-1.0, 1.0, 6), np.linspace(0.5, 2.0, 6)
    for _ in range(3):
        loss, mask, g = step(w, x, rng, log)
        np.testing.assert_allclose(g, np.where(mask, np.cos(x * w) * x, 0.0) * SCALE, rtol=1e-12)
        assert loss == pytest.approx(np.sum(np.where(mask, np.sin(x * w), 0.0)) * SCALE)
    assert len(log) == 3


def outer_factory(c):
    @sg.function
    def loss_and_grads(xs, n):
        results = []
        for x in xs:  # a block in a loop, reading a closure cell and a loop variable
            with sg.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = c * x * x
                for k in range(n):  # k is bound only if the loop runs
                    y = y * 2.0
                calls.append(1)
            results.append((y, tape.gradient(y, x), tape.gradient(y, x)))
        return results, k
    return loss_and_grads


def test_closures_loops_globals_and_zero_trip_loops(monkeypatch):
    _no_frame_tricks(monkeypatch)
    calls.clear()
    f = outer_factory(0.5)
    (first, second), k = f([1.0, 2.0], 2)
    assert first == (2.0, 4.0, 4.0) and second == (8.0, 8.0, 8.0) and k == 1
    assert len(calls) == 2
    with pytest.raises(UnboundLocalError):
        f([1.0], 0)  # k was never bound: as the original function


@sg.function
def raises_in_block(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.log(x)
        raise ValueError("inside")
    return tape.gradient(y, x)


def test_a_traceback_names_the_users_file_and_line():
    with pytest.raises(ValueError) as info:
        raises_in_block(np.ones(2))
    frames = traceback.extract_tb(info.tb)
    here = [fr for fr in frames if fr.filename == __file__]
    assert (here[-1].name, here[-1].line) == ("raises_in_block", "with sg.GradientTape() as tape:")


@sg.function
def maybe_bound(x, flag):
    if flag:
        c = 2.0
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = c * x * x  # c may be unbound: the block is left to the plain placement
    return tape.gradient(y, x)


def test_an_input_that_may_be_unbound_leaves_the_block_as_written():
    assert maybe_bound(3.0, True) == 12.0
    with pytest.raises(NameError):
        maybe_bound(3.0, False)


class Model:
    def __init__(self):
        self.__w = sg.Variable(np.array([1.0, 2.0]))

    @sg.function
    def grads(self, x):
        with sg.GradientTape() as tape:
            loss = np.sum(self.__w * x)  # a name the class body mangles: self._Model__w
        return tape.gradient(loss, self.__w)

    def plain_grads(self, x):
        with sg.GradientTape() as tape:
            loss = np.sum(self.__w * x * x)
        return tape.gradient(loss, self.__w)

    def loss(self, __x):
        return np.sum(self.__w * __x ** 3)


def test_private_names_of_a_method_in_every_placement():
    model, x = Model(), np.array([3.0, 4.0])
    np.testing.assert_allclose(model.grads(x), x)
    np.testing.assert_allclose(model.plain_grads(x), x * x)
    np.testing.assert_allclose(sg.grad(model.loss)(x), 3.0 * np.array([1.0, 2.0]) * x * x)


@sg.function
def replaced(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return tape.gradient(y, x)


def _replacement(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x * x * x
    return tape.gradient(y, x)


def test_a_replaced_code_object_is_compiled_again():
    f = replaced.__wrapped__
    old = f.__code__
    assert replaced(2.0) == 4.0
    try:
        f.__code__ = _replacement.__code__
        assert replaced(2.0) == 12.0
    finally:
        f.__code__ = old
    assert replaced(2.0) == 4.0


class Subclass(np.ndarray):
    pass


@sg.function
def of_a_subclass(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * x)
    return tape.gradient(y, x)


def test_a_value_the_compiler_does_not_take_is_refused_as_in_plain_code():
    with pytest.raises(TypeError, match="subclass"):
        of_a_subclass(np.ones(2).view(Subclass))
