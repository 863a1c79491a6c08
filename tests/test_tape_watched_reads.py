"""A watched value read from where it is stored (issue 11, section 4: identity, as
TensorFlow matches tensors). After ``w = model.w`` and ``tape.watch(w)``, the
block's ``model.loss()`` reads ``self.w``: the same tensor, so the gradient
flows to it. The same for an item of a list or dict, a global, a Variable read
through an attribute with ``watch_accessed_variables=False``, and
``tape.watch(model.w)`` itself. Each was None before (a silent wrong answer).
A value watched only further on in the block and read from storage is refused:
which reads come after the watch cannot be told apart."""
import numpy as np
import pytest

import srcgrad as sg

W_GLOBAL = np.array([0.5, -1.5, 2.0])
X = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]])


class Model:
    def __init__(self, w):
        self.w = w
        self.params = {"w": w}
        self.layers = [w]

    def loss(self, x):
        return np.sum(np.tanh(x @ self.w))


def expected(w, x=X):
    return x.T @ (1.0 - np.tanh(x @ w) ** 2)


def attribute_read(model):
    w = model.w
    with sg.GradientTape() as tape:
        tape.watch(w)
        loss = model.loss(X)
    return tape.gradient(loss, w)


def dict_item_read(model):
    w = model.w
    with sg.GradientTape() as tape:
        tape.watch(w)
        loss = np.sum(np.tanh(X @ model.params["w"]))
    return tape.gradient(loss, w)


def list_item_of_a_parameter(layers):
    w = layers[0]
    with sg.GradientTape() as tape:
        tape.watch(w)
        loss = np.sum(np.tanh(X @ layers[0]))
    return tape.gradient(loss, w)


def global_read(_):
    w = W_GLOBAL
    with sg.GradientTape() as tape:
        tape.watch(w)
        loss = np.sum(np.tanh(X @ W_GLOBAL))
    return tape.gradient(loss, w)


def watch_an_attribute(model):
    with sg.GradientTape() as tape:
        tape.watch(model.w)
        loss = model.loss(X)
    return tape.gradient(loss, model.w)


def watch_an_item_read_twice(model):
    with sg.GradientTape() as tape:
        tape.watch(model.params["w"])
        loss = model.loss(X) + np.sum(model.params["w"] ** 2)
    return tape.gradient(loss, model.w)


CASES = {
    attribute_read: lambda w: expected(w),
    dict_item_read: lambda w: expected(w),
    global_read: lambda w: expected(W_GLOBAL),
    watch_an_attribute: lambda w: expected(w),
    watch_an_item_read_twice: lambda w: expected(w) + 2.0 * w,
}


@pytest.mark.parametrize("wrap", [lambda f: f, sg.function], ids=["plain", "sg.function"])
@pytest.mark.parametrize("case", list(CASES), ids=lambda f: f.__name__)
def test_watched_value_read_from_storage(case, wrap):
    f = wrap(case)
    for step in range(3):  # compiled once, entered again with new values
        w = np.array([0.3, -0.2, 0.1]) * (step + 1)
        g = f(Model(w))
        np.testing.assert_allclose(g, CASES[case](w), rtol=1e-12)


@pytest.mark.parametrize("wrap", [lambda f: f, sg.function], ids=["plain", "sg.function"])
def test_list_item_of_a_parameter(wrap):
    w = np.array([0.3, -0.2, 0.1])
    np.testing.assert_allclose(wrap(list_item_of_a_parameter)([w]), expected(w), rtol=1e-12)


def item_not_watched(layers, w):
    with sg.GradientTape() as tape:
        tape.watch(w)
        loss = np.sum(np.tanh(X @ layers[0]))
    return tape.gradient(loss, w)


def test_the_same_code_with_another_item_watched_compiles_again():
    w = np.array([0.3, -0.2, 0.1])
    other = np.array([1.0, 1.0, 1.0])
    np.testing.assert_allclose(item_not_watched([w], w), expected(w), rtol=1e-12)
    assert item_not_watched([other], w) is None  # the item read is not the watched value
    np.testing.assert_allclose(item_not_watched([w], w), expected(w), rtol=1e-12)


def test_a_model_updated_between_steps():
    """A training loop: the model's array is replaced each step, the watch follows it."""
    model = Model(np.array([0.3, -0.2, 0.1]))
    for _ in range(4):
        g = attribute_read(model)
        np.testing.assert_allclose(g, expected(model.w), rtol=1e-12)
        model.w = model.w - 0.1 * g


