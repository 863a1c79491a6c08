"""Forward mode (issue 14, section 1) against the gradient, on every corpus function:
where forward mode compiles, ``<J t, u> == <t, J^T u>`` for random directions (the
transpose computed by sg.grad), and the value is the function's. Where it does not
(a primitive without a tangent rule), the refusal names the line, and sg.jvp still
answers by transposition. Also: ``srcgrad show --mode forward`` prints the code."""
import copy
import re

import numpy as np
import pytest

import srcgrad as sg
from corpus import FUNCTIONS, float_argnums, make_args
from srcgrad.cli import main
from srcgrad.compiler.tangents import compile_tangent
from srcgrad.errors import CompileError

SUPPORTED = []  # corpus functions forward mode compiled (checked below to be most of them)
TRIED = set()  # (on this worker: the suite's tests are spread over several processes)


def _direction(value, rng):
    return rng.standard_normal(np.shape(value)) if isinstance(value, np.ndarray) \
        else float(rng.standard_normal())


def test_forward_mode_agrees_with_the_gradient(corpus_func):
    args = make_args(corpus_func)
    wrt = list(float_argnums(args))
    if not wrt:
        pytest.skip("no float argument")
    TRIED.add(corpus_func.__name__)
    try:
        code = compile_tangent(corpus_func, wrt, copy.deepcopy(args))
    except CompileError as error:  # a refusal names the line
        assert re.search(r"\(\S+:\d+\)", str(error)), str(error)
        return
    SUPPORTED.append(corpus_func.__name__)
    rng = np.random.default_rng(1)
    dirs = [_direction(args[i], rng) for i in wrt]
    value, tangent = code.fn(*copy.deepcopy(args), *dirs)
    expected = corpus_func(*copy.deepcopy(args))
    np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12)
    if np.ndim(expected) != 0:
        return  # (sg.grad takes scalar results: the vector ones are checked by jvp below)
    grads = sg.grad(corpus_func, tuple(wrt))(*copy.deepcopy(args))
    want = sum(float(np.sum(g * d)) for g, d in zip(grads, dirs))
    assert float(tangent) == pytest.approx(want, rel=1e-8, abs=1e-10)


def test_most_corpus_functions_compile_in_forward_mode():
    supported = set(SUPPORTED)
    for f in FUNCTIONS:  # those the test above did not try in this process
        args = make_args(f)
        wrt = list(float_argnums(args))
        if f.__name__ in TRIED or not wrt:
            continue
        try:
            compile_tangent(f, wrt, copy.deepcopy(args))
        except CompileError:
            continue
        supported.add(f.__name__)
    assert len(supported) >= 180, sorted(supported)


def test_show_mode_forward_prints_the_tangent_code(capsys, tmp_path):
    path = tmp_path / "model.py"
    path.write_text("import numpy as np\n\n\ndef f(x, w):\n    return np.sum(np.tanh(w * x))\n")
    assert main(["show", f"{path}:f", "--mode", "forward", "--wrt", "w"]) == 0
    out = capsys.readouterr().out
    assert "def jvp_f(x, w, w_dot):" in out and "np.tanh" in out and "return (result, " in out


def vector_valued(x, W):
    h = np.tanh(W @ x)
    out = []
    for i in range(3):
        out.append(h[i] * x[i] if h[i] > 0 else -h[i])
    return np.stack(out) + np.linalg.solve(np.eye(3) * 3 + np.outer(h, h), h)


def test_jvp_of_a_vector_function_by_forward_mode_and_by_transposition():
    rng = np.random.default_rng(4)
    x, W, dx, dW = rng.normal(size=3), rng.normal(size=(3, 3)), rng.normal(size=3), \
        rng.normal(size=(3, 3))
    forward = compile_tangent(vector_valued, [0, 1], [x, W])
    value, tangent = forward.fn(x, W, dx, dW)
    eps = 1e-6
    numeric = (vector_valued(x + eps * dx, W + eps * dW)
               - vector_valued(x - eps * dx, W - eps * dW)) / (2 * eps)
    np.testing.assert_allclose(tangent, numeric, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sg.jvp(vector_valued, (x, W), (dx, dW))[1], tangent, rtol=1e-10)


def broadcast_against_a_constant(x):
    """The tangent of ``d - m`` (``m`` a differentiated scalar, ``d`` a constant array)
    has ``d``'s shape: found by the fuzzer (a scalar tangent, then ``sum`` over it)."""
    d = np.ones(3)
    m = np.min(x)
    e = d - m
    return sum(e) + np.sum(np.sin(e) * np.arange(3.0))


def branch_that_only_rebinds(x, y):
    """A branch whose statements all vanish when normalized (``c = c``): an ``if`` with an
    empty body in the tangent code, found by the fuzzer."""
    c = x * 2.0
    if np.sum(y) > 0.0:
        c = c if np.mean(x) < 0.5 else c
    else:
        c = x * 3.0
    return np.sum(c * y)


@pytest.mark.parametrize("f, args", [
    (broadcast_against_a_constant, (np.array([0.3, -0.7]),)),
    (branch_that_only_rebinds, (np.array([0.3, -0.7]), np.array([1.0, 2.0]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_forward_mode_regressions(f, args):
    wrt = list(range(len(args)))
    code = compile_tangent(f, wrt, list(args))
    rng = np.random.default_rng(3)
    dirs = [rng.standard_normal(np.shape(a)) for a in args]
    value, tangent = code.fn(*args, *dirs)
    grads = sg.grad(f, tuple(wrt))(*args)
    assert float(tangent) == pytest.approx(sum(float(np.sum(g * d)) for g, d in zip(grads, dirs)),
                                           rel=1e-10)
