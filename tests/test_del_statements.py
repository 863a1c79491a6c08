"""``del name`` in differentiated code (passes/deletes.py): dropped where nothing can
read the name past it (the generated code frees each value after its last use); refused
where Python would raise ``NameError`` at a later read."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

X = np.array([0.3, -0.7, 1.2])


def frees_a_temporary(x):
    t = x * 2.0
    y = np.sum(t ** 2)
    del t
    return y


def frees_in_a_loop(x):
    s = 0.0
    for k in range(3):
        t = np.sin(x) * (k + 1.0)
        s = s + np.sum(t * x)
        del t
    return s


def frees_two_and_rebinds(x):
    a = x * 2.0
    b = a + 1.0
    c = np.sum(a * b)
    del a, b
    a = x ** 3
    return c + np.sum(a)


def frees_in_a_branch(x, big):
    t = x * x
    if big:
        y = np.sum(t) * 2.0
        del t
    else:
        y = np.sum(t)
    return y


@pytest.mark.parametrize("f, args", [(frees_a_temporary, (X,)), (frees_in_a_loop, (X,))],
                         ids=lambda c: getattr(c, "__name__", ""))
def test_dropped_where_nothing_reads_past_it(f, args):
    check_grads(f, args, order=2, wrt=0)
    value, _ = sg.value_and_grad(f)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)

    @sg.function
    def taped(x):
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = f(x, *args[1:])
        return tape.gradient(y, x)
    np.testing.assert_allclose(taped(X), sg.grad(f)(*args), rtol=1e-12)


def read_after(x):
    t = x * 2.0
    del t
    return np.sum(t)  # (NameError in Python)  # noqa: F821


def read_on_the_next_trip(x):
    s = 0.0
    t = x
    for k in range(2):
        s = s + np.sum(t)
        t = x * k
        del t
    return s


def deletes_an_item(x):
    d = {"a": x * 2.0, "b": x * 3.0}
    del d["a"]
    return sum(np.sum(v) for v in d.values())


@pytest.mark.parametrize("f, args", [
    (read_after, (X,)), (read_on_the_next_trip, (X,)), (deletes_an_item, (X,)),
    # (conservative, by the text's order: ``a`` is bound again before it is read; ``t``
    # is read in the other branch)
    (frees_two_and_rebinds, (X,)), (frees_in_a_branch, (X, True)),
], ids=lambda c: getattr(c, "__name__", ""))
def test_refused_where_a_read_could_follow(f, args):
    with pytest.raises(sg.CompileError, match=r"del statement is not supported "
                                              r"\(test_del_statements\.py:\d+\)"):
        sg.grad(f)(*args)
