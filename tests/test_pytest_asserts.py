"""Functions with an ``assert`` in a test module (``compiler/source._as_pytest_compiles``).

pytest compiles the asserts of a test module into its own code, so the code Python
runs is not what the text on disk compiles to. srcgrad compares the two before it
reads a function's text (a function edited since it was defined is refused), and
refused every function with an ``assert`` in a test file: "the source has changed".
It now also compares with the text compiled as pytest rewrites it. This module is
such a test module: the functions below are rewritten by pytest as any user's are.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_every_form, taped

X = np.array([0.4, -1.3, 0.9])


def checked_energy(x):
    assert x.ndim == 1, "a vector"
    assert len(x) == 3
    return np.sum(np.sin(x) * x ** 2)


def checked_helper(v):
    assert np.all(np.isfinite(v)), f"not finite: {v}"
    return v * np.cos(v)


def calls_checked_helper(x):
    y = checked_helper(x)
    assert y.shape == x.shape
    return np.sum(y ** 2)


def test_function_with_asserts_in_every_form():
    assert_every_form(checked_energy, X.copy())


def test_helper_with_asserts_inlined():
    check_grads(calls_checked_helper, (X.copy(),), order=2)
    np.testing.assert_allclose(sg.function(taped)(calls_checked_helper, X.copy()),
                               sg.grad(calls_checked_helper)(X.copy()), rtol=1e-12)


def test_an_assert_that_fails_still_raises():
    with pytest.raises(AssertionError, match="a vector"):
        sg.grad(checked_energy)(np.ones((2, 3)))


def test_nested_def_with_assert():
    def loss(w):
        assert w.size == 3, "three weights"
        return np.sum(np.tanh(w) ** 2)

    check_grads(loss, (X.copy(),), order=2)
    with sg.GradientTape() as tape:
        tape.watch(X)
        assert X.shape == (3,)
        y = loss(X)
    np.testing.assert_allclose(tape.gradient(y, X), sg.grad(loss)(X), rtol=1e-12)


def test_a_function_changed_on_disk_is_still_refused(tmp_path, monkeypatch):
    path = tmp_path / "edited_with_assert.py"
    path.write_text("import numpy as np\n\ndef f(x):\n    assert x.ndim == 1\n"
                    "    return np.sum(x ** 2)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    module = importlib.import_module("edited_with_assert")
    path.write_text("import numpy as np\n\ndef f(x):\n    assert x.ndim == 1\n"
                    "    return np.sum(x ** 3)\n")
    with pytest.raises(sg.SourceUnavailableError, match="has changed"):
        sg.grad(module.f)(X.copy())
