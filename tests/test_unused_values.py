"""A gradient skips forward values nothing reads (``cleanup.drop_unused``).

With ``sg.grad`` the function's value is not returned: when its rank says it
is a scalar, no check is needed, and the statements that only lead to it
(the final mean, a loop's running sum) are not run. Statements with effects,
and values the backward pass reads, stay.
"""
import re

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads


def _text(g, *args):
    return g.__srcgrad_compiled__.entry(args).text


def _forward(text):
    """The generated lines before the first adjoint block, without the header comment."""
    return text.split("\n", 1)[1].split("# grad of:", 1)[0]


def _code(text):
    """The generated lines without comments."""
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))


def mean_loss(w, X):
    return np.mean(np.tanh(X @ w))


def running_sum(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + (x[i + 1] - x[i] ** 2) ** 2
    return s


def _args():
    rng = np.random.default_rng(0)
    return rng.standard_normal(3), rng.standard_normal((5, 3))


def test_the_final_reduction_is_not_computed():
    args = _args()
    text = _text(sg.grad(mean_loss), *args)
    assert "np.mean(" not in _forward(text) and "check_scalar" not in text
    check_grads(mean_loss, args, order=2)


def test_value_and_grad_computes_the_value():
    args = _args()
    value, g = sg.value_and_grad(mean_loss)(*args)
    assert value == pytest.approx(mean_loss(*args))
    assert "np.mean(" in _forward(_text(sg.value_and_grad(mean_loss), *args))
    np.testing.assert_allclose(g, sg.grad(mean_loss)(*args))


def test_a_running_sum_in_a_loop_is_not_computed():
    x = np.linspace(-1.0, 1.0, 6)
    text = _text(sg.grad(running_sum), x)
    assert not re.search(r"^ +s = ", _forward(text), re.M)  # neither s = 0.0 nor s = s + ...
    check_grads(running_sum, (x,), order=2)


def printing(x):
    y = np.sin(x)
    print("forward ran")
    z = np.cos(y)
    return np.sum(y)


def test_statements_with_effects_stay(capsys):
    x = np.array([0.1, 0.2])
    np.testing.assert_allclose(sg.grad(printing)(x), np.cos(x))
    assert capsys.readouterr().out == "forward ran\n"
    assert "np.cos(" not in _forward(_text(sg.grad(printing), x))  # z is unused: dropped


def vector_result(x):
    return x * 2.0


def test_a_result_not_known_to_be_scalar_is_still_checked():
    with pytest.raises(TypeError, match="must return a scalar"):
        sg.grad(vector_result)(np.ones(3))
    text = sg.adjoint_source(vector_result)  # no sample: no ranks, the check stays
    assert "check_scalar" in text


def counted(x):
    i = 0
    acc = x
    while i < 4:  # i is read only by the test: it must stay live through the loop
        acc = acc * 0.9 + 0.1 * np.sin(acc)
        i = i + 1
    return acc


def test_what_a_while_test_reads_stays():
    check_grads(counted, (0.3,), order=2)
    assert re.search(r"^ +i = i \+ 1", _text(sg.grad(counted), 0.3), re.M)


def tape_block(w, X):
    with sg.GradientTape() as tape:
        tape.watch(w)
        loss = np.mean(np.tanh(X @ w))
    return loss, tape.gradient(loss, w)


def test_tape_code_skips_the_value_the_block_already_computed():
    import srcgrad.tape.tape as tape_module

    args = _args()
    loss, g = tape_block(*args)
    assert loss == pytest.approx(mean_loss(*args))
    np.testing.assert_allclose(g, sg.grad(mean_loss)(*args), rtol=1e-12)
    texts = [e.text for e in tape_module._COMPILED.values() if "tape_block" in e.text
             or "test_unused_values.py" in e.text]
    # A block the tape runs once computes the mean once (the user's ``loss``) and the
    # adjoint never again; the rerun design's code skipped it (the block had it).
    assert texts and all(_code(t).count("np.mean(") == 1 if "run once" in t else
                         "np.mean(" not in _forward(t) for t in texts)


def checks_positive_definite(m):
    K = m @ m.T - 10.0 * np.eye(2)
    np.linalg.cholesky(K)  # (its value unused: there to raise)
    return np.sum(np.linalg.inv(K))


def checks_into_a_name(m):
    K = m @ m.T - 10.0 * np.eye(2)
    L = np.linalg.cholesky(K)  # noqa: F841
    return np.sum(np.linalg.inv(K))


def checks_a_domain(x):
    import math
    math.log(float(x[0]))  # (raises for x[0] <= 0, as Python would)
    return np.sum(x ** 2)


@pytest.mark.parametrize("f, arg, error", [
    (checks_positive_definite, np.eye(2), np.linalg.LinAlgError),
    (checks_into_a_name, np.eye(2), np.linalg.LinAlgError),
    (checks_a_domain, np.array([-1.0, 2.0]), ValueError),
], ids=lambda c: getattr(c, "__name__", ""))
def test_a_call_that_may_raise_is_not_skipped(f, arg, error):
    """A factorization (or a math function) whose value nothing reads was skipped, and the
    gradient returned where Python raises."""
    with pytest.raises(error):
        sg.grad(f)(arg)
