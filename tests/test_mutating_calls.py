"""Writes that no assignment shows are refused, never ignored (issue 12, class 4).

srcgrad differentiates by rebinding. A call that writes into an existing
array (``out=``, ``np.copyto``, ``np.add.at``, ``a.sort()``, ...) changed
values the adjoints and the backward pass never saw: zero or wrong gradients,
silently. ``ir/effects.HiddenWrites`` is the one rule: such a call, or an item
write of a constant into an array the gradient computation has already read,
is a ``CompileError`` naming the call and the line, with a remedy; code
evaluated from a string (``eval``/``exec``/``compile``) always is. A write
that provably runs before anything differentiable reads the array is allowed
(and its gradient checked here against finite differences).

The calls whose write is a store NumPy can compute apart (``np.copyto``,
``out=``, ``a.sort()``, ``np.fill_diagonal``, ...) are compiled as that store
(passes/normalize/stores.py; their gradients: tests/test_inplace_calls.py):
here, what such a store may not do (write an array the gradient computation
has read, or one another name shares) is refused naming the user's call.
"""
import builtins
import inspect
import logging

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import taped


def multiply_at(x):
    a = np.ones(3)
    np.multiply.at(a, [0, 0, 1], x)  # (np.add.at is a scatter-add: tests/test_scatter_add.py)
    return np.sum(a * x)


def putmask(x):
    a = x * 1.0
    np.putmask(a, a > 1.5, 0.0)
    return np.sum(a)


def resize(x):
    a = x * 1.0
    a.resize(2, refcheck=False)
    return np.sum(a)


def set_attribute(x, obj):
    setattr(obj, "value", x * 2.0)
    return np.sum(obj.value)


def evaluated(x):
    return eval("np.sum(x * x)")


def evaluated_through_builtins(x):
    return builtins.eval("np.sum(x * x)")


def executed(x):
    scope = {"x": x}
    exec("y = x * 2", scope)
    return np.sum(x)


def constant_written_after_use(x):
    a = np.ones(3)
    y = a * x
    a.fill(5.0)
    return np.sum(y)


def constant_item_written_after_use(x):
    a = np.ones(3)
    y = a * x
    a[0] = 5.0
    return np.sum(y)


def constant_copied_into_after_use(x):
    a = np.ones(3)
    y = a * x
    np.copyto(a, 7.0)
    return np.sum(y)


def view_of_constant_written_after_use(x):
    a = np.ones(3)
    v = a[1:]
    y = np.sum(v * x[1:])
    np.multiply(a, 3.0, out=a)
    return y


def helper_writing(a, v):
    np.copyto(a, v)


def written_by_a_helper(x):
    a = np.zeros(3)
    helper_writing(a, x)
    return np.sum(a * x)


def written_in_a_loop(x):
    a = np.ones(3)
    total = 0.0
    for i in range(2):
        total = total + np.sum(a * x)
        a.fill(float(i + 2))
    return total


class Box:
    pass


CASES = [
    (multiply_at, "`np.multiply.at(a, [0, 0, 1], x)` writes into `a`"),
    (putmask, "`np.putmask(a, a > 1.5, 0.0)` writes into `a`"),
    (resize, "`a.resize(2, refcheck=False)` writes into `a`"),
    (evaluated, "`eval()` of code from a string is not supported"),
    (executed, "`exec()` of code from a string is not supported"),
    (evaluated_through_builtins, "`builtins.eval('np.sum(x * x)')` evaluates code from a string"),
    (constant_written_after_use, "`a.fill(5.0)`, writing into `a[...]` after the gradient "
                                 "computation has read `a`"),
    (constant_item_written_after_use, "writing into `a[0]` after the gradient computation has "
                                      "read `a`"),
    (constant_copied_into_after_use, "`np.copyto(a, 7.0)`, writing into `a[...]` after the "
                                     "gradient computation has read `a`"),
    (view_of_constant_written_after_use, "`np.multiply(a, 3.0, out=a)`, writing into `a[...]` "
                                         "after the gradient computation has read `a`"),
    (written_in_a_loop, "`a.fill(float(i + 2))`, writing into `a[...]` after the gradient "
                        "computation has read `a`"),
]


def _line_of(f, text):
    """``file.py:N`` of the first line of ``f``'s source containing ``text``."""
    lines, start = inspect.getsourcelines(f)
    for k, line in enumerate(lines):
        if text in line and not line.lstrip().startswith("def "):
            return f"test_mutating_calls.py:{start + k}"
    raise AssertionError(text)


def _call_text(f):
    """What the refused line of ``f`` calls (the line the message must name)."""
    for key in ("add.at", "copyto", "np.put(", "place", "putmask", "out=a", "a, 3.0, a", ".fill",
                ".sort", "fill_diagonal", "resize", "eval(", "exec(", "a[0] = "):
        try:
            return _line_of(f if f is not written_by_a_helper else helper_writing, key)
        except AssertionError:
            continue
    raise AssertionError(f.__name__)


X = np.array([0.5, 1.0, 2.0])


@pytest.mark.parametrize("f, message", CASES, ids=[f.__name__ for f, _ in CASES])
def test_refused_naming_the_call_and_the_line(f, message):
    for compute in (lambda: sg.grad(f)(X.copy()), lambda: sg.value_and_grad(f)(X.copy()),
                    lambda: taped(f, X.copy()), lambda: sg.function(taped)(f, X.copy())):
        with pytest.raises(sg.CompileError) as info:
            compute()
        text = str(info.value)
        assert message in text
        assert _call_text(f) in text
        assert info.value.remedy


