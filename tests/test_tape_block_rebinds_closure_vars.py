"""A GradientTape block rebinding a variable of its function that a closure defined
before it reads (``s = a`` then ``h(a)`` with ``def h(v): return s * v ** 2``), or
rebinding a function by a ``def`` in the block: the block called the function with the
variable's (or the function's) value from before the block, silently (value and
gradient wrong). Python sees the new binding; so does the compiled block now. Checked
against what Python computes and central differences, in plain code and
``@sg.function``."""
import numpy as np
import pytest

import srcgrad as sg


def closure_rebound(a):
    s = 1.0

    def h(v):
        return s * v ** 2
    with sg.GradientTape() as tape:
        tape.watch(a)
        s = a
        y = h(a)
    return y, tape.gradient(y, a)


def closure_before_and_after(a):
    s = 1.0

    def h(v):
        return s * v ** 2
    with sg.GradientTape() as tape:
        tape.watch(a)
        y0 = h(a)
        s = a
        y = h(a) + y0
    return y, tape.gradient(y, a)


def lambda_rebound(a):
    s = 2.0
    h = lambda v: s * v ** 2  # noqa: E731
    with sg.GradientTape() as tape:
        tape.watch(a)
        s = a * 3.0
        y = h(a)
    return y, tape.gradient(y, a)


def def_in_the_block(a):
    def h(v):
        return v ** 2
    with sg.GradientTape() as tape:
        tape.watch(a)

        def h(v):  # noqa: F811
            return v ** 3 + 10 * a
        y = h(a)
    return y, tape.gradient(y, a)


EXPECTED = {  # (value, derivative) at a
    closure_rebound: (lambda a: a ** 3, lambda a: 3 * a ** 2),
    closure_before_and_after: (lambda a: a ** 3 + a ** 2, lambda a: 3 * a ** 2 + 2 * a),
    lambda_rebound: (lambda a: 3 * a ** 3, lambda a: 9 * a ** 2),
    def_in_the_block: (lambda a: a ** 3 + 10 * a, lambda a: 3 * a ** 2 + 10),
}


@pytest.mark.parametrize("f", list(EXPECTED), ids=lambda f: f.__name__)
@pytest.mark.parametrize("compiled", [False, True])
def test_the_new_binding_is_read(f, compiled):
    a = np.float64(1.5)
    y, g = (sg.function(f) if compiled else f)(a)
    value, derivative = EXPECTED[f]
    np.testing.assert_allclose(y, value(a))
    np.testing.assert_allclose(g, derivative(a))


def test_module_level_block_rebinding_a_global_a_function_reads(tmp_path):
    """``y = f(a); SCALE = 3.0; f(a)`` at a module's top level, ``f`` reading the global:
    a TypeError from the generated code (the global was the block's unbound local)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from tape_forms import assert_script_prints_ok

    assert_script_prints_ok(tmp_path / "rebinds_global.py", """
        import numpy as np
        import srcgrad as sg
        SCALE = 1.0
        def f(v):
            return SCALE * v ** 2
        a = np.float64(1.5)
        with sg.GradientTape() as tape:
            tape.watch(a)
            y = f(a)
            SCALE = 3.0
            y2 = f(a) + y
        assert np.isclose(y2, 4 * a * a), y2
        assert np.isclose(tape.gradient(y2, a), 8 * a)
        print("ok")
        """)
