"""A block whose next statement takes its tape's gradient keeps no copies (issue 11,
section 5: nothing is copied that is not overwritten): nothing can write into
the arrays the record holds before the backward code reads them. Where
something could (a property read by the gradient's arguments, a statement in
between, a persistent tape), the record is copied and the gradient stays at the
values the block computed with; where the gradient statement did not run as
planned, the tape refuses rather than answer from changed arrays."""
import sys
import tracemalloc

import numpy as np
import pytest

import srcgrad as sg

RNG = np.random.default_rng(4)
BIG = RNG.normal(size=(1500, 400))  # 4.8 MB: a copy of it shows in the peak
Y = (RNG.random(1500) > 0.5).astype(float)


def logistic(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z)


def logistic_grad(w, X, y):
    z = X @ w
    return X.T @ ((1.0 / (1.0 + np.exp(-z)) - y) / len(y))


def _peak(f, *args):
    f(*args)  # compiled before measuring
    tracemalloc.start()
    try:
        out = f(*args)
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def next_statement(w, X, y):
    with sg.GradientTape() as tape:
        tape.watch(w)
        loss = logistic(w, X, y)
    return tape.gradient(loss, w)


def statement_between(w, X, y):
    with sg.GradientTape() as tape:
        tape.watch(w)
        loss = logistic(w, X, y)
    n = 0
    return tape.gradient(loss, w) if n == 0 else None


@pytest.mark.parametrize("placement", ["plain", "sg.function"])
def test_no_copy_when_the_gradient_is_next(placement):
    w = RNG.normal(size=400) * 0.01
    X = BIG.copy()
    f = next_statement if placement == "plain" else sg.function(next_statement)
    g, peak = _peak(f, w, X, Y)
    np.testing.assert_allclose(g, logistic_grad(w, X, Y), rtol=1e-10)
    assert peak < X.nbytes / 2, peak


@pytest.mark.parametrize("placement", ["plain", "sg.function"])
def test_a_statement_in_between_copies(placement):
    """(The measure above can fail: here the input is copied.)"""
    w = RNG.normal(size=400) * 0.01
    X = BIG.copy()
    f = statement_between if placement == "plain" else sg.function(statement_between)
    g, peak = _peak(f, w, X, Y)
    np.testing.assert_allclose(g, logistic_grad(w, X, Y), rtol=1e-10)
    assert peak >= X.nbytes, peak


class Model:
    def __init__(self, w, X):
        self.w, self.X = w, X
        self.parts = {"w": w}

    @property
    def sources(self):
        self.X *= 2.0  # code that runs when the gradient's arguments are read
        return [self.w]


def property_in_the_arguments(model):
    w = model.w
    with sg.GradientTape() as tape:
        tape.watch(w)
        loss = np.sum(np.sin(model.X @ w))
    return tape.gradient(loss, model.sources)


def attribute_in_the_arguments(model):
    w = model.w
    with sg.GradientTape() as tape:
        tape.watch(w)
        loss = np.sum(np.sin(model.X @ w))
    return tape.gradient(loss, [model.w, model.parts["w"]])


@pytest.mark.parametrize("wrap", [lambda f: f, sg.function], ids=["plain", "sg.function"])
def test_a_property_read_by_the_gradient_does_not_change_it(wrap):
    X = RNG.normal(size=(4, 3))
    w = RNG.normal(size=3)
    expected = X.T @ np.cos(X @ w)
    (g,) = wrap(property_in_the_arguments)(Model(w, X.copy()))
    np.testing.assert_allclose(g, expected, rtol=1e-12)


@pytest.mark.parametrize("wrap", [lambda f: f, sg.function], ids=["plain", "sg.function"])
def test_instance_attributes_and_items_in_the_arguments(wrap):
    X = RNG.normal(size=(4, 3))
    w = RNG.normal(size=3)
    expected = X.T @ np.cos(X @ w)
    g1, g2 = wrap(attribute_in_the_arguments)(Model(w, X.copy()))
    np.testing.assert_allclose(g1, expected, rtol=1e-12)
    np.testing.assert_allclose(g2, expected, rtol=1e-12)


