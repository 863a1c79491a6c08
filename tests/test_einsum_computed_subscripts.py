"""``np.einsum`` with subscripts the code computes: a string from a dict, a loop or an
f-string, and the sublist form with sublists passed in or built (autograd's own tests
pass them as arguments). The string is made when the code runs (``_sg.einsum_sublists``,
``_sg.einsum_subscripts``), which also refuses a form the compiler took wrongly."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads

RNG = np.random.default_rng(11)
A = RNG.normal(size=(2, 3))
B = RNG.normal(size=(3, 4))
S = RNG.normal(size=(3, 3))
SPECS = {"matmul": "ij,jk->ik", "outer": "ij,kl->ijkl", "sum": "ij,jk->"}


def spec_from_a_dict(a, b, kind):
    s = SPECS[kind]
    return np.sum(np.sin(np.einsum(s, a, b)))


def spec_from_an_fstring(a, b):
    out = "ik"
    return np.sum(np.einsum(f"ij,jk->{out}", a, b) ** 2)


def spec_joined(a, b):
    subs = ",".join(["ij", "jk"]) + "->ik"
    return np.sum(np.tanh(np.einsum(subs, a, b)))


def specs_in_a_loop(a, b):
    total = 0.0
    for s in ("ij,jk->ik", "ij,jk->ki", "ij,jk->j"):
        total = total + np.sum(np.einsum(s, a, b) ** 2)
    return total


def sublists_passed(a, b, sa, sb, so):
    return np.sum(np.einsum(a, sa, b, sb, so) ** 2)


def sublists_built(a, b):
    n = a.ndim
    sa = list(range(n))
    sb = [n - 1, n]
    return np.sum(np.exp(np.einsum(a, sa, b, sb, [0, n]) / 4.0))


def sublists_with_ellipsis(s, x, sub):
    return np.sum(np.einsum(s, sub, x, [Ellipsis, 1]) ** 2)


def helper_returning_the_spec(a, b):
    def plan(transpose):
        return ("ij,jk->ki", 2.0) if transpose else ("ij,jk->ik", 1.0)
    spec, scale = plan(True)
    return scale * np.sum(np.einsum(spec, a, b) ** 2)


CASES = [
    (spec_from_a_dict, (A, B, "matmul"), [0, 1]),
    (spec_from_a_dict, (A, B, "outer"), [0, 1]),
    (spec_from_a_dict, (A, B, "sum"), [0, 1]),
    (spec_from_an_fstring, (A, B), [0, 1]),
    (spec_joined, (A, B), [0, 1]),
    (specs_in_a_loop, (A, B), [0, 1]),
    (sublists_passed, (A, B, (0, 1), (1, 2), (0, 2)), [0, 1]),
    (sublists_passed, (A, B, [0, 1], [1, 2], [2, 0]), [0, 1]),
    (sublists_built, (A, B), [0, 1]),
    (sublists_with_ellipsis, (S, np.ones((2, 3)) * 0.3, [Ellipsis, 0, 1]), [0, 1]),
    (helper_returning_the_spec, (A, B), [0, 1]),
]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_against_finite_differences_to_second_order(f, args, wrt):
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    check_grads(f, args, order=2, wrt=wrt)
    for i in wrt:  # each argument alone too: the other one is then a constant
        check_grads(f, args, order=1, wrt=i)
    value, _ = sg.value_and_grad(f, wrt=tuple(wrt))(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)


@pytest.mark.parametrize("f, args, wrt", CASES[:8], ids=lambda c: getattr(c, "__name__", ""))
def test_tape_and_forward_mode(f, args, wrt):
    a, b, *rest = args

    @sg.function
    def taped(a, b):
        with sg.GradientTape() as tape:
            tape.watch(a)
            y = f(a, b, *rest)
        return tape.gradient(y, a)
    np.testing.assert_allclose(taped(a, b), sg.grad(f)(*args), rtol=1e-10)
    v = RNG.normal(size=a.shape)
    _, t = sg.jvp(lambda a: f(a, b, *rest), (a,), (v,))
    assert t == pytest.approx(np.sum(sg.grad(f)(*args) * v), rel=1e-9)


def global_first_with_sublists(x, sc, sx):
    return np.sum(np.einsum(S, sc, x, sx) ** 2)


def local_first_with_sublists(x, sc, sx):
    c = S * 2.0
    return np.sum(np.einsum(c, sc, x, sx))


def test_a_constant_first_operand():
    check_grads(global_first_with_sublists, (np.ones(3), [0, 1], [1]), order=2, wrt=0)


def test_a_form_taken_wrongly_is_refused_when_it_runs():
    # ``c`` is computed: the compiler reads ``np.einsum(c, ...)`` as the string form.
    with pytest.raises(sg.CompileError, match=r"einsum's first argument is a ndarray, not a "
                                              r"subscripts string.*test_einsum_computed"):
        sg.grad(local_first_with_sublists)(np.ones(3), [0, 1], [1])


def test_a_sublist_of_other_values_is_refused():
    with pytest.raises(sg.CompileError, match=r"sublist \[0, 1.5\] holds 1.5, not an axis"):
        sg.grad(sublists_passed)(A, B, [0, 1.5], [1, 2], [0, 2])
