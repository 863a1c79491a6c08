"""Records (typing.NamedTuple, collections.namedtuple, dataclass) inside lists, tuples and
dicts of a differentiated argument, nested any way the SPEC names (hunt 9: a dict of a list
of records, and a watched dataclass holding a list of NamedTuples, were refused with
"attribute `.W` of a differentiable value has no derivative rule").

Each model is written in several styles (a loop over the list, constant indices
``p["layers"][0].W``, enumerate, a generator expression, a ``while`` loop) for each kind of
record, and checked in every form: sg.grad and value_and_grad against central differences
of every leaf, sg.jvp, a tape in plain code and in @sg.function, and second order
(check_grads order=2 and sg.hvp against differences of the gradient). Gradients have the
input's structure, record classes included, as JAX gives them."""
import dataclasses
import typing
from collections import namedtuple

import numpy as np
import pytest

import srcgrad as sg
from srcgrad import trees
from srcgrad.testing import check_grads

X = np.array([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.9]])


class NTLayer(typing.NamedTuple):
    W: np.ndarray
    b: np.ndarray


CNLayer = namedtuple("CNLayer", "W b")


@dataclasses.dataclass
class DCLayer:
    W: np.ndarray
    b: np.ndarray


@dataclasses.dataclass(frozen=True)
class FrozenLayer:
    W: np.ndarray
    b: np.ndarray


LAYERS = [NTLayer, CNLayer, DCLayer, FrozenLayer]


class NTStack(typing.NamedTuple):
    layers: list
    c: float


@dataclasses.dataclass
class DCNet:
    layers: list
    c: float


@dataclasses.dataclass
class Params:
    beta: float
    g: np.ndarray


# ---- models, each in the styles users write ----

def dict_loop(p):
    h = X
    for L in p["layers"]:
        h = np.tanh(h @ L.W + L.b)
    return np.sum(h) + p["c"] ** 2


def dict_index(p):
    h = np.tanh(X @ p["layers"][0].W + p["layers"][0].b)
    h = np.tanh(h @ p["layers"][-1].W + p["layers"][1].b)
    return np.sum(h) * p["c"]


def dict_enumerate(p):
    total = 0.0
    for i, L in enumerate(p["layers"]):
        total = total + (i + 1) * np.sum(np.sin(L.W)) + np.sum(L.b ** 2)
    return total * p["c"]


def dict_generator(p):
    return sum(np.sum(L.W * L.b) for L in p["layers"]) + np.sin(p["c"])


def dict_while(p):
    h = X
    i = 0
    while i < len(p["layers"]):
        L = p["layers"][i]
        h = np.tanh(h @ L.W + L.b)
        i += 1
    return np.sum(h ** 2) * p["c"]


def list_of_dicts(p):
    total = 0.0
    for d in p:
        total = total + np.sum(np.tanh(X @ d["L"].W + d["L"].b)) * d["s"]
    return total


def dict_of_dicts(p):
    return np.sum(np.sin(p["a"]["x"].W)) * p["a"]["y"] + np.sum(p["b"].b ** 3)


def dict_values(p):
    total = 0.0
    for L in p.values():
        total = total + np.sum(L.W ** 2) * np.sum(L.b)
    return total


def holder_loop(m):
    h = X
    for L in m.layers:
        h = np.tanh(h @ L.W + L.b)
    return np.sum(h) * m.c


def holder_index(m):
    h = np.tanh(X @ m.layers[0].W + m.layers[0].b)
    return np.sum(np.tanh(h @ m.layers[1].W + m.layers[-1].b)) * m.c


def dict_of_holder(p):
    return holder_loop(p["net"]) + p["k"] * np.sum(p["net"].layers[0].b)


def ode_euler(p):
    """A dataclass read as p.beta inside the loop of an Euler integration."""
    y = np.array([1.0, 0.5])
    for _ in range(20):
        y = y + 0.05 * (-p.beta * y + np.tanh(p.g * y))
    return np.sum(y ** 2)


def _layers(cls, seed, n=2):
    rng = np.random.default_rng(seed)
    return [cls(rng.standard_normal((2, 2)), rng.standard_normal(2)) for _ in range(n)]


