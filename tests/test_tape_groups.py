"""``with sg.GradientTape() as gen_tape, sg.GradientTape() as disc_tape:``: the two
tapes of a GAN's training step (TensorFlow's DCGAN tutorial), each asked for its own
gradient after the block.

The block runs once, compiled, when the first tape enters; the other tapes of the
with statement record that same run (each reads the record, none empties it). It was
refused ("a with statement of several items"). Checked against central differences in
a function, in ``@sg.function``, at module level, over training steps; a tape of the
group used in the block (``gen_tape.watch(x)``: the other would see it watched too) is
refused.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_script_prints_ok

Z = np.array([0.2, 0.4, -0.6])
IMAGES = np.array([1.0, -1.0, 0.5])
RAN = []


def softplus(t):
    return np.log1p(np.exp(t))


def discriminate(v, d):
    RAN.append(1)
    return np.sum(v * d)


def train_step(gw, dv):
    with sg.GradientTape() as gen_tape, sg.GradientTape() as disc_tape:
        fake = discriminate(np.tanh(Z * gw), dv)
        real = np.sum(IMAGES * dv)
        gen_loss = softplus(-fake)
        disc_loss = softplus(-real) + softplus(fake)
    gen_grad = gen_tape.gradient(gen_loss, gw)
    disc_grad = disc_tape.gradient(disc_loss, dv)
    return gen_loss, gen_grad, disc_grad


def _fd(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = eps
        out[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return out


def _expected(G, D):
    return (_fd(lambda w: softplus(-np.sum(np.tanh(Z * w) * D)), G),
            _fd(lambda v: softplus(-np.sum(IMAGES * v)) + softplus(np.sum(np.tanh(Z * G) * v)), D))


@pytest.mark.parametrize("placement", ["plain", "function"])
def test_each_tape_gives_its_gradient_over_training_steps(placement):
    gw = sg.Variable(np.array([0.5, -1.0, 2.0]))
    dv = sg.Variable(np.array([1.0, 0.3, -0.4]))
    step = sg.function(train_step) if placement == "function" else train_step
    for _ in range(3):
        RAN.clear()
        G, D = gw.numpy().copy(), dv.numpy().copy()
        loss, g, d = step(gw, dv)
        assert len(RAN) == 1  # (the block ran once, for both tapes)
        assert loss == pytest.approx(softplus(-np.sum(np.tanh(Z * G) * D)), rel=1e-12)
        want_g, want_d = _expected(G, D)
        np.testing.assert_allclose(g, want_g, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(d, want_d, rtol=1e-6, atol=1e-9)
        gw.assign_sub(0.1 * g)
        dv.assign_sub(0.1 * d)


def three_tapes(gw, dv):
    with sg.GradientTape() as a, sg.GradientTape(persistent=True) as b, \
            sg.GradientTape() as c:
        loss = np.sum(np.sin(gw) * dv ** 2)
    first = a.gradient(loss, gw)
    with pytest.raises(RuntimeError, match="only be called once"):
        a.gradient(loss, gw)
    return first, b.gradient(loss, [gw, dv]), b.gradient(loss, dv), c.gradient(loss, dv)


def test_three_tapes_persistent_or_not():
    gw = sg.Variable(np.array([0.5, -1.0]))
    dv = sg.Variable(np.array([1.5, 0.3]))
    first, both, again, last = three_tapes(gw, dv)
    want_w, want_v = np.cos(gw.numpy()) * dv.numpy() ** 2, 2 * np.sin(gw.numpy()) * dv.numpy()
    np.testing.assert_allclose(first, want_w, rtol=1e-12)
    np.testing.assert_allclose(both[0], want_w, rtol=1e-12)
    for g in (both[1], again, last):
        np.testing.assert_allclose(g, want_v, rtol=1e-12)


def watched_by_one_of_them(x):
    with sg.GradientTape() as a, sg.GradientTape() as b:
        a.watch(x)
        y = np.sum(x ** 2)
    return b.gradient(y, x)


def test_a_tape_of_the_group_used_in_the_block_is_refused():
    with pytest.raises(sg.CompileError, match="several tapes used in the block"):
        watched_by_one_of_them(np.array([1.0, 2.0]))


def test_at_module_level(tmp_path):
    assert_script_prints_ok(tmp_path / "gan_step.py", """
        import numpy as np
        import srcgrad as sg
        gw = sg.Variable(np.array([0.5, -1.0, 2.0]))
        dv = sg.Variable(np.array([1.0, 0.3, -0.4]))
        with sg.GradientTape() as gen_tape, sg.GradientTape() as disc_tape:
            fake = np.sum(np.tanh(gw) * dv)
            gen_loss = -fake
            disc_loss = fake ** 2
        g = gen_tape.gradient(gen_loss, gw)
        d = disc_tape.gradient(disc_loss, dv)
        assert np.allclose(g, -(1 - np.tanh(gw.numpy()) ** 2) * dv.numpy())
        assert np.allclose(d, 2 * fake * np.tanh(gw.numpy()))
        print("ok")
    """)


def nested_instead(gw, dv):
    with sg.GradientTape() as gen_tape:
        with sg.GradientTape() as disc_tape:
            fake = np.sum(np.tanh(gw) * dv)
            gen_loss, disc_loss = -fake, fake ** 2
    return gen_tape.gradient(gen_loss, gw), disc_tape.gradient(disc_loss, dv)


def test_a_nested_tape_never_asked_inside_says_what_to_write():
    """(TensorFlow would answer; srcgrad compiled the inner block into the outer one.
    It said the inner tape's gradient had been taken inside the block: it had not.)"""
    with pytest.raises(sg.CompileError, match="Enter the tapes in one with statement"):
        nested_instead(sg.Variable(np.array([0.5, -1.0])), sg.Variable(np.array([1.0, 0.3])))


def watching_differently(gw):
    with sg.GradientTape() as a, sg.GradientTape(watch_accessed_variables=False) as _b:
        loss = np.sum(gw ** 2)
    return a.gradient(loss, gw)


def test_tapes_watching_variables_differently_are_refused():
    with pytest.raises(sg.CompileError, match="watch accessed Variables differently"):
        watching_differently(sg.Variable(np.array([1.0, 2.0])))
