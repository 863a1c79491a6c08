"""``GradientTape.jacobian`` and ``batch_jacobian``: one backward pass over all seed rows.

- Every primitive of the table, through a Hessian (``jacobian`` of a nested
  tape's gradient), against central differences of ``sg.grad``: the batched
  backward pass then runs every first-order rule and every rule of the
  adjoint helpers with a leading axis of rows.
- Programs with non-scalar targets (``tape_cases/jacobian_programs.py``) that
  reach every kind of statement the backward pass writes, against central
  differences of the target.
- ``batch_jacobian`` against the diagonal blocks of ``jacobian``; unconnected
  sources, dtypes, errors.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.rules import helpers as runtime_rules, table
from srcgrad.rules.rows import row_form
from tape_cases import hessians
from tape_cases.jacobian_programs import PROGRAMS
from test_primitives import PRIMITIVES, draw_args


def _wrap(like):
    return (lambda v: v) if isinstance(like, np.ndarray) else float


def jacobian_fd(f, args, eps=1e-6):
    """d f(*args) / d args[j] for each j, shape ``f.shape + args[j].shape``, by central differences."""
    out = []
    for j, arg in enumerate(args):
        base = np.asarray(arg, dtype=np.float64)
        cols = []
        for idx in np.ndindex(base.shape):
            plus, minus = base.copy(), base.copy()
            plus[idx] += eps
            minus[idx] -= eps
            a_plus, a_minus = list(args), list(args)
            a_plus[j], a_minus[j] = _wrap(arg)(plus), _wrap(arg)(minus)
            cols.append((np.asarray(f(*a_plus), float) - np.asarray(f(*a_minus), float)) / (2 * eps))
        shape = np.shape(f(*args))
        out.append(np.stack(cols, axis=-1).reshape(shape + base.shape))
    return out


# ---------------------------------------------------------------- every rule, by Hessians

@pytest.mark.parametrize("func", [pytest.param(f, id=f.__name__) for f in PRIMITIVES])
def test_hessian_of_every_primitive(func):
    args = draw_args(func)
    got = getattr(hessians, f"hessian_{len(args)}")(func, *args)
    for i in range(len(args)):
        expected = jacobian_fd(sg.grad(func, wrt=i), args)
        for j in range(len(args)):
            if got[i][j] is None:
                np.testing.assert_allclose(expected[j], 0.0, atol=1e-6)
                continue
            assert np.shape(got[i][j]) == np.shape(args[i]) + np.shape(args[j])
            np.testing.assert_allclose(got[i][j], expected[j], rtol=1e-5, atol=1e-6,
                                       err_msg=f"d2/d{i}d{j}")


def _all_rules():
    rules = list(table.TABLE.items()) + [("sequence concatenation", runtime_rules.SEQUENCE_CONCAT),
                                         ("sequence repetition", runtime_rules.SEQUENCE_REPEAT),
                                         ("x ** c", table.POWER_CONSTANT_EXPONENT)]
    return [(f, p, text, rule.rows.get(p)) for f, rule in rules for p, text in rule.grads.items()]


def test_every_rule_has_a_row_form():
    per_row = [(f, p) for f, p, text, written in _all_rules() if row_form(text, written)[1]]
    assert not per_row, f"rules that would run once per row: {per_row}"


def test_row_form_keeps_elementwise_expressions_and_swaps_helpers():
    assert row_form("g * np.cos(x)") == ("g * np.cos(x)", False)
    assert row_form("np.where(condition, g, 0.0)") == ("np.where(condition, g, 0.0)", False)
    assert row_form("_sg.sum_grad(g, a, axis, keepdims)") == \
        ("_sg.sum_grad_rows(g, a, axis, keepdims)", False)
    # What it cannot see through runs per row, never with the rows mixed up.
    assert row_form("np.fft.fft(g)")[1] is True
    assert row_form("g @ x")[1] is True
    assert row_form("np.where(g > 0, 1.0, 0.0)")[1] is True
    assert row_form("np.sum(g)")[1] is True


def test_each_row_applies_a_function_row_by_row():
    g = np.arange(6.0).reshape(2, 3)
    out = sg.runtime.each_row(lambda row: [np.sum(row), row[::-1]], g)
    np.testing.assert_array_equal(out[0], [3.0, 12.0])
    np.testing.assert_array_equal(out[1], g[:, ::-1])


# ---------------------------------------------------------------- programs

def _inputs(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    if name == "scalar":
        return 0.7, 1.3
    if name == "matrix":
        return rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, 4)
    return rng.uniform(0.2, 1.0, 4), rng.uniform(0.2, 1.0, 3)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jacobian_matches_finite_differences(name):
    prog = PROGRAMS[name]
    x, w = _inputs(name)
    y, jac = prog(x, w)
    expected = jacobian_fd(lambda a, b: prog(a, b)[0], (x, w))
    for which, got, ref in zip("xw", jac, expected):
        assert got is not None, which
        assert got.shape == np.shape(y) + np.shape(ref)[np.ndim(y):], which
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-7, err_msg=f"dy/d{which}")


def test_programs_reach_every_backward_statement():
    import inspect

    text = "\n".join(inspect.getsource(p) for p in PROGRAMS.values())
    for construct in ("z[0] =", ".append(", ".pop()", "for ", "while ", "if ", "[idx]",
                      "[mask]", "custom_gradient", "py_function", "order=\"F\""):
        assert construct in text, construct


# ---------------------------------------------------------------- the API around it

def test_jacobian_of_a_vector_by_a_variable_and_a_constant():
    v = sg.Variable(np.array([1.0, 2.0, 3.0]))
    c = np.array([0.5, -1.0])
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(c)
        y = v[:2] * c + v[2]
    jv = tape.jacobian(y, v)
    np.testing.assert_allclose(jv, [[0.5, 0.0, 1.0], [0.0, -1.0, 1.0]])
    np.testing.assert_allclose(tape.jacobian(y, c), np.diag([1.0, 2.0]))
    structured = tape.jacobian(y, {"v": v, "c": [c]})
    np.testing.assert_allclose(structured["v"], jv)
    np.testing.assert_allclose(structured["c"][0], np.diag([1.0, 2.0]))


def test_jacobian_of_a_scalar_and_by_a_scalar():
    x = sg.Variable(2.0)
    with sg.GradientTape(persistent=True) as tape:
        y = x ** 3
        v = np.array([x, x * x])
    assert np.shape(tape.jacobian(y, x)) == ()
    np.testing.assert_allclose(tape.jacobian(y, x), 12.0)
    np.testing.assert_allclose(tape.jacobian(v, x), [1.0, 4.0])


def test_unconnected_sources():
    x = np.array([1.0, 2.0])
    z = np.array([3.0, 4.0, 5.0])
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(z)
        y = x * 2.0
    assert tape.jacobian(y, z) is None
    zero = tape.jacobian(y, z, unconnected_gradients=sg.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zero, np.zeros((2, 3)))
    assert tape.batch_jacobian(y, x[:, None] * 1.0) is None


def test_jacobian_keeps_float32():
    x = np.array([1.0, 2.0], dtype=np.float32)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    jac = tape.jacobian(y, x)
    assert jac.dtype == np.float32
    np.testing.assert_allclose(jac, np.diag([2.0, 4.0]))


def test_jacobian_through_two_blocks_of_a_persistent_tape():
    x = np.array([0.5, 1.5])
    tape = sg.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        h = np.sin(x) * x[::-1]
    u = h * 3.0  # not recorded
    with tape:
        y = np.outer(h, x)
    jac = tape.jacobian(y, x)
    expected = jacobian_fd(lambda a: np.outer(np.sin(a) * a[::-1], a), (x,))[0]
    np.testing.assert_allclose(jac, expected, rtol=1e-6, atol=1e-8)
    assert tape.jacobian(u, x) is None


def test_jacobian_in_every_placement():
    @sg.function
    def decorated(x):
        with sg.GradientTape() as tape:
            tape.watch(x)
            y = np.tanh(x) * x[0]
        return tape.jacobian(y, x)

    def manual(x):
        tape = sg.GradientTape()
        tape.__enter__()
        tape.watch(x)
        y = np.tanh(x) * x[0]
        tape.__exit__(None, None, None)
        return tape.jacobian(y, x)

    x = np.array([0.3, -0.8, 1.1])
    expected = jacobian_fd(lambda a: np.tanh(a) * a[0], (x,))[0]
    for fn in (decorated, manual):
        np.testing.assert_allclose(fn(x), expected, rtol=1e-6, atol=1e-8)


def _mlp(x, w1, w2):
    return np.tanh(np.tanh(x @ w1) @ w2)


def test_batch_jacobian_is_the_diagonal_of_jacobian():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 3))
    w1, w2 = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = _mlp(x, w1, w2)
    batch = tape.batch_jacobian(y, x)
    full = tape.jacobian(y, x)
    assert batch.shape == (5, 2, 3)
    for b in range(5):
        np.testing.assert_allclose(batch[b], full[b, :, b, :], rtol=1e-12, atol=1e-14)
    per_example = [jacobian_fd(lambda r: _mlp(r[None, :], w1, w2)[0], (x[b],))[0] for b in range(5)]
    np.testing.assert_allclose(batch, np.stack(per_example), rtol=1e-6, atol=1e-8)


def test_batch_jacobian_of_rank_3_target():
    x = np.arange(12.0).reshape(2, 3, 2) / 10.0
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sin(x)[:, :, :, None] * x[:, :, None, :]
    batch = tape.batch_jacobian(y, x)
    assert batch.shape == (2, 3, 2, 2, 3, 2)
    for b in range(2):
        expected = jacobian_fd(lambda r: np.sin(r)[:, :, None] * r[:, None, :], (x[b],))[0]
        np.testing.assert_allclose(batch[b], expected, rtol=1e-6, atol=1e-8)


def test_batch_jacobian_needs_a_shared_first_dimension():
    x = np.ones((3, 2))
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.sum(x, axis=1)[:2]
    with pytest.raises(ValueError, match="same first dimension"):
        tape.batch_jacobian(y, x)
    with pytest.raises(ValueError, match="same first dimension"):
        tape.batch_jacobian(np.sum(y), x)


def test_non_persistent_tape_allows_one_jacobian():
    x = np.array([1.0, 2.0])
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.jacobian(y, x)
    with pytest.raises(RuntimeError, match="only be called once"):
        tape.jacobian(y, x)


def _row_texts(tape_module, tape, word):
    """The row-mode code compiled for ``tape``'s blocks: over the record of a block run
    once, or (blocks recorded by the rerun design) in the tape's cache."""
    if any(r.once is not None for r in tape._records):
        texts = [r.once[0].rows.text for r in tape._records if r.once[0].rows]
    else:
        texts = [e.text for k, e in tape_module._COMPILED.items() if k[-1] is True]
    return [t for t in texts if word in t]


