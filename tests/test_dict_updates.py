"""``d.update(...)``, ``d |= other`` and ``d.setdefault(k, v)`` of a dict of
differentiable values (``Normalizer._dict_update_as_stores``).

They were refused ("writes into `p` ... through calls", or "`**` in a dict ... needs
a dict whose keys srcgrad can tell"). Where the keys written are known when compiling
and the name holds a dict wherever it is bound, each is the stores ``d[k] = v`` it
makes, after every value is read: an update in place, as Python's, which what else
holds the dict would see (such a write is refused, as any write into a shared dict).
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_every_form

X = np.array([0.3, 0.7, 0.9, 1.1, -0.4, 0.6])
H = np.array([[0.5, -0.2], [0.1, 0.3]])


def _params(x):
    return {"W": x[:4].reshape(2, 2), "b": x[4:]}


def updated_by_a_display(x):
    p = _params(x)
    p.update({"b": p["b"] * 5.0, "c": p["W"][0] * x[0]})
    return np.sum(p["W"] @ p["b"]) + np.sum(p["c"])


def updated_by_keywords(x):
    p = {"W": x[:4].reshape(2, 2), "b": x[4:]}
    p.update(b=np.tanh(p["b"]), W=p["W"].T)
    return np.sum(np.tanh(H @ p["W"] + p["b"]))


def swapped_by_an_update(x):
    d = {"a": x[0], "b": x[1] ** 2}
    d.update({"a": d["b"], "b": d["a"]})  # (both read before either is written)
    return d["a"] * 3.0 + d["b"] * x[2]


def merged_in_place(x):
    d = {"a": x[0], "b": x[2]}
    d |= {"a": x[1] * 3.0}
    d |= _params(x)
    return d["a"] * x[2] + d["b"][1] + np.sum(d["W"])


def updated_in_a_loop(x):
    state = {"u": x[0], "v": x[1]}
    for _ in range(3):
        state.update(u=state["u"] + 0.1 * state["v"], v=state["v"] - 0.1 * np.sin(state["u"]))
    return state["u"] * state["v"]


def set_by_default(x):
    d = {"a": x[0] * 2.0}
    a = d.setdefault("a", x[1] * 100.0)  # present: the default is not stored
    c = d.setdefault("c", x[2] ** 2)  # missing: stored
    return a * c + d["c"] * x[3]


@pytest.mark.parametrize("f", [updated_by_a_display, updated_by_keywords, swapped_by_an_update,
                               merged_in_place, updated_in_a_loop, set_by_default])
def test_dict_updates_in_every_form(f):
    # (Second order of a store adding a key is refused: the dicts that gain one are
    # checked to first order.)
    adds = f in (updated_by_a_display, merged_in_place, set_by_default)
    assert_every_form(f, X.copy(), order=1 if adds else 2)


def update_a_dict_passed(x, config):
    config.update(scale=x[0] * 2.0)
    return config["scale"] * x[1] + config["shift"]


def test_the_callers_dict_is_updated_as_python_does():
    config = {"scale": 1.0, "shift": 0.5}
    check_grads(update_a_dict_passed, (X[:2].copy(), dict(config)), wrt=(0,), order=1)
    g = sg.grad(update_a_dict_passed)(X[:2].copy(), config)
    np.testing.assert_allclose(g, [2.0 * X[1], 2.0 * X[0]])
    assert config["scale"] == pytest.approx(2.0 * X[0])


def updated_through_another_name(x):
    d = {"a": x[0], "b": x[2]}
    e = d
    d |= {"a": x[1] * 3.0}
    return e["a"] * x[2] + d["b"]


def test_an_update_another_name_sees_is_refused():
    with pytest.raises(sg.CompileError, match="shared"):
        sg.grad(updated_through_another_name)(X.copy())
