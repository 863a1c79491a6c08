"""``try``/``except`` in differentiated code (passes/try_except.py): the backward code
takes the path the forward code took, the printed code is a ``try`` again.

The cases keep away from the edge between the paths (a matrix whose Cholesky
factorization fails by a wide margin), so that central differences stay on one path.
"""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tests.tape_forms import taped, taped_hvp

RNG = np.random.default_rng(5)
M = RNG.normal(size=(4, 4))
LOWEST = np.linalg.eigvalsh(M @ M.T).min()
GOOD = 1.0                 # M M^T + GOOD I: positive definite
BAD = -(LOWEST + 0.5)      # lowest eigenvalue -0.5: the factorization fails
LinAlgError = np.linalg.LinAlgError


def cholesky_or_jitter(m, shift):
    K = m @ m.T + shift * np.eye(len(m))
    try:
        L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(K + 1.0 * np.eye(len(m)))
    return np.sum(np.log(np.diag(L))) + np.sum(L ** 2) / 10.0


def _safe_cholesky(K):
    try:
        return np.linalg.cholesky(K)
    except LinAlgError:
        return np.linalg.cholesky(K + 1.0 * np.eye(len(K)))


def helper_returning_from_both(m, shift):
    L = _safe_cholesky(m @ m.T + shift * np.eye(len(m)))
    return np.sum(np.tanh(L))


def params_dict(params, shift):
    K = params["m"] @ params["m"].T + shift * np.eye(len(params["m"]))
    try:
        L = np.linalg.cholesky(K)
        logdet = 2.0 * np.sum(np.log(np.diag(L)))
    except LinAlgError:
        L = np.linalg.cholesky(K + np.eye(len(K)))
        logdet = 2.0 * np.sum(np.log(np.diag(L))) + params["penalty"]
    return logdet + np.sum(L)


def jitter_for_loop(m, shift):
    K = m @ m.T + shift * np.eye(len(m))
    jitter = 0.0
    for _ in range(8):
        try:
            L = np.linalg.cholesky(K + jitter * np.eye(len(K)))
            break
        except LinAlgError:
            jitter = 1e-3 if jitter == 0.0 else jitter * 10.0
    return np.sum(L ** 2) + jitter


def jitter_while_loop(m, shift):
    K = m @ m.T + shift * np.eye(len(m))
    jitter = 1e-3
    while True:
        try:
            L = np.linalg.cholesky(K + jitter * np.eye(len(K)))
            break
        except np.linalg.LinAlgError as err:
            jitter = jitter * (10.0 if "positive definite" in str(err) else 100.0)
    return np.sum(np.log(np.diag(L)))


def with_else_clause(m, shift):
    K = m @ m.T + shift * np.eye(len(m))
    try:
        scaled = K * 0.5
        L = np.linalg.cholesky(scaled)
    except (np.linalg.LinAlgError, ValueError):
        L = np.linalg.cholesky(K * 0.5 + np.eye(len(K)))
        scale = 2.0
    else:
        scale = np.sum(scaled) / 100.0 + 1.0   # (the body ran to its end: ``scaled`` is its)
    return scale * np.sum(L ** 2)


def raise_in_the_body(xs):
    total = 0.0
    for k in range(len(xs)):
        v = xs[k]
        try:
            if v < 0:
                raise ValueError("negative")
            s = np.sqrt(v) * 2.0
        except ValueError:
            s = v * v
        total = total + s
    return total


def division_by_zero(a, b):
    try:
        r = a / b
    except ZeroDivisionError:
        r = a * 3.0
    return r * a


def key_error_fallback(x, params):
    try:
        scale = params["scale"]
    except KeyError:
        scale = x[0]
    return np.sum(scale * x ** 2)


def exception_carries_a_value(x):
    try:
        if x[0] > 0:
            raise ValueError(2.0)
        y = x * 3.0
    except ValueError as err:
        y = x * err.args[0]
    return np.sum(y ** 2)


