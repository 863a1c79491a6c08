"""A parameter copied into its own name, ``p = dict(p)`` (or ``p.copy()``, ``{**p}``,
``list(p)``), then written into: the JAX-style way to update a parameter dict
locally. It was refused ("builds a dict ... whose keys srcgrad cannot tell"), or a
write into it refused as shared, while ``q = dict(p)`` compiled: one name for two
dicts. From the copy on the name is renamed (``passes/copied_params.py``); checked
against central differences, and the renaming only where nothing can see it.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

P = {"w": np.array([[0.3, -0.2], [0.1, 0.5]]), "b": np.array([0.1, -0.3])}
X = np.array([0.7, -1.1])


def dict_copied(p, x):
    p = dict(p)
    p["w"] = p["w"] * 2.0
    h = np.tanh(x @ p["w"] + p["b"])
    p["b"] = h
    return np.sum(p["b"] ** 2)


def dict_method_copied_in_a_loop(p, x):
    p = p.copy()
    for k in ("w", "b"):
        p[k] = p[k] * 1.5
    return np.sum(np.tanh(x @ p["w"] + p["b"]) ** 2)


def dict_spread(p, x):
    p = {**p}
    p["b"] = p["b"] + np.sum(p["w"], axis=0)
    return np.sum(np.sin(x @ p["w"] + p["b"]))


def list_copied(ps, x):
    ps = list(ps)
    ps[0] = ps[0] * 2.0
    return np.sum((x @ ps[0] + ps[1]) ** 2)


@pytest.mark.parametrize("f", [dict_copied, dict_method_copied_in_a_loop, dict_spread],
                         ids=lambda f: f.__name__)
def test_a_dict_parameter_copied_into_its_name(f):
    check_grads(f, (P, X.copy()), order=1)
    value, grads = sg.value_and_grad(f, wrt=(0, 1))(P, X.copy())
    assert value == pytest.approx(f(P, X.copy()), rel=1e-12)
    want = sg.grad(f, wrt=(0, 1))(P, X.copy())
    for k in P:
        np.testing.assert_allclose(grads[0][k], want[0][k], rtol=1e-12)
    np.testing.assert_allclose(grads[1], want[1], rtol=1e-12)


def test_a_list_parameter_copied_into_its_name():
    check_grads(list_copied, ([P["w"], P["b"]], X.copy()), order=1)


def test_second_order_through_the_copy():
    def outer(p, x):
        return np.sum(sg.grad(dict_copied, wrt=1)(p, x) ** 2)
    check_grads(outer, (P, X.copy()), order=1)


def test_the_generated_code_names_the_copy():
    text = sg.adjoint_source(dict_copied, args=(P, X.copy()))
    assert "p_copy = " in text and "p_copy['w']" in text.replace('"', "'")


def test_a_function_defined_before_reads_the_copy():
    """``read`` sees the copy when called after the rebinding (Python's closures):
    there the name is not renamed, and the closure's read is the new dict's."""
    def f(p, x):
        def read():
            return p["w"]
        p = dict(p)
        p["w"] = p["w"] * 2.0
        return np.sum(x @ read())
    np.testing.assert_allclose(sg.grad(f, wrt=1)(P, X.copy()), np.sum(2.0 * P["w"], axis=1),
                               rtol=1e-12)
