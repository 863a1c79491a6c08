"""Parameter trees in the functional API (issue 13, section 1): a differentiated
argument may be any nesting of dict, list, tuple, namedtuple and dataclass of
float arrays and scalars; its gradient has the same structure (JAX's behaviour).
Every model is written in several styles a user writes, and each gradient is
checked against central finite differences of the leaves."""
import dataclasses
import typing
from collections import namedtuple

import numpy as np
import pytest

import srcgrad as sg

RNG = np.random.default_rng(7)
X = RNG.normal(size=(5, 3))
W1, B1 = RNG.normal(size=(3, 4)), RNG.normal(size=4)
W2, B2 = RNG.normal(size=(4, 2)), RNG.normal(size=2)

Layer = namedtuple("Layer", ["W", "b"])


@dataclasses.dataclass
class Params:
    W1: np.ndarray
    b1: np.ndarray
    scale: float


class Dense(typing.NamedTuple):
    W: np.ndarray
    b: np.ndarray


@dataclasses.dataclass(frozen=True)
class Frozen:
    W: np.ndarray
    b: np.ndarray


# ---- one model (a two-layer tanh network), written in the styles users write ----

def mlp_dict(params, X):
    h = np.tanh(X @ params["W1"] + params["b1"])
    return np.sum(np.tanh(h @ params["W2"] + params["b2"]) ** 2)


def mlp_dict_loop(params, X):
    total = 0.0
    for name in params:  # an L2 term over the dict's keys
        total = total + 0.01 * np.sum(params[name] ** 2)
    for name, value in params.items():
        total = total + 0.001 * np.sum(value)
    return total + mlp_dict(params, X)


def mlp_layers(layers, X):
    h = X
    for W, b in layers:
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)


def mlp_tuple(params, X):
    W1, b1, W2, b2 = params
    return mlp_layers([(W1, b1), (W2, b2)], X)


def mlp_nested(tree, X):
    first, second = tree["layers"]
    h = np.tanh(X @ first["W"] + first["b"])
    out = np.tanh(h @ second[0] + second[1])
    return np.sum(out ** 2) * tree["scale"]


def mlp_named(layers, X):
    h = X
    for layer in layers:
        h = np.tanh(h @ layer.W + layer.b)
    return np.sum(h ** 2)


def linear_dataclass(p, X):
    return p.scale * np.sum(np.tanh(X @ p.W1 + p.b1) ** 2)


def mlp_records_in_dict(model, X):
    """Records inside a dict, unpacked, read by attribute, rebuilt inside."""
    first, second = model["dense"], model["frozen"]
    W, b = first
    hidden = Frozen(np.tanh(X @ W + b), second.b)
    return np.sum(np.tanh(hidden.W @ second.W + hidden.b) ** 2) * model["scale"]


def _flat_loss(W1, b1, W2, b2, X):
    return mlp_layers([(W1, b1), (W2, b2)], X)


def _numeric(f, leaves, rebuild, eps=1e-6):
    """Central differences of ``f(rebuild(leaves))`` with respect to each leaf."""
    out = []
    for k, leaf in enumerate(leaves):
        leaf = np.asarray(leaf, dtype=float)
        g = np.zeros_like(leaf)
        for idx in np.ndindex(leaf.shape):
            for sign in (1, -1):
                moved = leaf.copy()
                moved[idx] += sign * eps
                args = list(leaves)
                args[k] = moved if np.ndim(leaves[k]) else float(moved)
                g[idx] += sign * f(rebuild(args)) / (2 * eps)
        out.append(g)
    return out


