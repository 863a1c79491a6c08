"""Differentiable values stored in attributes of objects the code was handed
(passes/normalize/attributes.py): a cell carrying its state ``self.h``, a layer
caching ``self.x`` and ``self.out``, a model at module level reset by the code.

Each is checked against central differences in every form (``sg.grad``,
``value_and_grad``, a tape in plain code and in ``@sg.function``, forward mode,
second order), in several styles, and the objects hold afterwards what the same
code run as Python leaves in them. Was refused: "assigning a differentiable value to
attribute `self.h` is not supported".
"""
import copy

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_every_form, taped

RNG = np.random.default_rng(23)
W0 = RNG.normal(size=(3, 3)) * 0.6
XS = RNG.normal(size=(4, 3))


class Cell:
    def __init__(self):
        self.h = None

    def step(self, W, x):
        self.h = np.tanh(W @ self.h + x)
        return self.h


class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def forward(self, x):
        self.x = x  # cached for a hand-written backward pass
        self.out = np.tanh(x @ self.W + self.b)
        return self.out


class Model:
    def __init__(self, sizes):
        self.layers = [Dense(RNG.normal(size=(m, n)) * 0.5, np.zeros(n))
                       for m, n in zip(sizes[:-1], sizes[1:])]

    def __call__(self, x):
        for layer in self.layers:
            x = layer.forward(x)
        return x


CELL = Cell()
LAYER = Dense(np.zeros((3, 2)), np.full(2, 0.1))
MODEL = Model([3, 4, 2])


def run_cell(W, cell):
    cell.h = np.zeros(3)
    for x in XS:
        cell.step(W, x)
    return np.sum(cell.h)


def run_cell_inline(W, cell):
    cell.h = np.zeros(3)
    for x in XS:
        cell.h = np.tanh(W @ cell.h + x)
    return np.sum(cell.h ** 2)


def global_cell(w):
    # the module's cell, reset and run by the code (the hunt's sty_global_model_mutated)
    CELL.W = w.reshape(3, 3)
    CELL.h = np.zeros(3)
    for x in XS:
        CELL.h = np.tanh(CELL.W @ CELL.h + x)
    return np.sum(CELL.h)


def layer_with_weights(w):
    LAYER.W = w.reshape(3, 2)
    return np.sum(LAYER.forward(XS) ** 2)


def model_with_weights(w):
    first, second = MODEL.layers
    first.W = w[:12].reshape(3, 4)
    second.W = w[12:].reshape(4, 2)
    return np.sum(MODEL(XS) ** 2) + float(np.sum(second.x))


def layer_helper_tuple(w):
    def apply(layer, x):
        y = layer.forward(x)
        return y, layer.x  # (the cached input: a value the code stored)

    LAYER.W = w.reshape(3, 2)
    y, seen = apply(LAYER, XS * w[0])
    return np.sum(y * y) + np.sum(seen)


@pytest.mark.parametrize("f, size", [(global_cell, 9), (layer_with_weights, 6),
                                     (model_with_weights, 20), (layer_helper_tuple, 6)],
                         ids=["global_cell", "layer", "model", "helper_tuple"])
def test_every_form(f, size):
    assert_every_form(f, RNG.normal(size=size) * 0.5)


@pytest.mark.parametrize("f", [run_cell, run_cell_inline])
def test_an_object_passed_in(f):
    check_grads(f, (W0.copy(), Cell()), wrt=(0,), order=2)
    cell = Cell()
    value, g = sg.value_and_grad(f)(W0.copy(), cell)
    plain = Cell()
    assert value == pytest.approx(f(W0.copy(), plain))
    np.testing.assert_allclose(cell.h, plain.h)  # the object holds what Python leaves
    assert type(cell.h) is np.ndarray
    np.testing.assert_allclose(sg.function(taped)(lambda W: f(W, Cell()), W0.copy()), g)


