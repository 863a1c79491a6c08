"""A dict filled in a loop by keys known only when running (``d["k%d" % i] = ...``,
``d[i] = ...``, ``for k in ("a", "b"): d[k] = ...``): the forward code snapshot the
slot before each write as ``d[k]``, a KeyError for a key the write adds (hunt 3, in
every form). The slot is now saved as missing and taken out again, as for a constant
key. Checked against central differences in every form."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree


def formatted_keys(x):
    d = {}
    for i in range(3):
        d["k%d" % i] = x[i] ** 2
    return d["k0"] * d["k2"] + d["k1"]


def int_keys(x):
    d = {}
    for i in range(3):
        d[i] = np.sin(x[i]) * x[(i + 1) % 3]
    total = 0.0
    for i in range(3):
        total = total + d[i] ** 2
    return total


def keys_from_a_tuple_written_twice(x):
    d = {"a": x[2]}
    for k in ("a", "b", "a"):
        d[k] = d.get(k, 1.0) * x[0] * 2.0
    return d["a"] + d["b"] * x[1]


CASES = [formatted_keys, int_keys, keys_from_a_tuple_written_twice]
X = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_against_central_differences_to_second_order(f):
    check_grads(f, (X,), order=2)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_every_form_agrees(f):
    assert_forms_agree(f, (X,), nonzero=True)


def test_persistent_tape_twice():
    want = sg.grad(formatted_keys)(X)
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(X)
        y = formatted_keys(X)
    for _ in range(2):
        np.testing.assert_allclose(tape.gradient(y, X), want, rtol=1e-12)
    np.testing.assert_allclose(want, [2 * X[0] * X[2] ** 2, 2 * X[1], 2 * X[2] * X[0] ** 2])