def _cases():
    out = {}
    for cls in LAYERS:
        n = cls.__name__
        out[f"dict-loop-{n}"] = (dict_loop, {"layers": _layers(cls, 1), "c": 0.7})
        out[f"dict-index-{n}"] = (dict_index, {"layers": _layers(cls, 2), "c": 0.7})
        out[f"dict-enumerate-tuple-{n}"] = (dict_enumerate,
                                            {"layers": tuple(_layers(cls, 3)), "c": 0.7})
        out[f"dict-generator-{n}"] = (dict_generator, {"layers": _layers(cls, 4), "c": 0.7})
        out[f"dict-while-{n}"] = (dict_while, {"layers": _layers(cls, 5), "c": 0.7})
        out[f"list-of-dicts-{n}"] = (list_of_dicts, [{"L": L, "s": 0.5 + k}
                                                     for k, L in enumerate(_layers(cls, 6))])
        first, second = _layers(cls, 7)
        out[f"dict-of-dicts-{n}"] = (dict_of_dicts, {"a": {"x": first, "y": 1.3}, "b": second})
        out[f"dict-values-{n}"] = (dict_values, dict(zip("ab", _layers(cls, 8))))
        for holder in (NTStack, DCNet):
            h = holder.__name__
            out[f"{h}-loop-{n}"] = (holder_loop, holder(_layers(cls, 9), 0.8))
            out[f"{h}-index-{n}"] = (holder_index, holder(_layers(cls, 10), 0.8))
        out[f"dict-of-DCNet-{n}"] = (dict_of_holder, {"net": DCNet(_layers(cls, 11), 0.8),
                                                      "k": 0.3})
    out["ode-euler-dataclass"] = (ode_euler, Params(0.6, np.array([0.9, -0.4])))
    return out


CASES = _cases()
# Every nesting of every record kind by sg.grad and value_and_grad; of a NamedTuple and a
# dataclass in the other forms (the kinds differ in how they are read, not in the forms);
# a representative of each style to second order (CI time).
CORE = sorted(k for k in CASES if k.endswith(("NTLayer", "DCLayer", "dataclass")))
SECOND = sorted(k for k in CASES if k.endswith("NTLayer") and ("loop" in k or "index" in k)
                or k.endswith("DCLayer") and "dicts" in k or "ode" in k)


def _fd_leaves(f, tree, eps=1e-6):
    """Central differences of f with respect to each leaf of the tree, as a list."""
    pairs, treedef = trees.flatten(tree)
    leaves = [np.asarray(v, dtype=float) for _, v in pairs]
    out = []
    for k, leaf in enumerate(leaves):
        g = np.zeros_like(leaf)
        for idx in np.ndindex(leaf.shape):
            for sign in (1, -1):
                moved = [v.copy() for v in leaves]
                moved[k][idx] += sign * eps
                args = [m if np.ndim(pairs[j][1]) else float(m) for j, m in enumerate(moved)]
                g[idx] += sign * f(trees.unflatten(treedef, args)) / (2 * eps)
        out.append(g)
    return out


def _same_structure(got, like):
    """The same tree, record classes included (Treedef holds each node's class)."""
    assert trees.flatten(got)[1] == trees.flatten(like)[1], (got, like)


def _assert_leaves_close(got, want, rtol=1e-6, atol=1e-8):
    got = trees.leaves(got)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, dtype=float), w, rtol=rtol, atol=atol)