def bare_except(x):
    try:
        y = np.log(x) if np.all(x > 0) else np.asarray(None) + 1
    except:  # noqa: E722 (the form people write)
        y = x * 2.0
    return np.sum(y ** 2)


def raises_in_an_inner_loop(x, limit):
    total = 0.0
    for k in range(3):
        try:
            acc = x * 1.0
            for j in range(4):
                acc = np.sin(acc) * (j + 1.0)
                if j == limit and k == 1:
                    raise ValueError("stop")
            total = total + np.sum(acc)
        except ValueError:
            total = total + np.sum(x ** 2)
    return total


def nested_tries(x, a, b):
    try:
        try:
            if a > 0:
                raise KeyError("a")
            y = x * 2.0
        except KeyError:
            if b > 0:
                raise ValueError("b")
            y = x * 3.0
    except ValueError:
        y = x ** 3
    return np.sum(y)


def returns_from_a_loop(x):
    for k in range(5):
        try:
            if k == 2:
                raise ValueError("two")
            if np.sum(x) * k > 3.0:
                return np.sum(x ** 2) * k
        except ValueError:
            continue
    return np.sum(x)


def handler_continues(xs):
    out = 0.0
    for v in xs:
        try:
            if v < -1.0:
                raise ValueError("too small")
            r = np.exp(v)
        except ValueError:
            continue
        out = out + r * v
    return out


MATRIX_CASES = [(f, shift) for f in (cholesky_or_jitter, helper_returning_from_both,
                                      jitter_for_loop, jitter_while_loop, with_else_clause)
                for shift in (GOOD, BAD)]


@pytest.mark.parametrize("f, shift", MATRIX_CASES, ids=lambda c: getattr(
    c, "__name__", "good" if c == GOOD else "bad"))
def test_matrix_functions_on_both_paths(f, shift):
    check_grads(f, (M.copy(), shift), order=2, wrt=0, rtol=1e-4, atol=1e-6)
    value, _ = sg.value_and_grad(f)(M, shift)
    assert value == pytest.approx(f(M, shift), rel=1e-12)
    v = RNG.normal(size=M.shape)
    _, t = sg.jvp(lambda m: f(m, shift), (M,), (v,))
    assert t == pytest.approx(np.sum(sg.grad(f)(M, shift) * v), rel=1e-8)


@pytest.mark.parametrize("shift", [GOOD, BAD])
def test_a_parameter_dict(shift):
    params = {"m": M.copy(), "penalty": 0.3}
    check_grads(params_dict, (params, shift), order=2, wrt=0, rtol=1e-4, atol=1e-6)
    g = sg.grad(params_dict)(params, shift)
    assert g["penalty"] == (1.0 if shift == BAD else 0.0)


@pytest.mark.parametrize("f, args", [
    (raise_in_the_body, (np.array([1.0, -2.0, 3.0, -0.5]),)),
    (division_by_zero, (1.5, 2.0)), (division_by_zero, (1.5, 0.0)),
    (key_error_fallback, (np.array([0.5, -1.0, 2.0]), {"scale": 3.0})),
    (key_error_fallback, (np.array([0.5, -1.0, 2.0]), {"other": 3.0})),
    (exception_carries_a_value, (np.array([0.5, -1.0]),)),
    (exception_carries_a_value, (np.array([-0.5, -1.0]),)),
    (bare_except, (np.array([1.0, 2.0]),)), (bare_except, (np.array([1.0, -2.0]),)),
    # (a raise part way through an inner loop: what the body pushed is rolled back)
    (raises_in_an_inner_loop, (np.array([0.3, -0.7, 1.1]), 2)),
    (raises_in_an_inner_loop, (np.array([0.3, -0.7, 1.1]), 0)),
    (raises_in_an_inner_loop, (np.array([0.3, -0.7, 1.1]), 9)),
    (nested_tries, (np.array([0.3, -0.7]), 0, 0)), (nested_tries, (np.array([0.3, -0.7]), 1, 0)),
    (nested_tries, (np.array([0.3, -0.7]), 0, 1)), (nested_tries, (np.array([0.3, -0.7]), 1, 1)),
    (returns_from_a_loop, (np.array([0.3, -0.7, 1.1]),)),
    (returns_from_a_loop, (np.array([0.9, 0.7, 1.1]),)),
    (handler_continues, (np.array([0.5, -2.0, 1.5, -3.0]),)),
], ids=lambda c: getattr(c, "__name__", ""))
def test_other_exceptions(f, args):
    check_grads(f, args, order=2, wrt=0)


