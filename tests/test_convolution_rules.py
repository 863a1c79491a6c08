"""scipy.signal's n-d convolutions in differentiated code (issue 13, "coverage"): convolve,
correlate, fftconvolve, oaconvolve, convolve2d in realistic losses, checked against
central differences to second order in both operands, on a tape and in forward mode,
for every mode and either operand the larger. SciPy is in the test extra."""
import numpy as np
import pytest
import scipy.signal as ss

import srcgrad as sg
from srcgrad import runtime
from srcgrad.errors import NotDifferentiableError
from srcgrad.testing import check_grads
from tape_forms import assert_forward_mode_agrees

RNG = np.random.default_rng(5)
SIGNAL = np.cumsum(RNG.normal(size=16))
TARGET = SIGNAL + 0.3 * RNG.normal(size=16)
IMAGE = RNG.normal(size=(7, 6))
IMAGE_TARGET = RNG.normal(size=(5, 4))


def smoothing_loss(kernel):
    """A learnt 1-d smoothing filter ('same': the signal's length)."""
    return np.sum((ss.convolve(TARGET, kernel, mode="same") - SIGNAL) ** 2)


def denoising(signal, kernel):
    fit = ss.convolve(signal, kernel, "same", method="direct")
    return np.sum((fit - TARGET) ** 2) + 0.1 * np.sum(np.diff(signal) ** 2)


def image_filter(image, kernel):
    """A 3 x 3 filter of an image ('valid') matched to a target, plus a correlation."""
    out = ss.convolve(image, kernel, mode="valid")
    return np.sum((out - IMAGE_TARGET) ** 2) + np.sum(ss.correlate(image, kernel) ** 2) * 0.01


def matched_filter(template):
    """Correlation of a template longer than the signal window ('valid' swaps them)."""
    window = SIGNAL[:5]
    response = ss.correlate(window, template, mode="valid")
    return np.sum(response ** 2) + np.sum(ss.correlate(template, window, "same", "fft"))


def full_modes(a, b):
    return np.sum(ss.convolve(a, b) * np.arange(7.0)[:, None]) \
        + np.sum(np.tanh(ss.correlate(a, b, "full")))


def fft_variants(a, b):
    return np.sum(ss.fftconvolve(a, b, "same") ** 2) + np.sum(ss.oaconvolve(b, a) * 0.5) \
        + np.sum(ss.fftconvolve(a, b, mode="valid"))


def convolve2d_layers(image, kernel):
    hidden = np.tanh(ss.convolve2d(image, kernel, "same"))
    return np.sum(ss.convolve2d(hidden, kernel, mode="valid", boundary="fill") ** 2)


def volume_filter(volume, kernel):
    return np.sum(ss.convolve(volume, kernel, "same") * volume) + np.sum(
        ss.correlate(volume, kernel, "valid") ** 2)


CASES = [
    (smoothing_loss, (np.array([0.2, 0.5, 0.2, 0.1]),)),
    (denoising, (SIGNAL.copy(), np.array([0.25, 0.5, 0.25]))),
    (image_filter, (IMAGE.copy(), RNG.normal(size=(3, 3)))),
    (matched_filter, (RNG.normal(size=8),)),
    (full_modes, (RNG.normal(size=(4, 3)), RNG.normal(size=(4, 2)))),
    (fft_variants, (RNG.normal(size=(5, 4)), RNG.normal(size=(2, 3)))),
    (convolve2d_layers, (RNG.normal(size=(6, 5)), RNG.normal(size=(2, 3)))),
    (volume_filter, (RNG.normal(size=(4, 3, 5)), RNG.normal(size=(2, 3, 2)))),
]
IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_against_finite_differences_to_second_order(f, args, check_second_order):
    check_second_order(f, args)  # check_grads(order=2), one compile per gradient: conftest.py


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_value_and_grad_and_a_tape_agree(f, args):
    wrt = tuple(range(len(args)))
    value, grads = sg.value_and_grad(f, wrt=wrt)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    sources = [np.asarray(a, dtype=float) for a in args]
    # (One block per arity: a block is compiled as written, every call in it.)
    if len(sources) == 1:
        with sg.GradientTape() as tape:
            tape.watch(sources)
            y = f(sources[0])
    else:
        with sg.GradientTape() as tape:
            tape.watch(sources)
            y = f(sources[0], sources[1])
    for got, want in zip(tape.gradient(y, sources), grads):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_forward_mode_agrees_with_differences_and_the_gradient(f, args):
    assert_forward_mode_agrees(f, args)


@pytest.mark.parametrize("shape1, shape2", [((5,), (3,)), ((3,), (5,)), ((4, 6), (3, 2)),
                                            ((2, 3), (4, 5)), ((4, 3), (4, 1)),
                                            ((3, 4, 2), (2, 2, 2))])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_the_adjoints_are_the_transposed_maps(shape1, shape2, mode):
    """<g, conv(a, b)> == <adjoint_a(g), a> == <adjoint_b(g), b>, exactly as bilinear maps
    (both of the helper's loops: over the kernel and over the result)."""
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=shape1), rng.normal(size=shape2)
    for fn, flip in ((ss.convolve, False), (ss.correlate, True)):
        out = fn(a, b, mode)
        g = rng.normal(size=out.shape)
        da = runtime.signal_conv_grad(g, a, b, mode, flip, 0, 0)
        db = runtime.signal_conv_grad(g, a, b, mode, flip, 1, 0)
        assert da.shape == a.shape and db.shape == b.shape
        assert np.sum(da * a) == pytest.approx(np.sum(g * out), rel=1e-12)
        assert np.sum(db * b) == pytest.approx(np.sum(g * out), rel=1e-12)


def test_jacobian_rows_match_gradients_row_by_row():
    kernel = np.array([0.3, -0.2, 0.5])
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(kernel)
        y = ss.convolve(SIGNAL[:6], kernel, "same") + ss.correlate(SIGNAL[:6], kernel, "same")
    jac = tape.jacobian(y, kernel)
    for i in range(6):
        seed = np.zeros(6)
        seed[i] = 1.0
        np.testing.assert_allclose(jac[i], tape.gradient(y, kernel, output_gradients=seed),
                                   rtol=1e-12, atol=1e-14)


def _complex_kernel(k):
    return np.sum(np.abs(ss.convolve(SIGNAL, k * (1.0 + 1.0j))) ** 2)


def _fft_along_axes(k):
    return np.sum(ss.fftconvolve(IMAGE, k, axes=0))


def _wrapped_boundary(k):
    return np.sum(ss.convolve2d(IMAGE, k, boundary="wrap"))


def _filled_boundary(k):
    return np.sum(ss.convolve2d(IMAGE, k, fillvalue=1.0))


@pytest.mark.parametrize("f, k, what", [(_complex_kernel, np.ones(3), "complex")])
def test_options_outside_the_rules_raise_when_differentiated(f, k, what):
    with pytest.raises(NotDifferentiableError, match=what):
        sg.grad(f)(k)


@pytest.mark.parametrize("f, k", [(_fft_along_axes, np.ones((2, 6))),
                                  (_wrapped_boundary, np.ones((2, 2))),
                                  (_filled_boundary, np.ones((2, 2)))])
def test_axes_boundaries_and_fill_values_are_differentiated(f, k):
    """(Refused before; written out in rules/transforms.py, tests/test_transforms.py.)"""
    check_grads(f, (k,), order=2)
    assert_forward_mode_agrees(f, (k,))