def test_a_tape_over_layers_holding_variables():
    layers = [Dense(sg.Variable(RNG.normal(size=(3, 4)) * 0.5), sg.Variable(np.zeros(4))),
              Dense(sg.Variable(RNG.normal(size=(4, 1)) * 0.5), sg.Variable(np.zeros(1)))]

    def loss_of(Ws):
        y = XS
        for W, layer in zip(Ws, layers):
            y = np.tanh(y @ W + layer.b.numpy())
        return np.sum(y ** 2)

    with sg.GradientTape() as tape:
        y = XS
        for layer in layers:
            y = layer.forward(y)
        loss = np.sum(y ** 2)
    grads = tape.gradient(loss, [layers[0].W, layers[1].W])
    Ws = [layers[0].W.numpy(), layers[1].W.numpy()]
    for k in range(2):
        def part(w, k=k):
            return loss_of([w if j == k else Ws[j] for j in range(2)])
        check = sg.grad(part)(Ws[k].copy())
        np.testing.assert_allclose(grads[k], check, rtol=1e-10)
        eps = 1e-6
        fd = np.zeros_like(Ws[k])
        for idx in np.ndindex(fd.shape):
            e = np.zeros_like(fd)
            e[idx] = eps
            fd[idx] = (part(Ws[k] + e) - part(Ws[k] - e)) / (2 * eps)
        np.testing.assert_allclose(grads[k], fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(layers[1].out, y)  # cached as Python caches it
    np.testing.assert_allclose(layers[1].x, layers[0].out)


def test_state_read_before_it_is_written_is_a_constant():
    """``cell.h`` set outside (a previous call's state) and read first: a constant, as
    for any value the code did not compute from what it differentiates."""
    def continue_run(W, cell):
        for x in XS[:2]:
            cell.h = np.tanh(W @ cell.h + x)
        return np.sum(cell.h)

    def fresh():
        c = Cell()
        c.h = np.array([0.2, -0.1, 0.4])
        return c

    eps, g = 1e-6, sg.grad(continue_run)(W0.copy(), fresh())
    fd = np.zeros_like(W0)
    for idx in np.ndindex(W0.shape):
        e = np.zeros_like(W0)
        e[idx] = eps
        fd[idx] = (continue_run(W0 + e, fresh()) - continue_run(W0 - e, fresh())) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)


def test_a_missing_attribute_read_fails_as_in_python():
    def f(W, cell):
        y = np.sum(cell.state)  # never set
        cell.state = W * 2.0
        return y + np.sum(cell.state)

    with pytest.raises(AttributeError, match="state"):
        sg.value_and_grad(f)(W0.copy(), Cell())  # (sg.grad need not compute ``y``)


def test_the_same_object_twice_where_compiled_for_two_is_refused_when_it_runs():
    def f(W, a, b):
        a.h = W * 2.0
        b.h = W * 3.0
        return np.sum(a.h) + np.sum(b.h)

    g = sg.grad(f)
    np.testing.assert_allclose(g(W0.copy(), Cell(), Cell()), np.full((3, 3), 5.0))
    one = Cell()
    with pytest.raises(TypeError, match="distinct objects"):
        g(W0.copy(), one, one)


def _refused(f, *args):
    with pytest.raises(sg.CompileError) as info:
        sg.grad(f)(*args)
    return str(info.value)


def test_what_is_not_modelled_is_refused():
    def handed_to_library(W, cell):
        cell.h = W * 2.0
        other = copy.copy(cell)
        return np.sum(other.h)

    assert "`copy.copy(cell)` hands `cell` to a function srcgrad does not compile" in \
        _refused(handed_to_library, W0.copy(), Cell())

    def through_setattr(W, cell):
        cell.h = W * 2.0
        setattr(cell, "h", W)
        return np.sum(cell.h)

    assert "`setattr(cell, 'h', W)`" in _refused(through_setattr, W0.copy(), Cell())

    def through_dict(W, cell):
        cell.h = W * 2.0
        return np.sum(cell.__dict__["h"])

    assert "__dict__" in _refused(through_dict, W0.copy(), Cell())


class Scored(Dense):
    def forward(self, x):
        self.out = np.tanh(x @ self.W + self.b)
        self.loss = np.sum(self.out ** 2)
        return self.out


def _tape_target_of(layer, x):
    with sg.GradientTape() as tape:
        layer.forward(x)
    return tape.gradient(layer.loss, layer.W)