@pytest.mark.parametrize("shift", [GOOD, BAD])
def test_tapes(shift):
    @sg.function
    def taped(m):
        with sg.GradientTape() as tape:
            tape.watch(m)
            K = m @ m.T + shift * np.eye(4)
            try:
                L = np.linalg.cholesky(K)
            except np.linalg.LinAlgError:
                L = np.linalg.cholesky(K + 1.0 * np.eye(4))
            y = np.sum(np.log(np.diag(L))) + np.sum(L ** 2) / 10.0
        return tape.gradient(y, m)

    expected = sg.grad(cholesky_or_jitter)(M, shift)
    np.testing.assert_allclose(taped(M), expected, rtol=1e-10)
    m = M.copy()
    with sg.GradientTape() as tape:  # (plain code: the block compiled where it runs)
        tape.watch(m)
        K = m @ m.T + shift * np.eye(4)
        try:
            L = np.linalg.cholesky(K)
        except np.linalg.LinAlgError:
            L = np.linalg.cholesky(K + 1.0 * np.eye(4))
        y = np.sum(np.log(np.diag(L))) + np.sum(L ** 2) / 10.0
    np.testing.assert_allclose(tape.gradient(y, m), expected, rtol=1e-10)


@pytest.mark.parametrize("shift", [GOOD, BAD])
def test_a_tape_with_a_try_in_a_loop(shift):
    m = M.copy()
    with sg.GradientTape() as tape:
        tape.watch(m)
        K = m @ m.T + shift * np.eye(len(m))
        jitter = 0.0
        for _ in range(8):
            try:
                L = np.linalg.cholesky(K + jitter * np.eye(len(K)))
                break
            except LinAlgError:
                jitter = 1e-3 if jitter == 0.0 else jitter * 10.0
        y = np.sum(L ** 2) + jitter
    np.testing.assert_allclose(tape.gradient(y, m), sg.grad(jitter_for_loop)(M, shift),
                               rtol=1e-10)


def checks_by_factoring(m, shift):
    K = m @ m.T + shift * np.eye(len(m))
    try:
        np.linalg.cholesky(K)  # (its value unused: it is there to raise)
    except np.linalg.LinAlgError:
        K = K + 10.0 * np.eye(len(m))
    return np.sum(np.linalg.inv(K))


def checks_into_an_unused_name(m, shift):
    K = m @ m.T + shift * np.eye(len(m))
    try:
        check = np.linalg.cholesky(K)  # noqa: F841
    except np.linalg.LinAlgError:
        K = K + 10.0 * np.eye(len(m))
    return np.sum(np.linalg.inv(K))


