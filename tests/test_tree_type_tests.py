"""``isinstance(p, dict)`` on a parameter tree: a function written for several kinds of
tree (a dict of parameters or a tuple/list of them) compiles the branch for the kind
it is given only, so the other branch's reads (``p[k]`` for ``k`` over a tuple's
arrays, an append to an alias) are not refused. Checked against central differences
in every form, with the tree as a dict, a tuple and a list."""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([0.5, -0.25, 1.5])
A, B = np.array([1.0, 2.0, -0.5]), np.array([0.3, -0.7, 0.2])


def by_kind(p, x):
    total = 0.0
    if isinstance(p, dict):
        for k in p:
            total = total + np.sum(np.sin(p[k]) * x)
    else:
        for v in p:
            total = total + np.sum(np.sin(v) * x)
    return total


def by_kinds(p, x):
    if isinstance(p, (list, tuple)):
        values = p
    else:
        values = [p[k] for k in p]
    total = 0.0
    for v in values:
        total = total + np.sum(v * v * x)
    return total


def not_a_tree(p, x):
    """``isinstance`` of a plain value stays a test when the code runs."""
    if isinstance(p, np.ndarray):
        return np.sum(p * x)
    return p * np.sum(x)


TREES = [{"a": A, "b": B}, (A, B), [A, B]]


def leaves(p):
    return list(p.values()) if isinstance(p, dict) else list(p)


def central(f, p, x, eps=1e-6):
    out = []
    for i, leaf in enumerate(leaves(p)):
        g = np.zeros_like(leaf)
        for j in range(leaf.size):
            step = np.zeros_like(leaf)
            step[j] = eps
            moved = [lv + step if k == i else lv for k, lv in enumerate(leaves(p))]
            down = [lv - step if k == i else lv for k, lv in enumerate(leaves(p))]
            g[j] = (f(rebuild(p, moved), x) - f(rebuild(p, down), x)) / (2 * eps)
        out.append(g)
    return out


def rebuild(p, values):
    return dict(zip(p, values)) if isinstance(p, dict) else type(p)(values)


@pytest.mark.parametrize("f", [by_kind, by_kinds])
@pytest.mark.parametrize("tree", TREES, ids=["dict", "tuple", "list"])
def test_grad_and_value_and_grad(f, tree):
    g = sg.grad(f)(tree, X)
    assert type(g) is type(tree)
    for got, want in zip(leaves(g), central(f, tree, X)):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
    value, g2 = sg.value_and_grad(f)(tree, X)
    assert value == pytest.approx(f(tree, X), rel=1e-14)
    for a, b in zip(leaves(g2), leaves(g)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("tree", TREES, ids=["dict", "tuple", "list"])
def test_jvp_and_hvp(tree):
    tangent = rebuild(tree, [np.ones(3), np.full(3, 0.5)])
    _, t = sg.jvp(by_kind, (tree, X), (tangent, np.zeros(3)))
    want = sum(np.sum(g * d) for g, d in zip(central(by_kind, tree, X), leaves(tangent)))
    assert t == pytest.approx(want, rel=1e-7)


@pytest.mark.parametrize("form", ["plain", "function"])
@pytest.mark.parametrize("tree", TREES, ids=["dict", "tuple", "list"])
def test_tape(form, tree):
    def taped(p, x):
        sources = leaves(p)
        with sg.GradientTape() as tape:
            tape.watch(sources)
            y = by_kind(p, x)
        return tape.gradient(y, sources)

    run = taped if form == "plain" else sg.function(taped)
    for got, want in zip(run(tree, X), central(by_kind, tree, X)):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


def test_a_plain_value_keeps_its_run_time_test():
    np.testing.assert_allclose(sg.grad(not_a_tree)(A, X), X)
    assert sg.grad(not_a_tree)(2.0, X) == pytest.approx(np.sum(X))
