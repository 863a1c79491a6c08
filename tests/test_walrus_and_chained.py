"""Assignment expressions (``:=``, ``passes/walrus.py``) and chained assignment
(``a = b = v``, ``passes/desugar.py``): both were refused; each form's gradient is
checked against central differences, in several styles."""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form, taped

A0 = np.array([[0.3, -0.2], [1.1, -0.7]])
X0 = np.array([0.3, 0.5, -0.4])


def walrus_in_if_of_a_loop(A):
    s = 0.0
    for idx in np.ndindex(*A.shape):
        if (v := A[idx]) > 0:
            s += v ** 2
        else:
            s += 0.5 * v
    return s


def walrus_vectorised(A):
    # (The same math without a loop: a second style.)
    return np.sum(np.where((a := A.ravel()) > 0, a ** 2, 0.5 * a))


def walrus_in_assignment_and_return(x):
    y = (z := np.sin(x)) * 2 + z
    if (n := np.sum(y * x)) > 0:
        return (m := n * 2) + m
    return n


def walrus_in_elif_and_for(x):
    total = 0.0
    for w in (ws := [x, x ** 2]):
        if np.sum(w) > 5:
            total = total + 1.0
        elif (t := np.sum(np.cos(w))) > 0:
            total = total + t * len(ws)
    return total


def walrus_nested(x):
    return np.sum((a := (b := x * 3) + 1) * b) + np.sum(a)


def chained_numbers(x):
    s = t = 0.0
    for v in x:
        if v > 0:
            s += v ** 2
        else:
            t += v
    return s * 2 + t


def chained_arrays(x):
    a = b = x * 2  # one array under both names
    b = b + 1      # (rebinding b: a keeps it)
    return np.sum(a * b)


def chained_three_and_item(x):
    out = np.zeros(2)
    out[0] = p = q = np.sum(x ** 2)
    r = out[1] = np.sum(np.sin(x))
    return out[0] * p + q + r + np.sum(out)


@pytest.mark.parametrize("f, x", [
    (walrus_in_if_of_a_loop, A0), (walrus_vectorised, A0),
    (walrus_in_assignment_and_return, X0), (walrus_in_elif_and_for, X0),
    (walrus_nested, X0), (chained_numbers, X0), (chained_arrays, X0),
    (chained_three_and_item, X0)])
def test_every_form(f, x):
    assert_every_form(f, x)
    value, _ = sg.value_and_grad(f)(x.copy())
    assert np.isclose(value, f(x.copy()))


def test_walrus_in_a_tape_block():
    x = X0.copy()
    with sg.GradientTape() as tape:
        tape.watch(x)
        if (q := np.sum(x ** 2)) > 0:
            r = q * 3
    assert np.isclose(q, np.sum(X0 ** 2))
    np.testing.assert_allclose(tape.gradient(r, x), 6 * X0)
    np.testing.assert_allclose(taped(walrus_in_if_of_a_loop, A0.copy()),
                               sg.grad(walrus_in_if_of_a_loop)(A0.copy()))


def test_generated_code_binds_the_walrus_name():
    text = sg.adjoint_source(walrus_in_if_of_a_loop)
    code = [line for line in text.splitlines() if not line.strip().startswith("#")]
    assert any(line.strip() == "v = A[idx]" for line in code)
    assert not any(":=" in line for line in code)


def _short_circuit(x):
    if np.sum(x) > 0 and (m := np.sum(x) * 2) > 1:
        return m
    return 0.0


def _after_a_call(x):
    return np.sum(x) + (m := np.sum(x ** 2)) * m


def _in_a_while(x):
    s = 0.0
    while (s := s + np.sum(x)) < 1:
        pass
    return s


def _in_a_comprehension(x):
    return sum([(y := v * 2) + y for v in x])


@pytest.mark.parametrize("f", [_short_circuit, _after_a_call, _in_a_while,
                               _in_a_comprehension])
def test_walrus_where_moving_it_is_not_exact_is_refused(f):
    # (Evaluated only sometimes, after a call, each time round, in another scope.)
    with pytest.raises(sg.CompileError, match=r"assignment expression \(:=\) is not supported "
                                              r"\(test_walrus_and_chained\.py:\d+\)"):
        sg.grad(f)(X0.copy())
