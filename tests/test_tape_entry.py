"""What a tape block does when it is entered: it runs once as compiled code, or its
entry raises, naming the reason and the line. There is no second engine to fall
back to (the block run again from its entry values)."""
import numpy as np
import pytest

import srcgrad as sg

W = np.array([0.3, 0.7, 1.1])
X = np.array([1.0, 2.0, 3.0])


def with_a_local_import(w):
    import numpy as lnp  # a module bound in the function: a constant of the block's code

    with sg.GradientTape() as tape:
        tape.watch(w)
        y = lnp.sum(lnp.sin(w) * w)
    return tape.gradient(y, w)


def test_a_module_imported_in_the_function_is_a_constant_of_the_block():
    """(``@sg.function`` refuses an import in the function when first called.)"""
    for _ in range(2):
        np.testing.assert_allclose(with_a_local_import(W), np.cos(W) * W + np.sin(W),
                                   rtol=1e-12)


def gradient_inside(w, x, rng, log):
    """TensorFlow: a non-persistent tape stops recording at a gradient taken inside its
    block; the statements after it run as written."""
    with sg.GradientTape() as tape:
        tape.watch(w)
        mask = rng.random(w.shape) < 0.5
        loss = np.sum(np.where(mask, np.sin(w * x), 0.0))
        grads = tape.gradient(loss, w)
        log.append(float(loss))
        after = loss * 2.0
    return grads, mask, after, tape


def gradient_inside_by_hand(w, x, rng, log):
    tape = sg.GradientTape()
    tape.__enter__()
    tape.watch(w)
    mask = rng.random(w.shape) < 0.5
    loss = np.sum(np.where(mask, np.sin(w * x), 0.0))
    grads = tape.gradient(loss, w)
    log.append(float(loss))
    after = loss * 2.0
    tape.__exit__(None, None, None)
    return grads, mask, after, tape


@pytest.mark.parametrize("placement", ["plain", "function", "by hand"])
def test_a_gradient_taken_inside_the_block_stops_the_recording_there(placement):
    f = {"plain": gradient_inside, "function": sg.function(gradient_inside),
         "by hand": gradient_inside_by_hand}[placement]
    rng = np.random.default_rng(3)
    log = []
    grads, mask, after, tape = f(W, X, rng, log)
    assert mask.any() and not mask.all()  # the block's own draw, drawn once
    np.testing.assert_allclose(grads, np.where(mask, np.cos(W * X) * X, 0.0), rtol=1e-12)
    assert log == [pytest.approx(after / 2.0)] and len(log) == 1
    with pytest.raises(RuntimeError, match="only be called once on non-persistent"):
        tape.gradient(after, W)


def returns_the_gradient_inside(w):
    with sg.GradientTape() as tape:
        tape.watch(w)
        y = np.sum(w ** 3)
        return tape.gradient(y, w)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_return_tape_gradient_inside_the_block(placement):
    f = returns_the_gradient_inside if placement == "plain" \
        else sg.function(returns_the_gradient_inside)
    np.testing.assert_allclose(f(W), 3 * W * W, rtol=1e-12)


def persistent_gradient_inside(w):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(w)
        y = np.sum(w ** 3)
        g = tape.gradient(y, w)
        z = np.sum(g * w)
    return tape.gradient(z, w)


def test_a_persistent_tapes_gradient_inside_its_block_is_refused_at_entry():
    """TensorFlow records that gradient and goes on recording: not modelled, refused."""
    with pytest.raises(sg.CompileError, match=r"gradient of the persistent tape `tape` is taken "
                                              r"inside its block \(line \d+\).*test_tape_entry"):
        persistent_gradient_inside(W)


def returns_a_value_inside(w):
    with sg.GradientTape() as tape:
        tape.watch(w)
        y = np.sum(w ** 3)
        return y, tape


def returns_from_a_persistent_tape(w):
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(w)
        y = np.sin(w) * w
        z = np.sum(y)
        return tape, y, z