CASES = {
    "dict": (mlp_dict, {"W1": W1, "b1": B1, "W2": W2, "b2": B2},
             lambda v: {"W1": v[0], "b1": v[1], "W2": v[2], "b2": v[3]}),
    "dict-iterated": (mlp_dict_loop, {"W1": W1, "b1": B1, "W2": W2, "b2": B2},
                      lambda v: {"W1": v[0], "b1": v[1], "W2": v[2], "b2": v[3]}),
    "list-of-tuples": (mlp_layers, [(W1, B1), (W2, B2)],
                       lambda v: [(v[0], v[1]), (v[2], v[3])]),
    "tuple": (mlp_tuple, (W1, B1, W2, B2), tuple),
    "nested": (mlp_nested, {"layers": [{"W": W1, "b": B1}, (W2, B2)], "scale": 0.5},
               lambda v: {"layers": [{"W": v[0], "b": v[1]}, (v[2], v[3])], "scale": v[4]}),
    "namedtuples": (mlp_named, [Layer(W1, B1), Layer(W2, B2)],
                    lambda v: [Layer(v[0], v[1]), Layer(v[2], v[3])]),
    "dataclasses": (mlp_named, (Frozen(W1, B1), Frozen(W2, B2)),
                    lambda v: (Frozen(v[0], v[1]), Frozen(v[2], v[3]))),
    "dataclass": (linear_dataclass, Params(W1, B1, 1.5), lambda v: Params(*v)),
    "records-in-dict": (mlp_records_in_dict, {"dense": Dense(W1, B1), "frozen": Frozen(W2, B2),
                                              "scale": 0.5},
                        lambda v: {"dense": Dense(v[0], v[1]), "frozen": Frozen(v[2], v[3]),
                                   "scale": v[4]}),
}


def _leaves(tree):
    from srcgrad import trees
    return [leaf for _, leaf in trees.flatten(tree)[0]]


@pytest.mark.parametrize("style", sorted(CASES))
def test_gradient_of_a_tree_has_its_structure_and_matches_finite_differences(style):
    f, tree, rebuild = CASES[style]
    g = sg.grad(f)(tree, X)
    assert type(g) is type(tree)
    if isinstance(tree, dict):
        assert list(g) == list(tree)
    items = (lambda t: t.values() if isinstance(t, dict) else t if isinstance(t, (list, tuple))
             else vars(t).values())
    for got, given in zip(items(g), items(tree)):
        if not isinstance(given, (float, np.ndarray)):  # a list, tuple, dict or record
            assert type(got) is type(given)
    expected = _numeric(lambda t: f(t, X), _leaves(tree), rebuild)
    got = _leaves(g)
    assert len(got) == len(expected)
    for a, b, leaf in zip(got, expected, _leaves(tree)):
        assert np.shape(a) == np.shape(leaf)
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("style", sorted(CASES))
def test_value_and_grad_of_a_tree(style):
    f, tree, _ = CASES[style]
    value, g = sg.value_and_grad(f)(tree, X)
    assert value == pytest.approx(f(tree, X), rel=1e-12)
    for a, b in zip(_leaves(g), _leaves(sg.grad(f)(tree, X))):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_the_same_gradient_whatever_the_style():
    flat = sg.grad(_flat_loss, (0, 1, 2, 3))(W1, B1, W2, B2, X)
    for style in ("dict", "list-of-tuples", "tuple"):
        f, tree, _ = CASES[style]
        for a, b in zip(_leaves(sg.grad(f)(tree, X)), flat):
            np.testing.assert_allclose(a, b, rtol=1e-10)


def test_a_tree_beside_an_array_and_wrt_in_any_order():
    def loss(params, X):
        return mlp_layers(params, X)
    tree = [(W1, B1), (W2, B2)]
    gx, gp = sg.grad(mlp_layers, (1, 0))(tree, X)
    assert gx.shape == X.shape and isinstance(gp, list)
    expected = _numeric(lambda x: mlp_layers(tree, x[0]), [X], lambda v: v)[0]
    np.testing.assert_allclose(gx, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gp[1][0], sg.grad(mlp_layers)(tree, X)[1][0], rtol=1e-12)


def test_a_tree_in_a_method_and_with_a_keyword_argument():
    class Model:
        def __init__(self, scale):
            self.scale = scale

        def loss(self, params, X, *, power=2):
            return self.scale * np.sum(np.tanh(X @ params["W"] + params["b"]) ** power)

    model = Model(0.5)
    params = {"W": W1, "b": B1}
    g = sg.grad(model.loss)(params, X, power=3)
    expected = _numeric(lambda p: model.loss(p, X, power=3), [W1, B1],
                        lambda v: {"W": v[0], "b": v[1]})
    np.testing.assert_allclose(g["W"], expected[0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g["b"], expected[1], rtol=1e-6, atol=1e-8)


def test_a_tree_that_is_not_differentiated_is_data():
    config = {"scale": 2.0, "layers": [(W1, B1)]}

    def loss(x, config):
        return config["scale"] * mlp_layers(config["layers"], x)
    g = sg.grad(loss)(X, config)
    expected = _numeric(lambda x: loss(x[0], config), [X], lambda v: v)[0]
    np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-8)


