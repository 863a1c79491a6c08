"""A value a tape block watches on its first lines, read from a list, tuple or dict made
before the block through another name for it: a callee's parameter (``f(lst)``,
``loss(*args)``, ``loss(p, x)``), a copy (``l = lst``), an unpacking (``a, b = pair``).
TensorFlow matches the value itself, so each gives the gradient; srcgrad gave None,
silently (hunt 6 bug_02, bug_04): reads through the container were sources only by the
container's own name. And ``tape.watch(p["w"])`` first made every other read of ``p``
a refusal ("watched only further on").

Each case in plain code and in ``@sg.function``, the answer worked out by hand.
"""

import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_script_prints_ok

W = np.array([0.5, -1.0])
X = np.array([1.0, 2.0])


def _f(pair):
    return np.sum(pair[0] * pair[1])


def _loss(p, x):
    return np.sum(p["w"] * x) + np.sum(p["b"])


def list_passed_to_a_function(w, x):
    lst = [w, x]
    with sg.GradientTape() as tape:
        tape.watch(w)
        y = _f(lst)
    return tape.gradient(y, w)


def tuple_unpacked(w, x):
    pair = (w, x)
    with sg.GradientTape() as tape:
        tape.watch(w)
        a, b = pair
        y = np.sum(a * b)
    return tape.gradient(y, w)


def list_copied(w, x):
    lst = [w, x]
    with sg.GradientTape() as tape:
        tape.watch(w)
        other = lst
        y = np.sum(other[0] * other[1])
    return tape.gradient(y, w)


def dict_spread_into_a_call(w, x):
    p = {"w": w, "b": w[:1] * 0.0 + 0.5}
    args = (p, x)
    with sg.GradientTape() as tape:
        tape.watch(p)
        y = _loss(*args)
    return tape.gradient(y, p)["w"]


def leaf_watched_dict_passed(w, x):
    p = {"w": w, "b": np.array([0.5])}
    with sg.GradientTape() as tape:
        tape.watch(p["w"])
        y = _loss(p, x)
    return tape.gradient(y, p["w"])


CASES = [list_passed_to_a_function, tuple_unpacked, list_copied, dict_spread_into_a_call,
         leaf_watched_dict_passed]


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_the_watched_value_read_through_another_name(f, placement):
    run = f if placement == "plain" else sg.function(f)
    np.testing.assert_allclose(run(W.copy(), X.copy()), X, rtol=1e-14)


def test_other_items_of_a_container_a_leaf_of_which_is_watched_first():
    def f(p, x):
        with sg.GradientTape() as tape:
            tape.watch(p["w"])
            y = np.sum(p["w"] * x) + np.sum(p["b"] * 3.0)
        return tape.gradient(y, [p["w"], p["b"]])

    gw, gb = f({"w": W.copy(), "b": np.array([0.5])}, X)
    np.testing.assert_allclose(gw, X, rtol=1e-14)
    assert gb is None


def _spread_around(f, args, wrt):
    x = args[wrt]
    before, after = args[:wrt], args[wrt + 1:]
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(*before, x, *after)
    return tape.gradient(y, x)


def _product(a, b, c):
    return np.sum(a * b * c)


def test_a_call_spreading_tuples_around_the_watched_value():
    """``f(*before, x, *after)`` (hunt 6 bug_03): the count of ``before`` was taken as the
    arity less the two arguments after it, a TypeError when run. Tuples passed in are
    compiled for their lengths (cache._kind), so each spreads as many items as it holds;
    lists, whose length is not, are refused."""
    a, b, c = W.copy(), X.copy(), np.array([0.5, 0.25])
    np.testing.assert_allclose(_spread_around(_product, (a, b, c), 0), b * c, rtol=1e-14)
    np.testing.assert_allclose(_spread_around(_product, (a, b, c), 1), a * c, rtol=1e-14)
    np.testing.assert_allclose(_spread_around(_product, (a, b, c), 2), a * b, rtol=1e-14)
    with pytest.raises(sg.CompileError, match="how many items `before` holds"):
        _spread_around(_product, [a, b, c], 0)


def test_at_module_level(tmp_path):
    assert_script_prints_ok(tmp_path / "watched_through_copies.py", """
        import numpy as np
        import srcgrad as sg

        def f(l):
            return np.sum(l[0] * l[1])

        W = np.array([0.5, -1.0]); x = np.array([1.0, 2.0])
        lst = [W, x]
        pair = (W, x)
        with sg.GradientTape(persistent=True) as tape:
            tape.watch(W)
            y = f(lst)
            a, b = pair
            z = np.sum(a * b * 2.0)
        np.testing.assert_allclose(tape.gradient(y, W), x)
        np.testing.assert_allclose(tape.gradient(z, W), 2.0 * x)
        print("ok")
    """)