@pytest.mark.parametrize("f", [checks_by_factoring, checks_into_an_unused_name],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("shift", [GOOD, BAD], ids=["good", "bad"])
def test_a_body_whose_value_is_unused_still_runs(f, shift):
    """A statement of a try's body whose value nothing reads was dropped from the
    gradient's code (cleanup.drop_unused), so it never raised: the handler's jitter was
    never added, a wrong gradient. Each may raise: none is dropped."""
    check_grads(f, (M.copy(), shift), order=2, wrt=0)
    m = M.copy()
    with sg.GradientTape() as tape:
        tape.watch(m)
        K = m @ m.T + shift * np.eye(4)
        try:
            np.linalg.cholesky(K)
        except np.linalg.LinAlgError:
            K = K + 10.0 * np.eye(4)
        y = np.sum(np.linalg.inv(K))
    np.testing.assert_allclose(tape.gradient(y, m), sg.grad(f)(M, shift), rtol=1e-10)


def else_clause_raises(x, flag):
    try:
        unused = np.sum(x)  # noqa: F841
    except ValueError:
        unused = 0.0  # noqa: F841
    else:
        if flag > 0:
            raise ValueError("from the else clause")
        x = x * 3.0
    return np.sum(x)


def test_an_else_clause_is_not_protected_by_the_try():
    """(Its branch was printed as the try's own where the body's code was gone: its
    exception was caught.)"""
    assert sg.grad(else_clause_raises)(np.ones(2), 0.0) == pytest.approx(3.0 * np.ones(2))
    with pytest.raises(ValueError, match="from the else clause"):
        sg.grad(else_clause_raises)(np.ones(2), 1.0)


def logs_failures(m, shift, log):
    K = m @ m.T + shift * np.eye(len(m))
    try:
        L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError as e:
        log.append(str(e))
        L = np.linalg.cholesky(K + np.eye(len(m)))
    return np.sum(L)


def test_the_handler_runs_once_and_the_code_reads_as_a_try():
    log = []
    sg.grad(logs_failures)(M, BAD, log)
    assert log == ["Matrix is not positive definite"]
    sg.grad(logs_failures)(M, GOOD, log)
    assert len(log) == 1
    text = sg.adjoint_source(cholesky_or_jitter)
    assert "    try:\n" in text and "except np.linalg.LinAlgError:" in text, text


def reraises(m, shift):
    try:
        L = np.linalg.cholesky(m @ m.T + shift * np.eye(len(m)))
    except np.linalg.LinAlgError as e:
        raise ValueError("kernel not positive definite") from e
    return np.sum(L)


def test_a_handler_that_raises():
    check_grads(reraises, (M.copy(), GOOD), order=2, wrt=0)
    with pytest.raises(ValueError, match="kernel not positive definite") as info:
        sg.grad(reraises)(M, BAD)
    assert isinstance(info.value.__cause__, LinAlgError)


# What the compiler refuses, naming the line: where a later statement of the body
# raising would leave a change the branch does not model.

def binds_then_raises(x, flag):
    try:
        y = x * 2.0
        if flag > 0:
            raise ValueError("x")
    except ValueError:
        pass
    return np.sum(y)


def changes_then_raises(x, flag):
    state = {"h": x}
    try:
        state["h"] = x * 3.0
        if flag > 0:
            raise ValueError("x")
    except ValueError:
        pass
    return np.sum(state["h"])


class _Cell:
    def __init__(self, h):
        self.h = h

    def step(self, x):
        self.h = self.h * x
        return self.h


def method_sets_a_field_then_raises(x, flag):
    c = _Cell(x * 1.0)
    try:
        c.step(x)
        if flag > 0:
            raise ValueError("x")
        y = c.h * 2.0
    except ValueError:
        y = c.h * 5.0
    return np.sum(y)


def helper_appends_then_raises(x, flag):
    items = [x]

    def add(v):
        items.append(v * 2.0)
        return v
    try:
        add(x)
        if flag > 0:
            raise ValueError("x")
        y = x
    except ValueError:
        y = x * 0.0
    return np.sum(y) + np.sum(items[-1])


def carried_to_the_next_trip(x, flag):
    total = 0.0
    h = x * 1.0
    for k in range(3):
        try:
            h = np.tanh(h) * 2.0   # read by the next trip: a raise below would leave it
            if k == flag:
                raise ValueError("bad")
            total = total + np.sum(h)
        except ValueError:
            pass
    return total


def handler_prints_a_value_of_the_body(x, flag, log):
    total = 0.0
    for k in range(3):
        try:
            loss = np.sum(x ** 2) * k
            z = loss * loss
            if k == flag:
                raise ValueError("bad")
            total = total + z
        except ValueError:
            log.append(float(loss))  # (the loss of the trip that raised, as Python has it)
    return total


def tape_result_bound_before_a_raise(x, flag):
    with sg.GradientTape() as tape:
        tape.watch(x)
        total = 0.0
        for k in range(3):
            try:
                tmp = np.sum(x ** 2) * k   # (a result of the block: read after it)
                tmp2 = tmp * tmp
                if k == flag:
                    raise ValueError("bad")
                total = total + tmp2
            except ValueError:
                pass
    return tape.gradient(total, x), tmp


def kernel_read_by_the_handler(x, shift):
    """A Gaussian process's jitter as people write it: the handler reads ``K``, which the
    body bound before the factorization raised."""
    try:
        K = np.outer(x, x) + M @ M.T + shift * np.eye(len(x))
        L = np.linalg.cholesky(K)
    except LinAlgError:
        L = np.linalg.cholesky(K + (1.0 - shift + 2.0) * np.eye(len(x)))
    return np.sum(L ** 2) + np.sum(np.log(np.diag(L)))


@pytest.mark.parametrize("f", [binds_then_raises, changes_then_raises,
                               method_sets_a_field_then_raises, helper_appends_then_raises,
                               carried_to_the_next_trip], ids=lambda f: f.__name__)
@pytest.mark.parametrize("flag", [0.0, 1.0, 2.0])
def test_what_the_body_did_before_it_raised_stays_done(f, flag):
    """The body split where it may raise (``split``): each handler runs after exactly
    the statements that ran, in every placement."""
    x = np.array([0.5, 2.0])
    check_grads(f, (x.copy(), flag), order=2, wrt=0)
    g = sg.grad(f)(x.copy(), flag)
    value, g2 = sg.value_and_grad(f)(x.copy(), flag)
    assert value == pytest.approx(f(x.copy(), flag), rel=1e-14)
    np.testing.assert_allclose(g2, g, rtol=1e-14)
    np.testing.assert_allclose(taped(lambda v: f(v, flag), x.copy()), g, rtol=1e-14)
    np.testing.assert_allclose(sg.function(taped)(lambda v: f(v, flag), x.copy()), g,
                               rtol=1e-14)


@pytest.mark.parametrize("shift", [GOOD, BAD])
def test_the_handler_reads_what_the_body_bound_before_it_raised(shift):
    x = np.array([0.3, -0.2, 0.5, 0.1])
    check_grads(kernel_read_by_the_handler, (x, shift), order=2, wrt=0, rtol=1e-4,
                atol=1e-6)
    np.testing.assert_allclose(taped(lambda v: kernel_read_by_the_handler(v, shift), x),
                               sg.grad(kernel_read_by_the_handler)(x, shift), rtol=1e-12)
    text = sg.adjoint_source(kernel_read_by_the_handler)
    assert text.count("except LinAlgError:") == 2  # (the handler after each part)


@pytest.mark.parametrize("flag", [0, 1, 2, 5])
def test_values_of_a_body_that_raised_read_after_it_are_pythons(flag):
    x = np.array([0.5, 1.0])
    python_log, compiled_log = [], []
    want = handler_prints_a_value_of_the_body(x.copy(), flag, python_log)
    value, _ = sg.value_and_grad(handler_prints_a_value_of_the_body)(x.copy(), flag,
                                                                      compiled_log)
    assert value == pytest.approx(want, rel=1e-14) and compiled_log == python_log
    check_grads(lambda v: handler_prints_a_value_of_the_body(v, flag, []), (x.copy(),),
                order=2)

    def written_out(v):
        total = 0.0
        for k in range(3):
            if k != flag:
                total = total + (np.sum(v ** 2) * k) ** 2
        return total

    for placement in (tape_result_bound_before_a_raise,
                      sg.function(tape_result_bound_before_a_raise)):
        g, tmp = placement(x.copy(), flag)
        np.testing.assert_allclose(g, sg.grad(written_out)(x.copy()), rtol=1e-12)
        assert tmp == pytest.approx(np.sum(x ** 2) * 2, rel=1e-14)


def handler_taken_by_a_data_dependent_raise(x):
    b = 4.0 - x * x
    try:
        if x[0] > 0:
            raise ValueError("x")
        g = b * 2.0
    except ValueError:
        g = b
    return np.sum(b) + np.mean(g)


def handler_always_taken(x):
    """(fuzzer seed 48600, program 36, second order)"""
    a = x * x
    b = (4,)
    try:
        d = a
        c = d
    except KeyError:
        pass
    b -= c
    try:
        raise ValueError("x")
    except ValueError:
        g = b
    return np.sum(b) + np.mean(g)


@pytest.mark.parametrize("f", [handler_taken_by_a_data_dependent_raise, handler_always_taken])
def test_second_order_where_the_handler_ran(f):
    """The first derivative's backward ``if cond:`` (cond a copy of the try's flag) was
    printed as a ``try`` of its own when the derivative code was compiled again, so its
    body always ran: a wrong second derivative wherever the handler had run."""
    x = np.array([0.61, 1.189, 1.437, 0.383])
    check_grads(f, (x,), order=2)
    v = np.array([0.7, -0.4, 1.1, 0.3])
    np.testing.assert_allclose(taped_hvp(f, x.copy(), v), -2.5 * v, rtol=1e-12)


def helper_appends_then_raises_inside(x, flag):
    items = [x]

    def add(v):
        items.append(v * 2.0)
        if flag > 0:
            raise ValueError("x")
        return v
    try:
        y = add(x)
    except ValueError:
        y = x * 0.0
    return np.sum(y) + np.sum(items[-1])


def helper_stores_then_raises_inside(x, flag):
    d = {"h": x}

    def update(v):
        d["h"] = v * 3.0
        if flag > 0:
            raise ValueError("x")
        return v
    try:
        y = update(x)
    except ValueError:
        y = d["h"] * 2.0
    return np.sum(y)


def method_sets_a_field_then_raises_inside(x, flag):
    c = _Cell(x * 1.0)

    def step(v):
        c.step(v)
        if flag > 0:
            raise ValueError("x")
        return c.h
    try:
        y = step(x)
    except ValueError:
        y = c.h * 5.0
    return np.sum(y)


def loop_binds_then_raises(x, flag):
    h = x * 1.0
    try:
        for k in range(3):
            h = np.tanh(h) * 2.0
            if k == flag:
                raise ValueError("x")
    except ValueError:
        pass
    return np.sum(h)


def with_finally(x):
    try:
        y = x * 2.0
    except ValueError:
        y = x
    finally:
        x = x + 1.0
    return np.sum(y)


def two_handlers(x):
    try:
        y = np.sqrt(x)
    except ValueError:
        y = x
    except KeyError:
        y = x * 2.0
    return np.sum(y)


@pytest.mark.parametrize("f, message", [
    # (A statement that raises after it changed something, inside a call or a loop: was a
    # wrong gradient, the change taken for not made.)
    (helper_appends_then_raises_inside, r"changes `items` \(a list, dict or array\) before "
                                        r"its last statement \(here, or in code it calls\)"),
    (helper_stores_then_raises_inside, r"changes `d` \(a list, dict or array\)"),
    (method_sets_a_field_then_raises_inside, r"binds `c.h` before its last statement"),
    (loop_binds_then_raises, r"binds `h` before its last statement"),
    (with_finally, r"try statement with a finally clause is not supported"),
    (two_handlers, r"several except clauses"),
], ids=lambda c: getattr(c, "__name__", ""))
def test_refused_naming_the_line(f, message):
    with pytest.raises(sg.CompileError, match=message + r".*test_try_except\.py:\d+"):
        sg.grad(f)(np.array([0.5, 2.0]), 1.0) if f.__code__.co_argcount == 2 \
            else sg.grad(f)(np.array([0.5, 2.0]))


def test_the_numba_backend_refuses_a_try_naming_its_line():
    pytest.importorskip("numba")
    with pytest.raises(sg.CompileError, match=r"try statement is not supported by srcgrad's "
                                              r"Numba backend \(test_try_except\.py:\d+\)"):
        sg.grad(cholesky_or_jitter, backend="numba")(M, GOOD)
