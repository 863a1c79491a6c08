"""np.fft in differentiated code (issue 13, section 2): realistic uses (spectral
losses, convolution by FFT, filtering, 2-D spectra) checked against central
differences to second order, and in every form: value_and_grad, a tape in plain
code and in @sg.function, tape.jacobian (rows at once) against a finite-difference
Jacobian. The adjoint helpers alone: tests/test_fft_adjoints.py."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import fd_jacobian, taped_any

RNG = np.random.default_rng(5)
X = RNG.normal(size=8)
K = RNG.normal(size=8)
IMG = RNG.normal(size=(4, 6))


def power_spectrum_loss(x):
    spectrum = np.fft.rfft(x)
    return np.sum(np.abs(spectrum) ** 2 * np.arange(5))


def circular_convolution(x, k):
    y = np.fft.irfft(np.fft.rfft(x) * np.fft.rfft(k), n=8)
    return np.sum(np.tanh(y) ** 2)


def low_pass(x):
    """Zero the high frequencies, back to real: a filter written with a mask."""
    f = np.fft.fft(x)
    keep = np.abs(np.fft.fftfreq(8)) < 0.3
    smooth = np.real(np.fft.ifft(np.where(keep, f, 0.0)))
    return np.sum((smooth - x) ** 2)


def centred_spectrum(img):
    F = np.fft.fftshift(np.fft.fft2(img, norm="ortho"))
    return np.sum(np.abs(F[1:3, 2:5]))


def padded_transforms(x, k):
    a = np.fft.fft(x, n=12)
    b = np.fft.ifft(k[:5], n=4, norm="forward")
    c = np.fft.rfftn(np.outer(x, k), s=(6, 4), axes=(1, 0))
    return np.sum(np.abs(a) ** 1.5) + np.real(np.sum(b * b)) + np.sum(np.abs(c))


def hermitian_pair(x):
    h = np.fft.ihfft(x)
    return np.sum(np.fft.hfft(h * h, n=8) ** 2)


def spectral_helper(x):
    """A helper returning a tuple (real and imaginary parts), another style."""
    def parts(v):
        s = np.fft.fft(v, norm="ortho")
        return s.real, s.imag

    re, im = parts(x * x)
    return np.sum(re ** 2 - 0.5 * im ** 2)


def round_trips(img):
    """The inverse transforms and the n-D forms, each undoing its partner."""
    a = np.fft.ifftn(np.fft.fftn(img * img, axes=(0,)), axes=(0,))
    b = np.fft.irfftn(np.fft.rfft2(img), s=img.shape, axes=(0, 1))
    c = np.fft.irfft2(np.fft.rfftn(np.sin(img), axes=(1, 0)), s=(6, 4), axes=(1, 0))
    d = np.fft.ifftshift(np.fft.ifft2(img, s=(5, 5)))
    return np.sum(np.real(a) * b) + np.sum(c ** 2) + np.sum(np.abs(d))


CASES = [(round_trips, (IMG,)), (power_spectrum_loss, (X,)), (circular_convolution, (X, K)), (low_pass, (X,)),
         (centred_spectrum, (IMG,)), (padded_transforms, (X, K)), (hermitian_pair, (X,)),
         (spectral_helper, (X,))]


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_second_order(f, args):
    check_grads(f, args, order=2)


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_every_form_agrees(f, args):
    wrt = tuple(range(len(args)))
    want = sg.grad(f, wrt=wrt)(*args)
    value, grads = sg.value_and_grad(f, wrt=wrt)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    for form in (grads, taped_any(f, [a.copy() for a in args]),
                 sg.function(taped_any)(f, [a.copy() for a in args])):
        for got, expected in zip(form, want):
            assert got.dtype == np.float64  # a real input's gradient is real
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("build", [
    lambda x: np.abs(np.fft.rfft(x)) ** 2,
    lambda x: np.fft.irfft(np.fft.rfft(x) * np.fft.rfft(K), n=8),
    lambda x: np.real(np.fft.fftshift(np.fft.fft(np.outer(x, K[:3]), axis=0), axes=0)),
    lambda x: np.fft.hfft(np.fft.ihfft(x) * 2.0, n=8),
    lambda x: np.imag(np.fft.fftn(np.outer(x, K[:3]), s=(8, 4))).ravel(),
], ids=["rfft", "convolution", "axis0-shift", "hermitian", "fftn-s"])
def test_jacobian_rows_at_once(build):
    x = X.copy()
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = build(x)
    np.testing.assert_allclose(tape.jacobian(y, x), fd_jacobian(build, X), rtol=1e-6, atol=1e-8)
