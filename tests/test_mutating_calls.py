"""Calls that write into arrays, and code from strings, are refused (issue 12, class 4).

A call whose result is unused is made for its effect. Through a function
srcgrad has no model of (``np.add.at``, ``np.copyto``, ``np.put``...), that
effect on a differentiable array was invisible: the gradient ignored it,
silently. Such calls are now a ``CompileError`` naming the call and the line,
in ``sg.grad``, ``value_and_grad`` and the tape; so are ``eval``/``exec``.
Calls made for their output only (``print``, logging, ``list.append``) work.
"""
import logging

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped

X = np.array([0.5, -1.0, 2.0])


def add_at(x):
    a = np.zeros(3)
    np.add.at(a, [0, 0], x[:2])
    return np.sum(a * x)


def copyto(x):
    a = np.zeros(3)
    np.copyto(a, x)
    return np.sum(a * x)


def put(x):
    a = np.zeros(3)
    np.put(a, [0, 1], x[:2])
    return np.sum(a * x)


def place(x):
    a = x * 1.0
    np.place(a, a > 0, 0.0)
    return np.sum(a * x)


def putmask(x):
    a = x * 1.0
    np.putmask(a, a > 0, x)
    return np.sum(a * x)


def fill_diagonal(x):
    a = np.outer(x, x)
    np.fill_diagonal(a, 0.0)
    return np.sum(a)


class Holder:
    pass


def set_attribute(x):
    h = Holder()
    setattr(h, "v", x * 2.0)
    return np.sum(h.v)


def out_argument(x):
    a = np.zeros(3)
    np.multiply(x, 2.0, out=a)
    return np.sum(a * x)


def fill(x):
    a = x * 1.0
    a.fill(2.0)
    return np.sum(a * x)


def sort(x):
    a = x * 1.0
    a.sort()
    return np.sum(a * np.arange(3.0))


def evaluated(x):
    return eval("np.sum(x * x)")


def executed(x):
    a = np.zeros(3)
    exec("a[:] = x")
    return np.sum(a * x)


REFUSED = [
    (add_at, "np.add.at(...)` is called for its effect"),
    (copyto, "np.copyto(...)` is called for its effect"),
    (put, "np.put(...)` is called for its effect"),
    (place, "np.place(...)` is called for its effect"),
    (putmask, "np.putmask(...)` is called for its effect"),
    (fill_diagonal, "np.fill_diagonal(...)` is called for its effect"),
    (set_attribute, "setattr(...)` is called for its effect"),
    (out_argument, "keyword argument `out`"),
    (fill, "calling `(fill_)?a.fill()`"),
    (sort, "calling `(sort_)?a.sort()`"),
    (evaluated, "`eval()` of code from a string"),
    (executed, "`exec()` of code from a string"),
]


@pytest.mark.parametrize("f, message", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_refused_in_every_form(f, message):
    for compute in (lambda: sg.grad(f)(X), lambda: sg.value_and_grad(f)(X),
                    lambda: taped(f, X), lambda: sg.function(taped)(f, X)):
        with pytest.raises(sg.CompileError, match=message.replace("()", r"\(\)").replace(
                "(...)", r"\(\.\.\.\)")) as info:
            compute()
        assert "test_mutating_calls.py:" in str(info.value)


def with_an_eval_of_its_own():
    def eval(v):  # the user's own function that happens to be called eval
        return np.sum(v * v)

    def shadowed_eval(x):
        return eval(x)
    return shadowed_eval


shadowed_eval = with_an_eval_of_its_own()


history = []


def logs_and_prints(x):
    loss = np.sum(np.sin(x) * x)
    print("loss", loss)
    logging.info("loss %s", loss)
    history.append(float(loss))
    np.sum(x)  # a pure call whose result is dropped
    return loss


@pytest.mark.parametrize("f", [shadowed_eval, logs_and_prints], ids=["shadowed_eval", "logs"])
def test_calls_for_their_output_still_work(f):
    check_grads(f, (X,), order=2)
    np.testing.assert_allclose(taped(f, X), sg.grad(f)(X), rtol=1e-12)
