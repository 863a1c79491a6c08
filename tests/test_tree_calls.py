"""A gradient taking a parameter tree, called again and again with trees that change
between calls: keys in another order, another length, a leaf that is a container or
a NumPy float32 scalar, a flat tree after a nested one. Each call's gradient has its
own tree's structure and the values central differences give (the last call's
structure is matched without taking the tree apart: ``trees.leaves_as``)."""
import numpy as np
import pytest

import srcgrad as sg


def term(v, x):
    if isinstance(v, (list, tuple)):
        return np.sum(np.tanh(v[0] * x) ** 2) + np.sum(np.tanh(v[1] * x) ** 2)
    return np.sum(np.sin(v * x) * v)


def loss_of_dict(p, x):
    total = 0.0
    for k in p:
        total = total + term(p[k], x)
    return total


def loss_of_sequence(p, x):
    total = 0.0
    for v in p:
        total = total + term(v, x)
    return total


def loss(p, x):
    return (loss_of_dict if isinstance(p, dict) else loss_of_sequence)(p, x)


def leaves(tree):
    if isinstance(tree, dict):
        return [leaf for v in tree.values() for leaf in leaves(v)]
    if isinstance(tree, (list, tuple)):
        return [leaf for v in tree for leaf in leaves(v)]
    return [tree]


def fd(tree, x, eps=1e-6):
    """Central differences of ``loss`` at every leaf, in ``leaves`` order."""
    out = []
    for k, leaf in enumerate(leaves(tree)):
        grad = np.zeros(np.shape(leaf))
        for idx in np.ndindex(np.shape(leaf)):
            def moved(step):
                def swap(t):
                    if isinstance(t, dict):
                        return {key: swap(v) for key, v in t.items()}
                    if isinstance(t, (list, tuple)):
                        return type(t)(swap(v) for v in t)
                    swap.i += 1
                    if swap.i != k:
                        return t
                    a = np.array(t, dtype=float)
                    a[idx] += step
                    return a if np.ndim(t) else float(a)
                swap.i = -1
                return swap(tree)
            grad[idx] = (loss(moved(eps), x) - loss(moved(-eps), x)) / (2 * eps)
        out.append(grad)
    return out


def check(tree, g, x):
    assert type(g) is type(tree)
    if isinstance(tree, dict):
        assert list(g) == list(tree)
    for got, want in zip(leaves(g), fd(tree, x)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


def test_the_tree_changes_between_calls():
    x = np.array([0.3, -0.8, 1.1])
    a, b, c = np.array([0.5, 1.0, -0.2]), np.array([0.1, 0.2, 0.3]), np.array([-1.0, 0.4, 0.9])
    calls = [{"a": a, "b": b}, {"a": a, "b": b}, {"b": b, "a": a}, {"a": a, "b": b, "c": c},
             {"a": a, "b": b}, {"a": a, "b": [b, c]}, {"a": a, "b": b}, (a, b), (a, b, c),
             [a, b], (a, b), (a, [b, c]), {"a": a, "b": 0.7}, {"a": a, "b": b}]
    of_dict, of_sequence = sg.grad(loss_of_dict), sg.grad(loss_of_sequence)
    for tree in calls:
        check(tree, (of_dict if isinstance(tree, dict) else of_sequence)(tree, x), x)


def test_a_leaf_the_quick_match_does_not_take_is_still_refused_or_taken():
    x = np.array([0.3, -0.8, 1.1])
    a = np.array([0.5, 1.0, -0.2])
    g = sg.grad(loss_of_dict)
    check({"a": a, "b": a * 2}, g({"a": a, "b": a * 2}, x), x)
    with pytest.raises(TypeError, match="int"):
        g({"a": a, "b": 3}, x)
    out = g({"a": a, "b": np.float32(0.5)}, x)
    assert out["b"].dtype == np.float32
    check({"a": a, "b": a * 2}, g({"a": a, "b": a * 2}, x), x)
