"""A tape block reads the value a variable had before it, also where it binds the
variable again only later on the same path: a loop's first trip (``h = h * a + a``),
a branch (``if not done:``), ``total += ...``. Hunt 10 (Tangent's suite): such a
variable reached the compiled block unbound (a TypeError, or a flag read as true: a
wrong value and gradient). And what a block cannot run compiled is refused by name.
"""
import numpy as np
import pytest

import srcgrad as sg


def rnn_state_before_the_block(a):
    h = np.zeros(2)
    with sg.GradientTape() as t:
        t.watch(a)
        for i in range(2):
            h = h * a + a
        z = np.sum(h)
    return z, t.gradient(z, a)


def flag_before_the_block(a):
    done = False
    with sg.GradientTape() as t:
        t.watch(a)
        y = a
        for i in range(3):
            if not done:
                y = y * a
            done = True
    return y, t.gradient(y, a)


def while_flag_before_the_block(a):
    done = False
    count = 0
    with sg.GradientTape() as t:
        t.watch(a)
        y = a
        while not done:
            y = y * a
            count += 1
            done = count >= 2
    return y, t.gradient(y, a)


def running_total_and_default(a):
    total = 0.0
    scale = 1.0
    with sg.GradientTape() as t:
        t.watch(a)
        for i in range(3):
            total += a * i
        if total > 100.0:
            scale = 2.0
        y = total * scale
    return y, t.gradient(y, a)


CASES = [
    (rnn_state_before_the_block, lambda a: 2 * (a * a + a), lambda a: 2 * (2 * a + 1)),
    (flag_before_the_block, lambda a: a * a, lambda a: 2 * a),
    (while_flag_before_the_block, lambda a: a ** 3, lambda a: 3 * a * a),
    (running_total_and_default, lambda a: 3 * a, lambda a: 3.0),
]


@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("f, value, derivative", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_variable_bound_before_the_block(f, value, derivative, placement):
    run = f if placement == "plain" else sg.function(f)
    a = np.array(1.5)
    y, g = run(a)
    assert float(y) == pytest.approx(value(1.5))
    assert float(g) == pytest.approx(derivative(1.5))


COUNT = 1


def rebinds_a_global(a):
    global COUNT
    with sg.GradientTape() as t:
        t.watch(a)
        COUNT = COUNT + 1
        y = a * a * COUNT
    return t.gradient(y, a)


def test_a_global_rebound_in_the_block_is_refused():
    with pytest.raises(sg.CompileError, match="global `COUNT`"):
        rebinds_a_global(np.array(1.5))


def watch_in_a_helper(x, tape):
    tape.watch(x)
    return x * x


def test_the_tape_passed_to_a_helper_is_refused():
    x = np.array(1.5)
    with pytest.raises(sg.CompileError, match="`tape` itself used in the block"):
        with sg.GradientTape() as tape:
            y = watch_in_a_helper(x, tape)
        tape.gradient(y, x)


def test_break_out_of_the_block_is_refused():
    a = np.array(1.5)
    with pytest.raises(sg.CompileError, match="break or continue out of the block"):
        for i in range(5):
            with sg.GradientTape() as t:
                t.watch(a)
                y = a * a * i
                if i == 2:
                    break
            t.gradient(y, a)


def test_a_closure_variable_read_in_a_comprehension_of_a_nested_def():
    """Not "the source has changed" (hunt 10): compiled on its own, the def reads the
    variable as a global, and its comprehension gets no cells."""
    def outer(c):
        def h(x):
            return sum([c * x for k in range(2)])
        return h

    assert sg.grad(outer(3.0))(2.0) == pytest.approx(6.0)