def test_generated_code_runs_the_backward_pass_once_for_all_rows():
    """The batched code has no loop over rows: its adjoints carry them."""
    import srcgrad.tape.tape as tape_module

    x = np.array([0.2, 0.4, 0.6])
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.cumsum(np.exp(x))
    tape.jacobian(y, x)
    texts = _row_texts(tape_module, tape, "cumsum")
    assert texts, "no batched code compiled"
    assert "all seed rows at once" in texts[-1]
    assert "_sg.cumsum_rows(" in texts[-1]
    assert "for " not in texts[-1] and "each_row" not in texts[-1]


def test_a_rule_without_a_row_form_runs_once_per_row(monkeypatch):
    """The fallback for a grad expression ``row_form`` cannot see through."""
    import srcgrad.tape.tape as tape_module
    from srcgrad.rules.entry import Rule

    monkeypatch.setitem(table.TABLE, np.sinh, Rule("x", x="np.multiply(g, np.cosh(x))"))
    assert row_form("np.multiply(g, np.cosh(x))")[1] is True
    x = np.array([0.1, -0.4, 0.9])
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = np.sinh(x) * x[0]
    jac = tape.jacobian(y, x)
    expected = jacobian_fd(lambda a: np.sinh(a) * a[0], (x,))[0]
    np.testing.assert_allclose(jac, expected, rtol=1e-6, atol=1e-8)
    texts = _row_texts(tape_module, tape, "sinh")
    assert "_sg.each_row(lambda row" in texts[-1]