def _taped(f, tree):
    with sg.GradientTape() as tape:
        tape.watch(tree)
        loss = f(tree)
    return tape.gradient(loss, tree)


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_and_value_and_grad_have_the_structure_and_match_differences(name):
    f, tree = CASES[name]
    want = _fd_leaves(f, tree)
    g = sg.grad(f)(tree)
    _same_structure(g, tree)
    _assert_leaves_close(g, want)
    value, g2 = sg.value_and_grad(f)(tree)
    assert value == pytest.approx(f(tree), rel=1e-12)
    _same_structure(g2, tree)
    _assert_leaves_close(g2, trees.leaves(g), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", CORE)
def test_jvp_along_a_tree_tangent(name):
    f, tree = CASES[name]
    rng = np.random.default_rng(5)
    pairs, treedef = trees.flatten(tree)
    dots = [rng.standard_normal(np.shape(v)) if np.ndim(v) else float(rng.standard_normal())
            for _, v in pairs]
    tangent = trees.unflatten(treedef, dots)
    value, derivative = sg.jvp(f, (tree,), (tangent,))
    eps = 1e-6

    def moved(s):
        return f(trees.unflatten(treedef, [v + s * eps * t for (_, v), t in zip(pairs, dots)]))
    assert value == pytest.approx(f(tree), rel=1e-12)
    assert float(derivative) == pytest.approx((moved(1) - moved(-1)) / (2 * eps),
                                              rel=1e-6, abs=1e-8)
    reverse = sum(float(np.sum(g * t)) for g, t in zip(trees.leaves(sg.grad(f)(tree)), dots))
    assert float(derivative) == pytest.approx(reverse, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("form", ["plain", "function"])
@pytest.mark.parametrize("name", CORE)
def test_a_tape_watching_the_tree(name, form):
    f, tree = CASES[name]
    run = _taped if form == "plain" else sg.function(_taped)
    g = run(f, tree)
    _same_structure(g, tree)
    _assert_leaves_close(g, trees.leaves(sg.grad(f)(tree)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", SECOND)
def test_second_order(name):
    f, tree = CASES[name]
    check_grads(f, (tree,), order=2)
    rng = np.random.default_rng(9)
    pairs, treedef = trees.flatten(tree)
    dots = [rng.standard_normal(np.shape(v)) if np.ndim(v) else float(rng.standard_normal())
            for _, v in pairs]
    v = trees.unflatten(treedef, dots)
    hv = sg.hvp(f)(tree, v)
    _same_structure(hv, tree)
    eps = 1e-5

    def grad_at(s):
        return trees.leaves(sg.grad(f)(trees.unflatten(
            treedef, [x + s * eps * t for (_, x), t in zip(pairs, dots)])))
    numeric = [(a - b) / (2 * eps) for a, b in zip(grad_at(1), grad_at(-1))]
    _assert_leaves_close(hv, numeric, rtol=1e-5, atol=1e-7)


def test_the_same_gradient_whatever_the_style():
    layers = _layers(NTLayer, 12)
    by_loop = sg.grad(dict_loop)({"layers": layers, "c": 0.7})

    def by_index(p):
        h = np.tanh(X @ p["layers"][0].W + p["layers"][0].b)
        return np.sum(np.tanh(h @ p["layers"][1].W + p["layers"][1].b)) + p["c"] ** 2
    same = sg.grad(by_index)({"layers": layers, "c": 0.7})
    _assert_leaves_close(same, trees.leaves(by_loop), rtol=1e-12, atol=1e-14)
    def from_dicts(p):  # records built inside from dicts of their fields
        first, second = p["layers"]
        return dict_loop({"layers": [NTLayer(first["W"], first["b"]),
                                     NTLayer(W=second["W"], b=second["b"])], "c": p["c"]})
    as_dicts = sg.grad(from_dicts)(
        {"layers": [L._asdict() for L in layers], "c": 0.7})
    _assert_leaves_close(as_dicts, trees.leaves(by_loop), rtol=1e-12, atol=1e-14)


def test_another_record_class_in_the_same_place_compiles_anew():
    """The code is specialised on where records are and their classes: a watched list of
    another NamedTuple class with the same fields (its property computes otherwise) is
    not given the first class's code (it was: the first class's gradient, silently)."""
    class A(typing.NamedTuple):
        W: np.ndarray

        @property
        def V(self):
            return 2.0 * self.W

    class B(typing.NamedTuple):
        W: np.ndarray

        @property
        def V(self):
            return 3.0 * self.W

    def f(layers):
        total = 0.0
        for L in layers:
            total = total + np.sum(L.V * L.W)
        return total

    W = np.array([1.0, 2.0])
    for run in (_taped, sg.function(_taped)):
        for cls, k in ((A, 2.0), (B, 3.0), (A, 2.0)):
            g = run(f, [cls(W)])
            assert type(g[0]) is cls
            np.testing.assert_allclose(g[0].W, 2 * k * W)
            holder = NTStack([cls(W)], 1.0)
            g = run(lambda m: f(m.layers) * m.c, holder)
            assert type(g.layers[0]) is cls
            np.testing.assert_allclose(g.layers[0].W, 2 * k * W)


def test_records_of_different_classes_read_at_a_runtime_index_are_refused():
    mixed = {"layers": [NTLayer(*_layers(NTLayer, 13)[0]), DCLayer(*_layers(NTLayer, 13)[1])],
             "c": 0.7}
    with pytest.raises(sg.CompileError, match=r"holds records of different kinds "
                                              r"\(DCLayer, NTLayer\).*records of one class"):
        sg.grad(dict_loop)(mixed)

    def by_index(p):  # constant indices: each item's class is known
        h = np.tanh(X @ p["layers"][0].W + p["layers"][0].b)
        return np.sum(np.tanh(h @ p["layers"][1].W + p["layers"][1].b)) + p["c"] ** 2
    g = sg.grad(by_index)(mixed)
    _same_structure(g, mixed)
    _assert_leaves_close(g, _fd_leaves(by_index, mixed))