def returns_inside_an_if(w):
    with sg.GradientTape() as tape:
        tape.watch(w)
        y = np.sum(w ** 3)
        if y > 1e6:
            return None, tape
    return y, tape


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_return_ending_the_block_ends_the_recording(placement):
    """As in TensorFlow: leaving the block by ``return`` exits it; what it computed is
    recorded, once, and the tape's gradient is taken after it."""
    wrap = (lambda f: f) if placement == "plain" else sg.function
    y, tape = wrap(returns_a_value_inside)(W)
    np.testing.assert_allclose(tape.gradient(y, W), 3.0 * W ** 2, rtol=1e-13)
    tape, y, z = wrap(returns_from_a_persistent_tape)(W)
    np.testing.assert_allclose(tape.gradient(z, W), np.cos(W) * W + np.sin(W), rtol=1e-13)
    np.testing.assert_allclose(tape.gradient(y, W), np.cos(W) * W + np.sin(W), rtol=1e-13)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_return_inside_the_block_is_refused_at_entry_with_its_line(placement):
    f = returns_inside_an_if if placement == "plain" else sg.function(returns_inside_an_if)
    with pytest.raises(sg.CompileError) as err:
        f(W)
    message = str(err.value)
    assert "a return statement in the block (line" in message
    assert "test_tape_entry.py" in message and "End the block before the return" in message


def persistent_nested(x):
    """TensorFlow's own persistent nested tape test: the inner tape's gradient taken
    twice in a loop inside the outer block, then ``del``."""
    inner_grads = []
    with sg.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        with sg.GradientTape(persistent=True) as gg:
            gg.watch(y)
            z = 2 * y
        for _ in range(2):
            inner_grad = gg.gradient(z, [y])[0]
            inner_grads.append(float(inner_grad))
        y += inner_grad
        del gg
    return g.gradient(y, [x])[0], g.gradient(z, [x])[0], inner_grads


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_persistent_nested_tape_asked_inside_the_outer_block(placement):
    f = persistent_nested if placement == "plain" else sg.function(persistent_nested)
    dy, dz, inner_grads = f(np.array(3.0))
    assert dy == 6.0 and dz == 12.0 and inner_grads == [2.0, 2.0]


def test_the_same_line_as_enter_by_hand_runs_only_pure_statements():
    """Statements after ``tape.__enter__()`` on its line run as written after the compiled
    block (no trace event comes between them): a draw there would be drawn twice."""
    rng = np.random.default_rng(0)
    x = np.array([1.0, 2.0])
    drawn = sg.GradientTape()
    with pytest.raises(sg.CompileError, match=r"`rng.random\(2\)` after __enter__\(\) on its "
                                              r"line would run twice"):
        drawn.__enter__(); m = rng.random(2); y = np.sum(m * x * x)  # noqa: E702
        drawn.__exit__(None, None, None)
    pure = sg.GradientTape()
    pure.__enter__(); pure.watch(x); y = np.sum(np.sin(x) * x)  # noqa: E702
    pure.__exit__(None, None, None)
    np.testing.assert_allclose(pure.gradient(y, x), np.cos(x) * x + np.sin(x), rtol=1e-12)


def test_a_block_that_uses_another_tape_is_refused_at_entry():
    x = np.array([1.0, 2.0])
    with sg.GradientTape() as first:
        first.watch(x)
        y = np.sum(x * x)
    with pytest.raises(sg.CompileError, match=r"it uses `first`, a GradientTape entered outside"):
        with sg.GradientTape() as second:
            second.watch(x)
            g = first.gradient(y, x)
            np.sum(g * x)
    assert first.gradient(y, x) is not None


def writes_through_putmask(x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        a = x * 2.0
        np.putmask(a, a > 3.0, 0.0)
        y = np.sum(a * a)
    return tape.gradient(y, x)


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_a_construct_the_compiler_refuses_is_refused_at_entry(placement):
    """Not run as plain code and recorded some other way: the block does not run."""
    f = writes_through_putmask if placement == "plain" else sg.function(writes_through_putmask)
    with pytest.raises(sg.CompileError, match=r"np.putmask\(a, a > 3.0, 0.0\).*test_tape_entry"):
        f(np.array([1.0, 2.0, 3.0]))


class _Trainer:
    def grad(self, x):
        with sg.GradientTape() as self.tape:
            self.tape.watch(x)
            y = np.sum(x ** 2)
        return self.tape.gradient(y, x)


def test_a_tape_bound_to_an_attribute_is_refused_naming_the_line():
    """Python binds ``as self.tape`` after ``__enter__``, where the block already ran:
    an AttributeError from inside the block before (hunt 3); a clear refusal now."""
    x = np.array([1.0, 2.0])
    for run in (_Trainer().grad, sg.function(_Trainer.grad).__get__(_Trainer())):
        with pytest.raises(sg.CompileError, match=r"as self.tape:.*test_tape_entry.py:\d+"):
            run(x)