def test_the_gradient_statement_failing_then_a_later_gradient_refuses():
    X = RNG.normal(size=(4, 3))
    w = RNG.normal(size=3)
    try:
        with sg.GradientTape() as tape:
            tape.watch(w)
            loss = np.sum(np.sin(X @ w))
        tape.gradient(loss, w, unconnected_gradients="sometimes")
    except ValueError:
        pass
    X[:] = 0.0  # the block read X: its record was not copied
    with pytest.raises(RuntimeError, match="statement after it"):
        tape.gradient(loss, w)


def test_persistent_tape_copies():
    X = RNG.normal(size=(4, 3))
    X0 = X.copy()
    w = RNG.normal(size=3)
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(w)
        loss = np.sum(np.sin(X @ w))
    g1 = tape.gradient(loss, w)
    X[:] = 0.0
    g2 = tape.gradient(loss, w)
    np.testing.assert_allclose(g1, X0.T @ np.cos(X0 @ w), rtol=1e-12)
    np.testing.assert_allclose(g2, g1, rtol=1e-12)


def test_in_place_write_in_the_block_leaves_the_users_array_after_the_gradient():
    """The backward code restores what the block overwrote in its record: that record
    is a copy (the tape copies what it restores), never the user's array."""
    x = np.array([1.0, 2.0, 3.0])
    w = np.array([0.5, 0.25, 2.0])
    with sg.GradientTape() as tape:
        tape.watch(w)
        x *= w
        loss = np.sum(x * x)
    g = tape.gradient(loss, w)
    np.testing.assert_allclose(x, [0.5, 0.5, 6.0])
    np.testing.assert_allclose(g, 2.0 * np.array([0.5, 0.5, 6.0]) * np.array([1.0, 2.0, 3.0]))


def test_under_a_trace_function():
    """A tracer (coverage, a debugger) sees the same lines: the gradient is next."""
    X = RNG.normal(size=(4, 3))
    w = RNG.normal(size=3)
    previous = sys.gettrace()
    sys.settrace(lambda frame, event, arg: None)
    try:
        g = next_statement(w, X, Y[:4])
    finally:
        sys.settrace(previous)
    np.testing.assert_allclose(g, logistic_grad(w, X, Y[:4]), rtol=1e-12)


def test_a_wrapped_gradient_method(monkeypatch):
    """A profiler's or a mock's wrapper around ``gradient`` is between the statement and
    the method: still the statement after the block."""
    original = sg.GradientTape.gradient

    def wrapper(self, *args, **kwargs):
        return original(self, *args, **kwargs)

    monkeypatch.setattr(sg.GradientTape, "gradient", wrapper)
    X = RNG.normal(size=(4, 3))
    w = RNG.normal(size=3)
    np.testing.assert_allclose(next_statement(w, X, Y[:4]), logistic_grad(w, X, Y[:4]),
                               rtol=1e-12)


def loop_block(w, X, y):
    with sg.GradientTape() as tape:
        tape.watch(w)
        total = 0.0
        for k in range(3):  # stacks the backward code pops: the record's own
            total = total + logistic(w * (k + 1.0), X, y)
    return tape.gradient(total, w)


@pytest.mark.parametrize("placement", ["plain", "sg.function"])
def test_no_copy_for_a_block_whose_backward_pops_its_stacks(placement):
    w = RNG.normal(size=400) * 0.01
    X = BIG.copy()
    f = loop_block if placement == "plain" else sg.function(loop_block)
    g, peak = _peak(f, w, X, Y)
    expected = sum((k + 1.0) * logistic_grad(w * (k + 1.0), X, Y) for k in range(3))
    np.testing.assert_allclose(g, expected, rtol=1e-10)
    assert peak < X.nbytes / 2, peak
