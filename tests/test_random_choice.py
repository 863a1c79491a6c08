"""``rng.choice(n, p=probs)`` with differentiable probabilities: REINFORCE's sampling.

The draw is an index: it has no derivative in ``p`` (TensorFlow's categorical has
none either), and the log-probability of the drawn actions is differentiated with the
actions the block drew. It was refused ("cannot tell ... which function"). A choice
among differentiable values (``rng.choice(x)``) is still refused, not made constant.
"""
import numpy as np
import pytest

import srcgrad as sg

S = np.random.default_rng(0).normal(size=(4, 3))


def _softmax(logits):
    e = np.exp(logits - np.max(logits, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def reinforce(W, rng, style):
    with sg.GradientTape() as tape:
        tape.watch(W)
        probs = _softmax(S @ W)
        if style == "comprehension":
            acts = np.array([rng.choice(4, p=p) for p in probs])
        else:
            acts = []
            for i in range(4):
                acts.append(rng.choice(4, p=probs[i]))
            acts = np.array(acts)
        loss = -np.sum(np.log(probs[np.arange(4), acts]))
    return acts, loss, tape.gradient(loss, W)


def _loss_given(W, acts):
    return -np.sum(np.log(_softmax(S @ W)[np.arange(4), acts]))


@pytest.mark.parametrize("style", ["comprehension", "loop"])
@pytest.mark.parametrize("placement", ["plain", "function"])
@pytest.mark.parametrize("make", [np.random.default_rng, np.random.RandomState])
def test_the_gradient_is_at_the_actions_drawn(style, placement, make):
    W = np.random.default_rng(1).normal(size=(3, 4))
    run = sg.function(reinforce) if placement == "function" else reinforce
    acts, loss, g = run(W, make(42), style)
    again = make(42)
    want = np.array([again.choice(4, p=p) for p in _softmax(S @ W)])
    np.testing.assert_array_equal(acts, want)  # drawn once, as Python draws them
    assert loss == pytest.approx(_loss_given(W, acts), rel=1e-12)
    eps = 1e-6
    fd = np.zeros_like(W)
    for idx in np.ndindex(W.shape):
        step = np.zeros_like(W)
        step[idx] = eps
        fd[idx] = (_loss_given(W + step, acts) - _loss_given(W - step, acts)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)


def choice_of_values(x, rng):
    with sg.GradientTape() as tape:
        tape.watch(x)
        picked = rng.choice(x * 2.0, size=2)
        loss = np.sum(picked ** 2)
    return tape.gradient(loss, x)


def test_a_choice_among_differentiable_values_is_refused():
    with pytest.raises(sg.CompileError, match="no derivative rule for .*Generator.choice"):
        choice_of_values(np.array([1.0, 2.0, 3.0]), np.random.default_rng(0))
