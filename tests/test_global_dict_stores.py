"""Helpers that store activations in a module's dict by a key known when the code runs
(``CACHE[name] = out``), read back by constant keys. The record saved the slot before
the write as ``CACHE[name]``: a KeyError while the dict lacked the key (the first call).
It is saved as missing and taken out again when restored; the dict is left as Python
leaves it. The functional forms from an empty dict, against central differences; a tape
block writing into a module's container is refused (its backward code would take the
writes back).
"""
import numpy as np
import pytest

import srcgrad as sg

CACHE = {}


def _layer(v, name):
    out = np.tanh(v)
    CACHE[name] = out
    return out


def cached_activations(x):
    h = _layer(x, "l1")
    h = _layer(h * 2.0, "l2")
    return np.sum(CACHE["l1"] * CACHE["l2"])


def _fd(x, eps=1e-6):
    return np.array([(cached_activations(x + eps * e) - cached_activations(x - eps * e))
                     / (2 * eps) for e in np.eye(3)])


def _taped(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = cached_activations(x)
    return tape.gradient(y, x)


FORMS = {
    "grad": lambda x: sg.grad(cached_activations)(x),
    "value_and_grad": lambda x: sg.value_and_grad(cached_activations)(x)[1],
    "jvp": lambda x: np.array([sg.jvp(cached_activations, (x,), (e,))[1] for e in np.eye(3)]),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_from_an_empty_dict(form):
    x = np.array([0.3, -0.7, 1.1])
    CACHE.clear()
    g = FORMS[form](x.copy())
    assert sorted(CACHE) == ["l1", "l2"]  # (as the call left it)
    np.testing.assert_allclose(CACHE["l2"], np.tanh(2.0 * np.tanh(x)), rtol=1e-12)
    np.testing.assert_allclose(g, _fd(x), rtol=1e-6)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_tape_refuses_it_clearly(placement):
    """(A tape's backward code takes the block's writes back from what it recorded: from
    a module's dict, that would change what the block left there.)"""
    CACHE.clear()
    with pytest.raises(sg.CompileError, match="writes a differentiable value into a module"):
        (sg.function(_taped) if placement == "function" else _taped)(np.array([0.3, -0.7, 1.1]))
