"""The gradient of a function by a tape recording a call of it: the tape form of tests.

``sg.function(taped)(f, x)`` gives the same inside ``@sg.function``. Also the
central-difference Jacobian that ``tape.jacobian`` is checked against, the
forward-mode check of the rule families' end-to-end tests, and the tangent-and-tape
check of the functions written out (``assert_tangent_and_tape``).
"""
import numpy as np
import pytest

import srcgrad as sg


def taped(f, x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def taped_hvp(f, x, v):
    """The Hessian-vector product as TensorFlow users write it: the inner tape's gradient
    dotted with ``v``, differentiated by the outer tape."""
    with sg.GradientTape() as outer:
        outer.watch(x)
        with sg.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
        gv = np.sum(g * v)
    return outer.gradient(gv, x)


def taped_two(f, x, y):
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(y)
        z = f(x, y)
    return tape.gradient(z, [x, y])


def taped_three(f, x, y, w):
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(y)
        tape.watch(w)
        z = f(x, y, w)
    return tape.gradient(z, [x, y, w])


def taped_any(f, inputs):
    """The gradients of ``f(*inputs)`` (one to three inputs), by a tape, as a list."""
    if len(inputs) == 1:
        return [taped(f, inputs[0])]
    return taped_two(f, *inputs) if len(inputs) == 2 else taped_three(f, *inputs)


def fd_jacobian(build, x, eps=1e-6):
    """d build(x) / dx by central differences: shape ``build(x).shape + x.shape``."""
    columns = []
    for idx in np.ndindex(x.shape):
        step = np.zeros(x.shape)
        step[idx] = eps
        columns.append((np.asarray(build(x + step)) - np.asarray(build(x - step))) / (2 * eps))
    out = np.stack(columns, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


def assert_forms_agree(f, args, nonzero=False):
    """``sg.value_and_grad``'s value is ``f``'s, and its gradients and a tape's are
    ``sg.grad``'s, with respect to every argument.

    ``nonzero`` also asks that every gradient have some non-zero entry, for cases
    built so that each argument reaches the value."""
    import pytest

    wrt = tuple(range(len(args)))
    value, grads = sg.value_and_grad(f, wrt=wrt)(*args)
    want = sg.grad(f, wrt=wrt)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    on_tape = taped_any(f, [np.asarray(a, dtype=float) for a in args])
    for got, taped_grad, expected in zip(grads, on_tape, want):
        assert np.shape(got) == np.shape(expected)
        assert not nonzero or np.any(expected != 0)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
        if taped_grad is None:  # TensorFlow's answer for an argument the value does not reach
            assert not np.any(expected), "the tape says not connected; sg.grad disagrees"
            continue
        np.testing.assert_allclose(taped_grad, expected, rtol=1e-10, atol=1e-12)


def assert_forward_mode_agrees(f, args, seed=3):
    """Forward mode compiles ``f`` (every rule it meets has a tangent: no transposition),
    gives ``f``'s value, and a tangent along random directions that agrees with the
    gradient (``<grad, t>``), with central differences, and with ``sg.jvp``."""
    import pytest

    from srcgrad.compiler.tangents import compile_tangent

    args = tuple(np.asarray(a, dtype=float) for a in args)
    rng = np.random.default_rng(seed)
    tangents = tuple(rng.standard_normal(np.shape(a)) for a in args)
    code = compile_tangent(f, list(range(len(args))), tuple(a.copy() for a in args))
    value, tangent = code.fn(*[a.copy() for a in args], *tangents)
    assert value == pytest.approx(f(*args), rel=1e-12)
    grads = sg.grad(f, wrt=tuple(range(len(args))))(*args)
    reverse = sum(float(np.sum(g * t)) for g, t in zip(grads, tangents))
    assert float(tangent) == pytest.approx(reverse, rel=1e-9, abs=1e-12)
    eps = 1e-6
    numeric = (f(*[a + eps * t for a, t in zip(args, tangents)])
               - f(*[a - eps * t for a, t in zip(args, tangents)])) / (2 * eps)
    assert float(tangent) == pytest.approx(numeric, rel=1e-6, abs=1e-8)
    _, jvp = sg.jvp(f, args, tangents)
    assert float(jvp) == pytest.approx(float(tangent), rel=1e-12, abs=1e-14)


def assert_every_form(f, x, order=2, nonzero=False):
    """``f`` of one array ``x``: its gradient agrees with central differences (to ``order``),
    ``value_and_grad``'s and a tape's in plain code and in ``@sg.function`` with
    ``sg.grad``'s, and forward mode with all of them."""
    from srcgrad.testing import check_grads

    check_grads(f, (x.copy(),), order=order)
    assert_forms_agree(f, (x.copy(),), nonzero=nonzero)
    np.testing.assert_allclose(sg.function(taped)(f, x.copy()), sg.grad(f)(x.copy()),
                               rtol=1e-10, atol=1e-12)
    assert_forward_mode_agrees(f, (x.copy(),))


def assert_script_prints_ok(path, text):
    """Run ``text`` (dedented) as a script at ``path`` in a child interpreter that imports
    this srcgrad (the tape at module level), and check it ends printing ``ok``."""
    import os
    import subprocess
    import sys
    import textwrap

    path.write_text(textwrap.dedent(text))
    here = os.path.dirname(os.path.dirname(os.path.abspath(sg.__file__)))
    env = dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


def assert_tangent_and_tape(f, x):
    """``sg.jvp`` of scalar ``f`` at array ``x`` gives ``f``'s value and the central
    difference along a random direction, and a tape's gradient is ``sg.grad``'s."""
    x = x.copy()
    t = np.random.default_rng(1).normal(size=x.shape)
    value, tangent = sg.jvp(f, (x,), (t,))
    eps = 1e-6
    assert value == pytest.approx(f(x), rel=1e-12)
    assert tangent == pytest.approx((f(x + eps * t) - f(x - eps * t)) / (2 * eps), rel=1e-5,
                                    abs=1e-7)
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x), sg.grad(f)(x), rtol=1e-12, atol=1e-14)