def test_an_int_leaf_is_the_same_clear_type_error_as_a_top_level_int():
    with pytest.raises(TypeError, match=r"params\['n'\].*an int"):
        sg.grad(lambda params: params["x"] * params["n"])({"x": 1.0, "n": 3})


def test_another_structure_compiles_anew():
    f = sg.grad(mlp_layers)
    one = f([(W1, B1)], X)
    two = f([(W1, B1), (W2, B2)], X)
    assert len(one) == 1 and len(two) == 2
    np.testing.assert_allclose(one[0][0], sg.grad(lambda a, b, x: mlp_layers([(a, b)], x))(
        W1, B1, X), rtol=1e-12)


def test_structures_alternating_between_calls_each_get_their_gradient():
    """A call with the last call's structure reuses its code without taking the trees
    apart again (``Compiled._same_trees``); any difference (keys, their order, a length,
    a list for a tuple, an array for a tree) is another structure, another code."""
    f = sg.grad(mlp_dict_loop)
    ordered = {"W1": W1, "b1": B1, "W2": W2, "b2": B2}
    reordered = {"b2": B2, "W2": W2, "b1": B1, "W1": W1}  # (the dict loops see this order)
    scaled = {k: 1.5 * v for k, v in ordered.items()}
    for params in (ordered, reordered, ordered, scaled, reordered):
        got = f(params, X)
        assert list(got) == list(params)
        expected = _numeric(lambda leaves: mlp_dict_loop(dict(zip(params, leaves)), X),
                            list(params.values()), lambda v: v)
        for g, e in zip(got.values(), expected):
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)
    layers = sg.grad(mlp_layers)
    for tree in ([(W1, B1), (W2, B2)], [(W1, B1)], ((W1, B1), (W2, B2)), [[W1, B1], (W2, B2)],
                 [(W1, B1), (W2, B2)]):
        got = layers(tree, X)
        assert type(got) is type(tree) and len(got) == len(tree)
        assert [type(item) for item in got] == [type(item) for item in tree]
        flat = [leaf for item in tree for leaf in item]
        expected = _numeric(lambda leaves: mlp_layers(
            [tuple(leaves[k:k + 2]) for k in range(0, len(leaves), 2)], X), flat, lambda v: v)
        for g, e in zip([leaf for item in got for leaf in item], expected):
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)


def test_python_float_leaves_give_float_gradients():
    g = sg.grad(lambda p: p["a"] ** 2 * p["b"])({"a": 3.0, "b": 2.0})
    assert g == {"a": 12.0, "b": 9.0}
    assert all(type(v) in (float, np.float64) for v in g.values())


@pytest.mark.parametrize("style", ["namedtuples", "dataclass", "records-in-dict"])
def test_records_to_second_order(style):
    """check_grads: first order on the records, higher orders with each record as a dict
    of its fields built back into the record inside differentiated code."""
    from srcgrad.testing import check_grads

    f, tree, _ = CASES[style]
    check_grads(f, (tree, X), order=2, wrt=0)


@dataclasses.dataclass
class Derived:
    W: np.ndarray
    norm: float = dataclasses.field(init=False)

    def __post_init__(self):
        self.norm = float(np.sum(self.W ** 2))


class Checked(namedtuple("Checked", ["W", "b"])):
    def __new__(cls, W, b):
        return super().__new__(cls, np.asarray(W), np.asarray(b))


def test_records_that_are_not_their_fields_are_refused_with_a_remedy():
    """Rebuilt from its fields, such a record would not be the user's object: refused."""
    with pytest.raises(TypeError, match=r"p is a dataclass \(Derived\) that srcgrad cannot "
                                        r"rebuild.*dict"):
        sg.grad(lambda p, X: np.sum(X @ p.W))(Derived(W1), X)
    with pytest.raises(TypeError, match=r"layers\[0\] is a namedtuple \(Checked\)"):
        sg.grad(mlp_named)([Checked(W1, B1)], X)