def variable_through_an_attribute(holder):
    v = holder.v
    with sg.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        loss = np.sum(holder.v ** 3)
    return tape.gradient(loss, v)


def test_variable_read_through_an_attribute_not_watched_by_access():
    class Holder:
        pass

    holder = Holder()
    holder.v = sg.Variable([1.0, 2.0])
    np.testing.assert_allclose(variable_through_an_attribute(holder), [3.0, 12.0], rtol=1e-12)


def watched_further_on(model):
    w = model.w
    with sg.GradientTape() as tape:
        before = np.sum(model.w * 2.0)
        tape.watch(w)
        loss = before + np.sum(model.w * 3.0)
    return tape.gradient(loss, w)


def test_a_value_watched_further_on_read_from_storage_is_refused():
    with pytest.raises(sg.CompileError, match="watches only further on"):
        watched_further_on(Model(np.array([1.0, 2.0])))


def by_name_further_on(w):
    with sg.GradientTape() as tape:
        before = np.sum(w * 2.0)
        tape.watch(w)
        loss = before + np.sum(w * 3.0)
    return tape.gradient(loss, w)


def test_a_value_watched_further_on_read_by_name_counts_from_the_watch():
    """(TensorFlow: what ran before the watch is not recorded.)"""
    np.testing.assert_allclose(by_name_further_on(np.array([1.0, 2.0])), [3.0, 3.0])


def test_watch_of_an_expression_further_on_is_refused():
    def f(model):
        with sg.GradientTape() as tape:
            y = np.sum(model.w)
            tape.watch(model.w)
        return tape.gradient(y, model.w)

    with pytest.raises(sg.CompileError, match="start of the block"):
        f(Model(np.array([1.0, 2.0])))


V_GLOBAL = sg.Variable(np.array([0.3, -0.7, 1.1]))


def _global_loss(x):
    return np.sum(np.tanh(x @ V_GLOBAL))


@pytest.mark.parametrize("watch_accessed", [False, True])
def test_watched_variable_and_array_read_in_called_code(watch_accessed):
    """With ``watch_accessed_variables=False``, a Variable the block watches and a function
    it calls reads as a global (or a method as ``self.w``) is still the source: the call
    was not differentiated at all (hunt 3: None)."""
    with sg.GradientTape(watch_accessed_variables=watch_accessed) as tape:
        tape.watch(V_GLOBAL)
        y = _global_loss(X)
    np.testing.assert_allclose(tape.gradient(y, V_GLOBAL), expected(V_GLOBAL.numpy()),
                               rtol=1e-12)
    model = Model(sg.Variable(np.array([0.2, 0.1, -0.4])))
    with sg.GradientTape(watch_accessed_variables=watch_accessed) as tape:
        tape.watch(model.w)
        y = model.loss(X)
    np.testing.assert_allclose(tape.gradient(y, model.w), expected(model.w.numpy()), rtol=1e-12)
    w = np.array([1.0, -0.5, 0.5])
    plain = Model(w)
    with sg.GradientTape(watch_accessed_variables=watch_accessed) as tape:
        tape.watch(w)
        y = plain.loss(X)
    np.testing.assert_allclose(tape.gradient(y, w), expected(w), rtol=1e-12)
    with sg.GradientTape(watch_accessed_variables=False) as tape:  # not watched: None
        y = _global_loss(X)
    assert tape.gradient(y, V_GLOBAL) is None


class _Holder:
    def __init__(self):
        self.w = np.array([0.5, -0.3])

    def f(self):
        return np.sum(np.sin(self.w))


def _watch_attribute_read_by_another_name():
    m = _Holder()
    ww = m.w
    with sg.GradientTape() as tape:
        tape.watch(m.w)
        loss = np.sum(ww ** 3) + np.sum(m.w ** 2) + m.f()
    return tape.gradient(loss, m.w)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_watched_attribute_read_under_a_name_bound_before_the_block(placement):
    """(``tape.watch(m.w)`` and the block reading ``ww = m.w``: the same array, whose
    reads under that name were constants: None. Found by a battery checking fixes.)"""
    run = _watch_attribute_read_by_another_name if placement == "plain" \
        else sg.function(_watch_attribute_read_by_another_name)
    w = np.array([0.5, -0.3])
    np.testing.assert_allclose(run(), 3 * w ** 2 + 2 * w + np.cos(w), rtol=1e-12)
