"""Tape blocks that reach Variables, or values ``tape.watch`` watched, through the
containers and objects that hold them: loops over a list of layers, over a parameter
dict's keys, items or values, a list of per-layer dicts, ``range(len(layers))``, a
generator expression. Each was a silent ``None`` gradient (TensorFlow gives the
gradient); each is checked against ``sg.grad`` of the same loss on plain arrays, in
plain code and in ``@sg.function``. Reads by an index known only when the code runs
are refused, naming the line."""
import numpy as np
import pytest

import srcgrad as sg

RNG = np.random.default_rng(11)
X = RNG.normal(size=3)
SHAPES = [((3, 3), (3,)), ((2, 3), (2,))]


def _net(W1, b1, W2, b2):
    h = np.tanh(W1 @ X + b1)
    return np.sum(np.tanh(W2 @ h + b2) ** 2)


ARRAYS = [RNG.normal(size=s) * 0.5 for pair in SHAPES for s in pair]
WANT = sg.grad(_net, (0, 1, 2, 3))(*ARRAYS)


class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, h):
        return np.tanh(self.W @ h + self.b)


def _variables():
    return [sg.Variable(a.copy()) for a in ARRAYS]


def layers_of_objects(vs):
    layers = [Dense(vs[0], vs[1]), Dense(vs[2], vs[3])]
    with sg.GradientTape() as tape:
        h = X
        for layer in layers:
            h = layer(h)
        loss = np.sum(h ** 2)
    return tape.gradient(loss, vs)


def layers_of_dicts(vs):
    layers = [{"W": vs[0], "b": vs[1]}, {"W": vs[2], "b": vs[3]}]
    with sg.GradientTape() as tape:
        h = X
        for layer in layers:
            h = np.tanh(layer["W"] @ h + layer["b"])
        loss = np.sum(h ** 2)
    return tape.gradient(loss, vs)


def dict_by_keys(vs):
    params = {"W1": vs[0], "b1": vs[1], "W2": vs[2], "b2": vs[3]}
    with sg.GradientTape() as tape:
        h = X
        for k in ("1", "2"):
            h = np.tanh(params["W" + k] @ h + params[f"b{k}"])
        loss = np.sum(h ** 2)
        reg = 0.0
        for name in params:
            reg = reg + 0.0 * np.sum(params[name] ** 2)
        loss = loss + reg
    return tape.gradient(loss, vs)


def dict_items_and_values(vs):
    params = {"W1": vs[0], "b1": vs[1], "W2": vs[2], "b2": vs[3]}
    with sg.GradientTape() as tape:
        loss = _net(params["W1"], params["b1"], params["W2"], params["b2"])
        for name, p in params.items():
            loss = loss + 1e-3 * np.sum(p ** 2)
        loss = loss + 1e-3 * sum(np.sum(p ** 2) for p in params.values())
    return tape.gradient(loss, vs)


def by_range_of_len(vs):
    Ws, bs = [vs[0], vs[2]], [vs[1], vs[3]]
    with sg.GradientTape() as tape:
        h = X
        for i in range(len(Ws)):
            h = np.tanh(Ws[i] @ h + bs[i])
        loss = np.sum(h ** 2)
    return tape.gradient(loss, vs)


def an_item_by_a_local(vs):
    layers = [Dense(vs[0], vs[1]), Dense(vs[2], vs[3])]
    with sg.GradientTape() as tape:
        first = layers[0]
        last = layers[-1]
        loss = _net(first.W, first.b, last.W, last.b)
    return tape.gradient(loss, vs)


def generator_over_layers(vs):
    layers = [Dense(vs[0], vs[1]), Dense(vs[2], vs[3])]
    with sg.GradientTape() as tape:
        loss = _net(vs[0], vs[1], vs[2], vs[3]) + sum(1e-3 * np.sum(l.W ** 2) for l in layers)
    return tape.gradient(loss, vs)


def comprehensions_over_a_dict(vs):
    """Comprehensions (not loops) over the dict's keys, items and zip with its keys:
    refused before ("`params[k]` ... by an index known only when the code runs")."""
    params = {"W1": vs[0], "b1": vs[1], "W2": vs[2], "b2": vs[3]}
    with sg.GradientTape() as tape:
        loss = _net(*[params[k] for k in params])
        loss = loss + 1e-3 * sum(np.sum(params[k] ** 2) for k in params)
        squares = {k: np.sum(p ** 2) for k, p in params.items()}
        loss = loss + 1e-3 * (squares["W1"] + squares["b1"])
        loss = loss + 0.0 * np.sum([np.sum(p) for n, p in zip(params, params.values())])
    return tape.gradient(loss, vs)