def test_an_int_field_is_the_same_clear_type_error():
    with pytest.raises(TypeError, match=r"p\.scale.*an int"):
        sg.grad(linear_dataclass)(Params(W1, B1, 2), X)


def test_a_field_that_is_not_one_is_refused():
    def f(p, X):
        return np.sum(X @ p.W1) * p.missing

    with pytest.raises(sg.CompileError, match=r"`\.missing` of a `Params`.*not one of its fields"):
        sg.grad(f)(Params(W1, B1, 1.0), X)


def test_a_record_gradient_read_by_attribute_in_differentiated_code_is_refused():
    """sg.grad(f)(p).W inside code differentiated again: not followed yet, said so."""
    def g_norm(p, X):
        return np.sum(sg.grad(linear_dataclass)(p, X).W1 ** 2)

    with pytest.raises(sg.CompileError, match=r"attribute `\.\w+` of a differentiable value"):
        sg.grad(g_norm)(Params(W1, B1, 1.5), X)


def test_an_empty_tree_has_an_empty_gradient():
    def f(params, x):
        return np.sum(x ** 2) + sum(params)
    assert sg.grad(f)([], X) == []
    value, g = sg.value_and_grad(f)((), X)
    assert g == () and value == pytest.approx(np.sum(X ** 2))


def _grad_norm_dict(params, X):
    g = sg.grad(mlp_dict)(params, X)
    return np.sum(g["W1"] ** 2) + np.sum(g["b2"])


def _grad_norm_layers(layers, X):
    g = sg.grad(mlp_layers)(layers, X)
    return np.sum(g[0][0] ** 2) + np.sum(g[1][1])


@pytest.mark.parametrize("f, style", [(_grad_norm_dict, "dict"),
                                      (_grad_norm_layers, "list-of-tuples")])
def test_second_order_through_a_tree(f, style):
    """The inner gradient of a tree, differentiated again (a list of (W, b) pairs once
    had its items' adjoints added with ``+=``, which concatenates tuples)."""
    _, tree, rebuild = CASES[style]
    g = sg.grad(f)(tree, X)
    expected = _numeric(lambda t: f(t, X), _leaves(tree), rebuild)
    for a, b in zip(_leaves(g), expected):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def _sorted_l2(params, X):
    total = 0.0
    for name in sorted(params):
        total = total + (len(name) + 1.0) * np.sum(params[name] ** 2)
    for name in list(params.keys()):
        total = total + 0.5 * np.sum(params[name])
    return total + mlp_dict(params, X)


def test_loops_over_sorted_and_listed_keys_of_a_dict_tree():
    f, tree, rebuild = _sorted_l2, CASES["dict"][1], CASES["dict"][2]
    g = sg.grad(f)(tree, X)
    expected = _numeric(lambda t: f(t, X), _leaves(tree), rebuild)
    for a, b in zip(_leaves(g), expected):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def test_iterating_a_list_as_if_it_were_a_dict_raises_rather_than_guessing():
    from srcgrad import runtime
    with pytest.raises(TypeError, match="over a dict's keys"):
        runtime.dict_keys([1.0, 2.0])


class TestFoundByCheckingTreesToSecondOrder:
    """Silent wrong answers found while teaching check_grads to take trees."""

    def test_an_inner_gradient_of_a_tuple_read_by_keys_in_a_loop(self):
        paths, directions = [(0,), (1,)], [np.array([0.3, -1.0, 0.5]), np.array([1.0, 2.0, -0.5])]

        def pair_loss(t):
            a, b = t
            return np.sum(a * b) + t[0][0]

        def projected(t):
            g = sg.grad(pair_loss)(t)
            total = 0.0
            for path, w in zip(paths, directions):
                leaf = g
                for key in path:
                    leaf = leaf[key]
                total = total + np.sum(leaf * w)
            return total

        a, b = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
        got = sg.grad(projected)((a, b))
        # d/da <grad_a, u0> + <grad_b, u1> = u1, d/db = u0 (grad_a = b + e0, grad_b = a)
        np.testing.assert_allclose(got[0], directions[1])
        np.testing.assert_allclose(got[1], directions[0])

    def test_a_name_bound_to_a_list_and_to_its_items_is_refused_not_repeated(self):
        def f(x, y):
            g = [x, y]
            total = 0.0
            for key in (0, 1):
                leaf = g
                leaf = leaf[key]
                total = total + np.sum(leaf * 2.0)
            return total
        with pytest.raises(sg.CompileError, match="holds a list or tuple at one point"):
            sg.grad(f, (0, 1))(np.ones(3), np.ones(3))