def test_setattr_on_an_object_is_refused():
    with pytest.raises(sg.CompileError, match=r"`setattr\(obj, 'value', x \* 2.0\)` writes into "
                                              r"`obj`"):
        sg.grad(set_attribute)(X.copy(), Box())


def tape_constant_written_after_use(x):
    a = np.ones(3)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(a * x)
        a[0] = 5.0
    return tape.gradient(y, x)


@pytest.mark.parametrize("f, message", [
    (tape_constant_written_after_use, "writing into `a[0]` after the gradient computation"),
])
def test_the_tape_refuses_the_same_way(f, message):
    with pytest.raises(sg.CompileError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        f(X.copy())
    with pytest.raises(sg.CompileError):
        sg.function(f)(X.copy())


# -- what keeps working: writes before anything differentiable reads the array,
# -- pure methods, and the in-place operators srcgrad models

def shuffled_indices_before_use(x):
    idx = np.arange(3)
    np.random.default_rng(0).shuffle(idx)
    return np.sum(x[idx] * x * np.arange(3.0))


def constant_built_in_place_first(x):
    a = np.zeros(3)
    a.fill(2.0)
    np.copyto(a[1:], 3.0)
    np.multiply(a, 0.5, out=a)
    np.put(a, [0], 4.0)
    return np.sum(a * x * x)


def constant_built_in_a_loop_first(x):
    a = np.zeros(3)
    for i in range(3):
        a[i] = float(i) + 1.0
    return np.sum(np.sin(a * x))


def pure_methods(x):
    a = x.copy()
    b = a.reshape(3, 1).sum(axis=1)
    return np.sum(b * a) + a.max() + a.mean()


def modeled_in_place(x, y):
    a = x * 1.0
    a += y
    a *= x
    return np.sum(a)


def list_sorted_before_use(x):
    values = [3.0, 1.0, 2.0]
    values.sort()
    return x[0] * values[0] + x[1] * values[2]


@pytest.mark.parametrize("f, args", [
    (shuffled_indices_before_use, (X,)),
    (constant_built_in_place_first, (X,)),
    (constant_built_in_a_loop_first, (X,)),
    (pure_methods, (X,)),
    (modeled_in_place, (X, np.array([0.3, -0.2, 0.7]))),
    (list_sorted_before_use, (X,)),
])
def test_writes_the_gradient_cannot_see_still_work(f, args):
    check_grads(f, [a.copy() for a in args], order=2)
    value, _ = sg.value_and_grad(f)(*[a.copy() for a in args])
    assert value == pytest.approx(f(*[a.copy() for a in args]))


def tape_constant_built_first(x):
    a = np.zeros(3)
    with sg.GradientTape() as tape:
        tape.watch(x)
        a.fill(2.0)
        y = np.sum(a * x * x)
    return tape.gradient(y, x)


def test_the_tape_allows_a_write_before_use():
    expected = 4.0 * X
    np.testing.assert_allclose(tape_constant_built_first(X.copy()), expected)
    np.testing.assert_allclose(sg.function(tape_constant_built_first)(X.copy()), expected)


# -- calls made for their output only, and a user's function named eval

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


_LOG = logging.getLogger("srcgrad.tests.probe")
_ADAPTED = logging.LoggerAdapter(_LOG, {"run": 1})


def logs_through_a_logger(x):
    loss = np.sum(np.sin(x) * x)
    _LOG.info("loss %s", loss)  # (a Logger's method: was inlined from logging, and refused)
    _ADAPTED.debug("loss %.3f", loss)
    _LOG.log(logging.DEBUG, "x %s", x)
    return loss


@pytest.mark.parametrize("f", [shadowed_eval, logs_and_prints, logs_through_a_logger],
                         ids=["shadowed_eval", "logs", "logger"])
def test_calls_for_their_output_still_work(f):
    check_grads(f, (X,), order=2)
    np.testing.assert_allclose(taped(f, X), sg.grad(f)(X), rtol=1e-12)


# -- an unknown call made for its effect on differentiable values

class Accumulator:
    def __init__(self):
        self.total = np.zeros(3)

    def update(self, v):
        np.add(self.total, v, out=self.total)


def with_an_unknown_effect(x):
    acc = ACCUMULATOR
    acc.update(x * 2.0)
    return np.sum(acc.total * x)


ACCUMULATOR = Accumulator()


def test_an_unknown_call_for_its_effect_is_refused():
    with pytest.raises(sg.CompileError, match="called for its effect|writes") as info:
        sg.grad(with_an_unknown_effect)(X.copy())
    assert "test_mutating_calls.py:" in str(info.value)


def test_written_by_a_helper_is_a_write_into_the_callers_array():
    # (It was refused: the helper's parameter is the caller's `a`, which it writes into:
    # passes/normalize/views.py writes it into `a`.)
    for compute in (lambda: sg.grad(written_by_a_helper)(X.copy()),
                    lambda: sg.value_and_grad(written_by_a_helper)(X.copy())[1],
                    lambda: taped(written_by_a_helper, X.copy()),
                    lambda: sg.function(taped)(written_by_a_helper, X.copy())):
        np.testing.assert_allclose(compute(), 2 * X)  # (a is x: the sum of x * x)