CASES = [
    (comprehensions_over_a_dict, [w + 2e-3 * a + (2e-3 * a if k < 2 else 0.0)
                                  for k, (w, a) in enumerate(zip(WANT, ARRAYS))]),
    (layers_of_objects, WANT),
    (layers_of_dicts, WANT),
    (dict_by_keys, WANT),
    (dict_items_and_values, [w + 2e-3 * 2 * a for w, a in zip(WANT, ARRAYS)]),
    (by_range_of_len, WANT),
    (an_item_by_a_local, WANT),
    (generator_over_layers, [w + (2e-3 * a if k in (0, 2) else 0.0)
                             for k, (w, a) in enumerate(zip(WANT, ARRAYS))]),
]


@pytest.mark.parametrize("block, want", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_variables_reached_through_containers(block, want):
    got = block(_variables())
    assert all(g is not None for g in got)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("block, want", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_the_same_in_sg_function(block, want):
    got = sg.function(block)(_variables())
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_a_layer_not_trainable_or_changed_between_runs():
    vs = _variables()
    np.testing.assert_allclose(layers_of_objects(vs)[0], WANT[0], rtol=1e-10)
    frozen = [vs[0], vs[1], sg.Variable(ARRAYS[2], trainable=False), vs[3]]
    got = layers_of_objects(frozen)
    assert got[2] is None and got[3] is not None
    got = layers_of_objects([vs[0], vs[1], ARRAYS[2], vs[3]])  # a plain array: no gradient
    assert got[2] is None
    np.testing.assert_allclose(got[3], WANT[3], rtol=1e-10)


def _squares(params):
    with sg.GradientTape() as tape:
        y = np.sum(params["a"] ** 2) + np.sum(params["b"] ** 3)
    return tape.gradient(y, [params["a"], params["b"]])


def test_which_items_of_a_dict_are_variables_is_compiled_for():
    """The code was reused for a dict with the same keys and a Variable elsewhere."""
    one = np.ones(2)
    got = _squares({"a": sg.Variable(one), "b": one})
    assert got[1] is None
    np.testing.assert_allclose(got[0], 2 * one)
    got = _squares({"a": one, "b": sg.Variable(one)})
    assert got[0] is None
    np.testing.assert_allclose(got[1], 3 * one)
    assert _squares({"a": one, "b": one}) == [None, None]


class Holder:
    pass


def _watched_in_containers(ws, w):
    held = Holder()
    held.w = ws[1]
    params = {"first": ws[0], "second": ws[1]}
    with sg.GradientTape() as tape:
        tape.watch(w)
        y = 0.0
        for v in ws:
            y = y + np.sum(v ** 2)
        for k in params:
            y = y + np.sum(params[k] ** 3)
        for k, v in params.items():
            y = y + np.sum(np.sin(v))
        y = y + sum(np.sum(v ** 4) for v in params.values())
        for h in [held]:
            y = y + np.sum(h.w)
    return tape.gradient(y, w)


def test_a_watched_array_read_from_the_containers_holding_it():
    ws = [RNG.normal(size=2), RNG.normal(size=2)]
    w = ws[1]
    want = 2 * w + 3 * w ** 2 + np.cos(w) + 4 * w ** 3 + 1.0
    np.testing.assert_allclose(_watched_in_containers(ws, w), want, rtol=1e-10)
    np.testing.assert_allclose(sg.function(_watched_in_containers)(ws, w), want, rtol=1e-10)
    # Another list, the first item watched this time: compiled for that.
    other = [RNG.normal(size=2), RNG.normal(size=2)]
    u = other[0]
    want = 2 * u + 3 * u ** 2 + np.cos(u) + 4 * u ** 3
    np.testing.assert_allclose(_watched_in_containers(other, u), want, rtol=1e-10)


def _read_by_runtime_index(vs, i):
    with sg.GradientTape() as tape:
        y = np.sum(vs[i] ** 2)
    return tape.gradient(y, vs)


def test_a_read_by_an_index_known_only_when_running_is_refused():
    with pytest.raises(sg.CompileError, match=r"vs\[i\].*test_tape_container_loops.py:\d+"):
        _read_by_runtime_index(_variables(), 1)


class Shift:
    def __init__(self, b):
        self.b = b

    def __call__(self, x):
        return x + self.b


def _nested_through_a_method(model, x, v):
    b = model.b
    with sg.GradientTape() as outer:
        with sg.GradientTape() as inner:
            loss = np.sum(np.sin(model(x)) ** 3)
        g = inner.gradient(loss, b)
        gv = np.sum(g * v)
    return g, outer.gradient(gv, b)


def test_nested_tapes_reading_the_variable_in_a_method():
    """The inner gradient of a Variable the block reads as ``self.b`` in a called method
    was zeros, and so the Hessian-vector product (hunt 3): the nested block's adjoint of
    that read is the source's when it is that Variable."""
    x, v = np.array([1.0, 2.0]), np.array([0.3, -0.7])
    b0 = np.array([0.5, -1.0])

    def f(b):
        return np.sum(np.sin(x + b) ** 3)

    for run in (_nested_through_a_method, sg.function(_nested_through_a_method)):
        g, hv = run(Shift(sg.Variable(b0.copy())), x, v)
        np.testing.assert_allclose(g, sg.grad(f)(b0), rtol=1e-12)
        np.testing.assert_allclose(hv, sg.hessian(f)(b0) @ v, rtol=1e-10)


def _loop_with_break(vs):
    layers = [Dense(vs[0], vs[1]), Dense(vs[2], vs[3])]
    with sg.GradientTape() as tape:
        h = X
        for layer in layers:
            h = layer(h)
            if np.sum(h) > 100.0:
                break
        loss = np.sum(h ** 2)
    return tape.gradient(loss, vs)


def test_a_loop_over_layers_that_cannot_be_unrolled_is_refused():
    with pytest.raises(sg.CompileError, match=r"loop over `layers`.*break.*container_loops.py:\d+"):
        _loop_with_break(_variables())


class Named:
    def __init__(self, w):
        self.w = w
        self.name = "w"

    def weight(self):
        return getattr(self, "w")


def _by_getattr(model):
    with sg.GradientTape() as tape:
        y = np.sum(getattr(model, "w") * X) + np.sum(model.weight() ** 2) \
            + np.sum(getattr(model, "w", None) * X)
    return tape.gradient(y, model.w)


def _by_getattr_of_a_runtime_name(model):
    with sg.GradientTape() as tape:
        y = np.sum(getattr(model, model.name) * X)
    return tape.gradient(y, model.w)


def test_a_variable_read_by_getattr():
    """``getattr(m, "w")``, and ``getattr(m, "w", None)`` of an object that has ``w``, is
    the attribute read ``m.w`` (they gave None, hunt 3); by a name known only when
    running, refused."""
    w = np.array([0.3, 0.2, -0.5])
    for run in (_by_getattr, sg.function(_by_getattr)):
        np.testing.assert_allclose(run(Named(sg.Variable(w))), 2 * X + 2 * w, rtol=1e-12)
    with pytest.raises(sg.CompileError, match=r"getattr\(model, model.name\).*container_loops"):
        _by_getattr_of_a_runtime_name(Named(sg.Variable(w)))


def _activations_zipped(acts, vs):
    layers = [Dense(vs[0], vs[1]), Dense(vs[2], vs[3])]
    with sg.GradientTape() as tape:
        h = X
        for layer, act in zip(layers, acts):
            h = act(layer.W @ h + layer.b)
        loss = np.sum(h ** 2)
    return tape.gradient(loss, vs)


def test_layers_zipped_with_activations_held_in_a_list():
    """A local list of activation functions zipped with the layers: the loop was not
    unrolled and every gradient None (hunt 3)."""
    for run in (_activations_zipped, sg.function(_activations_zipped)):
        got = run([np.tanh, np.tanh], _variables())
        for g, w in zip(got, WANT):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
        other = run([np.tanh, np.sin], _variables())  # other functions: compiled for them
        assert not np.allclose(other[0], WANT[0])


def _zipped_with_a_generator(vs):
    with sg.GradientTape() as tape:
        y = 0.0
        for v, c in zip(vs, (c * 1.0 for c in range(4))):
            y = y + c * np.sum(v)
    return tape.gradient(y, vs)


def test_a_zip_over_variables_that_cannot_be_unrolled_is_refused():
    with pytest.raises(sg.CompileError, match=r"loop over `zip\(vs, .*container_loops"):
        _zipped_with_a_generator(_variables())


def _aliased(h):
    a = h
    return np.sum(a)


def _rebound_then_aliased(x):
    x = x * 1.0
    a = x
    return np.sum(x) + np.sum(a)


def test_another_name_for_a_variable_read_from_a_container():
    """``x = params[0]; h = x``: ``h`` was read as the Variable again, a second source the
    tape matched to nothing (None; fuzzer ``model`` form, 38 programs); through a
    layer's attribute, a rebound and aliased parameter lost one path ([1, 1] for [2, 2])."""
    w0 = np.array([0.5, -1.0])
    params = {"x": sg.Variable(w0)}
    layers = [Dense(sg.Variable(w0.copy()), None)]
    with sg.GradientTape(persistent=True) as tape:
        x = params["x"]
        h = x
        y1 = np.sum(h * h)
        y2 = _aliased(params["x"])
        y3 = _rebound_then_aliased(layers[0].W)
    np.testing.assert_allclose(tape.gradient(y1, params["x"]), 2 * w0)
    np.testing.assert_allclose(tape.gradient(y2, params)["x"], np.ones(2))
    np.testing.assert_allclose(tape.gradient(y3, layers[0].W), 2 * np.ones(2))


def test_augmented_assignments_after_a_loop_gathering_variables():
    """``for w in vs: args.append(w)`` then ``c += np.sum(args[0])``: the update was
    decided not differentiable before the loop was unrolled (None, zeros; fuzzer)."""
    y0 = np.array([2.0, 3.0, 4.0])
    vs = [sg.Variable(y0)]
    with sg.GradientTape(persistent=True) as tape:
        args = []
        for w in vs:
            args.append(w)
        c = 0.0
        c += np.sum(args[0] ** 2)
        a = args[0] * 1.0
        a += 2.0
        a[0] += 2.0
        d = np.sum(a * a)
    np.testing.assert_allclose(tape.gradient(c, vs[0]), 2 * y0)
    want = 2 * (y0 + 2.0 + np.array([2.0, 0.0, 0.0]))
    np.testing.assert_allclose(tape.gradient(d, vs[0]), want)


def _appended_in_the_block(x):
    acts = [np.tanh]
    with sg.GradientTape() as tape:
        tape.watch(x)
        acts.append(np.sin)
        h = x
        for a in acts:
            h = a(h)
        y = np.sum(h)
    return tape.gradient(y, x)


def _variables_appended_in_the_block(vs, w):
    with sg.GradientTape() as tape:
        vs.append(w)
        y = 0.0
        for v in vs:
            y = y + np.sum(v ** 2)
    return tape.gradient(y, w)


def test_a_container_the_block_changes_in_place_is_not_compiled_in():
    """A list the block appends to was unrolled as it was at the start (a function
    appended was skipped: a wrong gradient; a Variable appended: None). Refused now."""
    x = np.array([0.3, 0.5])
    with pytest.raises(sg.CompileError, match="which function `a` is"):
        _appended_in_the_block(x)
    with pytest.raises(sg.CompileError, match="a container the block changes in place"):
        _variables_appended_in_the_block([sg.Variable(np.ones(2))], sg.Variable(np.ones(2)))


def _add_activation(acts):
    acts.append(np.sin)


def _appended_by_a_helper(x):
    acts = [np.tanh]
    with sg.GradientTape() as tape:
        tape.watch(x)
        _add_activation(acts)
        h = x
        for a in acts:
            h = a(h)
        y = np.sum(h)
    return tape.gradient(y, x)


def test_a_container_a_called_helper_changes_is_refused():
    """The block's code is compiled for the list as it was at the start; a helper that
    appends to it would leave the unrolled loop reading the old items (a wrong gradient)."""
    with pytest.raises(sg.CompileError, match=r"`acts.append\(np.sin\)` changes a container"):
        _appended_by_a_helper(np.array([0.3, 0.5]))


def _watched_dict_comprehension(q):
    with sg.GradientTape() as tape:
        tape.watch(q)
        loss = sum(np.sum(q[k] ** 2) for k in q) + np.sum([np.sum(v ** 3) for v in q.values()])
    return tape.gradient(loss, q)


def test_comprehensions_over_a_watched_dict_of_arrays():
    q = {"a": np.array([1.0, 2.0]), "b": np.array([0.5])}
    for run in (_watched_dict_comprehension, sg.function(_watched_dict_comprehension)):
        got = run({k: v.copy() for k, v in q.items()})
        for k, v in q.items():
            np.testing.assert_allclose(got[k], 2 * v + 3 * v ** 2, rtol=1e-12)