@pytest.mark.parametrize("style", sorted(CASES))
def test_check_grads_takes_trees_to_second_order(style):
    from srcgrad.testing import check_grads
    f, tree, _ = CASES[style]
    check_grads(f, (tree, X), wrt=0, order=2)


def test_an_unused_key_gets_zeros():
    def f(d):
        return np.sum(d["a"]) + 2.0 * np.sum(d["b"])
    g = sg.grad(f)({"a": np.ones(2), "b": np.ones(3), "unused": np.ones((2, 2))})
    np.testing.assert_array_equal(g["unused"], np.zeros((2, 2)))
    np.testing.assert_array_equal(g["b"], 2.0 * np.ones(3))


def _taped_records(dense, frozen):
    with sg.GradientTape() as tape:
        tape.watch(frozen)
        loss = mlp_records_in_dict({"dense": dense, "frozen": frozen, "scale": 0.5}, X)
    return tape.gradient(loss, {"dense": dense, "frozen": frozen})


@pytest.mark.parametrize("form", ["plain", "function"])
def test_records_as_tape_sources_have_their_structure(form):
    """Variables in a namedtuple (watched as trainable) and a watched dataclass: the
    gradient has the sources' structure, and sg.grad's values."""
    dense = Dense(sg.Variable(W1), sg.Variable(B1))
    frozen = Frozen(W2.copy(), B2.copy())
    run = _taped_records if form == "plain" else sg.function(_taped_records)
    g = run(dense, frozen)
    want = sg.grad(mlp_records_in_dict)({"dense": Dense(W1, B1), "frozen": Frozen(W2, B2),
                                         "scale": 0.5}, X)
    assert type(g["dense"]) is Dense and type(g["frozen"]) is Frozen
    for got, expected in zip(_leaves(g), _leaves({"dense": want["dense"],
                                                  "frozen": want["frozen"]})):
        np.testing.assert_allclose(got, expected, rtol=1e-10)


# A dataclass whose field is a list of layers of different shapes (hunt 9: the adjoint of
# the field, a list of records, was read for its shape: a crash).
class DenseLayer(typing.NamedTuple):
    W: np.ndarray
    b: np.ndarray


@dataclasses.dataclass
class Stack:
    layers: typing.List[DenseLayer]
    temperature: float


def stack_loss(model, X):
    h = X
    for layer in model.layers:
        h = np.tanh(h @ layer.W + layer.b)
    return np.sum(h) / model.temperature


def test_a_dataclass_holding_layers_of_different_shapes():
    rng = np.random.default_rng(0)
    net = Stack([DenseLayer(rng.standard_normal((3, 4)) * 0.5, np.zeros(4)),
                 DenseLayer(rng.standard_normal((4, 2)) * 0.5, np.zeros(2))], 1.5)
    X = rng.standard_normal((5, 3))
    g = sg.grad(stack_loss)(net, X)
    value, same = sg.value_and_grad(stack_loss)(net, X)
    assert value == pytest.approx(stack_loss(net, X))
    eps = 1e-6
    for k, layer in enumerate(net.layers):
        for field in ("W", "b"):
            leaf = getattr(layer, field)
            step = np.zeros_like(leaf)
            step.flat[1] = eps

            def moved(sign):
                layers = list(net.layers)
                layers[k] = layer._replace(**{field: leaf + sign * step})
                return stack_loss(Stack(layers, 1.5), X)
            fd = (moved(1) - moved(-1)) / (2 * eps)
            for grads in (g, same):
                assert getattr(grads.layers[k], field).flat[1] == pytest.approx(fd, rel=1e-6)