def test_a_value_stored_in_an_attribute_is_a_tape_target():
    """``tape.gradient(model.loss, W)``: the target is a value the block stored in an
    attribute (TensorFlow's answer, not None)."""
    layer = Scored(sg.Variable(RNG.normal(size=(3, 2)) * 0.5), np.zeros(2))
    W = layer.W.numpy()

    def loss(w):
        return np.sum(np.tanh(XS @ w + layer.b) ** 2)

    expected = sg.grad(loss)(W.copy())
    eps, fd = 1e-6, np.zeros_like(W)
    for idx in np.ndindex(W.shape):
        e = np.zeros_like(W)
        e[idx] = eps
        fd[idx] = (loss(W + e) - loss(W - e)) / (2 * eps)
    np.testing.assert_allclose(expected, fd, rtol=1e-6, atol=1e-8)
    for run in (_tape_target_of, sg.function(_tape_target_of)):
        np.testing.assert_allclose(run(layer, XS), expected, rtol=1e-10)
    with sg.GradientTape() as tape:
        layer.forward(XS)
    np.testing.assert_allclose(tape.gradient(layer.loss, layer.W), expected, rtol=1e-10)
    with sg.GradientTape(persistent=True) as tape:
        layer.forward(XS)
    for _ in range(2):  # (an array target: the record keeps copies, the target is the user's)
        jac = tape.jacobian(layer.out, layer.W)
        assert jac.shape == (4, 2, 3, 2)
        np.testing.assert_allclose(np.einsum("ij,ijkl->kl", 2 * layer.out, jac), expected,
                                   rtol=1e-10)


class Holder:
    def __init__(self):
        self.cell = Cell()
        self.cell.h = np.array([1.0, 2.0, -0.5])


def nested_store(w, hold):
    y = np.sum(hold.cell.h)  # (the state it was handed: a constant)
    hold.cell.h = w * 2.0
    return y * np.sum(hold.cell.h ** 2)


def read_between_writes(w, hold):
    cell = hold.cell
    cell.h = w
    before = cell.h
    cell.h = np.sin(cell.h) * 3.0
    return np.sum(before * cell.h)


def through_an_alias_and_a_closure(w, hold):
    other = hold.cell
    other.h = w * w

    def read():
        return hold.cell.h + 1.0

    return np.sum(read() ** 2)


def runtime_trip_count(w, hold, n=3):
    hold.cell.h = w
    for _ in range(n):
        hold.cell.h = np.sin(hold.cell.h) + w
    return np.sum(hold.cell.h)


@pytest.mark.parametrize("f", [nested_store, read_between_writes,
                               through_an_alias_and_a_closure, runtime_trip_count])
def test_styles_against_central_differences(f):
    """Each call from a fresh object (the code changes the object it is handed)."""
    w = np.array([0.5, -0.3, 0.8])
    g = sg.grad(f)(w.copy(), Holder())
    eps = 1e-6
    fd = np.array([(f(w + eps * d, Holder()) - f(w - eps * d, Holder())) / (2 * eps)
                   for d in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    value, g2 = sg.value_and_grad(f)(w.copy(), Holder())
    assert value == pytest.approx(f(w.copy(), Holder()))
    np.testing.assert_allclose(g2, g)
    hold = Holder()  # (made outside: an object built in the code is kept as its attributes)
    np.testing.assert_allclose(sg.function(taped)(lambda w: f(w, hold), w.copy()), g)
    hold = Holder()
    np.testing.assert_allclose(taped(lambda w: f(w, hold), w.copy()), g)
    product = sg.hvp(f)(w.copy(), Holder(), np.ones(3))
    gf = sg.grad(f)
    hv = (gf(w + eps, Holder()) - gf(w - eps, Holder())) / (2 * eps)
    np.testing.assert_allclose(product, hv, rtol=1e-5, atol=1e-6)


def test_a_global_layer_read_by_a_helper_the_code_calls():
    def predict(x):
        return LAYER.forward(x)

    def loss(w):
        LAYER.W = w.reshape(3, 2)
        return np.sum(predict(XS) ** 2)

    assert_every_form(loss, RNG.normal(size=6) * 0.5)


def test_refusals_say_why():
    def loop_over_a_list_given(w, cells):
        for c in cells:
            c.h = w * 2.0
        return np.sum(cells[0].h)

    message = _refused(loop_over_a_list_given, W0.copy(), [Cell(), Cell()])
    assert "`c.h` of an object srcgrad cannot tell when compiling" in message
    assert "first, second = model.layers" in message

    class Slotted:
        __slots__ = ("h",)

    def slotted(w, obj):
        obj.h = w * 2.0
        return np.sum(obj.h)

    assert "cannot mirror (`" in _refused(slotted, W0.copy(), Slotted())

    def deleted(w, cell):
        cell.h = w * 2.0
        y = np.sum(cell.h)
        del cell.h
        return y

    assert "del statement is not supported" in _refused(deleted, W0.copy(), Cell())
