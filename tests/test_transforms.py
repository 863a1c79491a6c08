"""scipy.fft (the DFTs, the DCT/DST family, the shifts and frequencies), scipy.fftpack's
transforms, ``np.fft.fftfreq`` in its spacing, scipy.signal's ``convolve2d``/``correlate2d``
with every boundary and ``fftconvolve``/``oaconvolve`` with ``axes`` (issue 13,
"coverage"; ``srcgrad/rules/transforms.py``): they were refused ("no derivative rule",
"boundary='wrap' is not differentiable", "axes=... is not differentiable"), and
``np.fft.fftfreq(n, d)`` gave ``d`` a zero gradient.

Each is checked in every form (``assert_every_form``: central differences to second
order, value_and_grad, a tape in plain code and in ``@sg.function``, forward mode)
for each option that changes the math, its values against the library's own, and
each option it does not model is refused with a message naming it.
"""
import functools
import itertools

import numpy as np
import pytest
import scipy.fft as sf
import scipy.fftpack as fp
import scipy.signal as ss

import srcgrad as sg
from srcgrad.errors import NotDifferentiableError
from srcgrad.rules import transforms as T
from srcgrad.testing import check_grads
from tape_forms import assert_every_form, assert_forms_agree, assert_forward_mode_agrees, taped

RNG = np.random.default_rng(13)
X = RNG.normal(size=(4, 5))
W = RNG.normal(size=(4, 5))


def weighted(y):
    """A real loss of a real or complex result that reads every entry unevenly."""
    w = np.reshape(np.arange(1.0, np.size(y) + 1.0), np.shape(y)) / np.size(y)
    if np.iscomplexobj(y):
        return np.sum(np.real(y) * w + np.imag(y) ** 2 + np.real(y) ** 2 * 0.3)
    return np.sum(y * w + y ** 2 * 0.3)


# --- scipy.fft's DFTs, over NumPy's ------------------------------------------------------

def dft_1d(x):
    return weighted(sf.fft(x, norm="ortho")) + weighted(sf.ifft(x, 7, axis=0))

def dft_forward_norm(x):
    return weighted(sf.fft(x * 1j + x ** 2, 3, axis=0, norm="forward", workers=2))

def rdft(x):
    return weighted(sf.rfft(x, 6)) + weighted(sf.irfft(sf.rfft(x, axis=0), 4, axis=0))

def hdft(x):
    return weighted(sf.hfft(x * (1.0 + 0.5j), 6, norm="ortho")) + weighted(sf.ihfft(x, axis=0))

def dft_nd(x):
    return weighted(sf.fftn(x, s=(3, 6))) + weighted(sf.ifftn(x * 1j, axes=(0,), norm="forward"))

def rdft_nd(x):
    y = sf.rfftn(x, axes=(1, 0), norm="ortho")
    return weighted(y) + weighted(sf.irfftn(y, s=(5, 4), axes=(1, 0), norm="ortho") * x)

def dft_2d(x):
    return weighted(sf.fft2(x, s=(5, 4))) + weighted(sf.ifft2(x, norm="forward")) \
        + weighted(sf.rfft2(x)) + weighted(sf.irfft2(sf.rfft2(x) * 2.0))

def hdft_nd(x):
    return weighted(sf.hfftn(x * (1.0 - 2.0j), s=(4, 6))) + weighted(sf.ihfftn(x, norm="ortho")) \
        + weighted(sf.hfft2(x + 0.5j, norm="forward")) + weighted(sf.ihfft2(x ** 2))

def shifts(x):
    return weighted(sf.fftshift(x) * sf.ifftshift(x, axes=0)) \
        + weighted(sf.fftshift(sf.fft(x), axes=(1,)))

def frequencies(x):
    return weighted(sf.fft(x) * sf.fftfreq(5, 0.1)) + weighted(sf.rfft(x) * sf.rfftfreq(5))

def fftpack_dfts(x):
    return weighted(fp.fft(x, 7)) + weighted(fp.ifft(x, axis=0)) \
        + weighted(fp.fftn(x, (3, 6))) + weighted(fp.ifftn(x * 1j, axes=(1,))) \
        + weighted(fp.fft2(x, (5, 2))) + weighted(fp.ifft2(x))

def fftpack_real(x):
    return weighted(fp.rfft(x, 6)) + weighted(fp.rfft(x, axis=0)) + weighted(fp.irfft(x, 3)) \
        + weighted(fp.irfft(fp.rfft(x * x[0, 1])))


# --- the DCT/DST family -----------------------------------------------------------------

def _real_transform(fn, type_, **kw):
    transform = functools.partial(fn, type=type_, **kw)

    def f(x):
        return weighted(transform(x) * (1.0 + x[1, 2]))
    f.__name__ = f"{fn.__module__.split('.')[1]}_{fn.__name__}_{type_}_" + \
        "_".join(f"{k}{v}" for k, v in kw.items())
    return f


REAL = []
for _fn in (sf.dct, sf.idct, sf.dst, sf.idst):
    for _type in (1, 2, 3, 4):
        REAL.append(_real_transform(_fn, _type))
    REAL.append(_real_transform(_fn, 2, norm="ortho", axis=0))
    REAL.append(_real_transform(_fn, 3, norm="forward", n=7))
    REAL.append(_real_transform(_fn, 1, norm="ortho", orthogonalize=False, n=3))
    REAL.append(_real_transform(_fn, 4, norm="backward", orthogonalize=True, axis=0))
for _fn in (sf.dctn, sf.idctn, sf.dstn, sf.idstn):
    REAL.append(_real_transform(_fn, 2))
    REAL.append(_real_transform(_fn, 1, s=(3, 6), norm="ortho"))
    REAL.append(_real_transform(_fn, 3, axes=(0,), norm="forward", orthogonalize=True))
for _fn in (fp.dct, fp.idct, fp.dst, fp.idst):
    REAL.append(_real_transform(_fn, 2, n=6))
    REAL.append(_real_transform(_fn, 3, norm="ortho", axis=0))
for _fn in (fp.dctn, fp.idctn, fp.dstn, fp.idstn):
    REAL.append(_real_transform(_fn, 2, shape=(3, 7)))
    REAL.append(_real_transform(_fn, 4, axes=1, norm="ortho"))


def dct_of_complex(x):
    return weighted(sf.dct(x * (1.0 + 2.0j), 2, axis=0)) + weighted(sf.idstn(x * 1j, 3))


def dct_round_trip(x):
    y = sf.dctn(x, norm="ortho")
    return weighted(sf.idctn(y ** 2, norm="ortho"))


# --- scipy.signal -----------------------------------------------------------------------

def _conv2d(fn, mode, boundary, kernel, fill=0.0):
    def f(x):
        k = x[:kernel[0], :kernel[1]] * 0.7 + 0.1
        return weighted(fn(x, k, mode, boundary, fill))
    f.__name__ = f"{fn.__name__}_{mode}_{boundary}_{kernel[0]}x{kernel[1]}"
    return f


CONV2D = [_conv2d(fn, mode, boundary, kernel, 0.4 if boundary == "fill" else 0.0)
          for fn in (ss.convolve2d, ss.correlate2d)
          for mode in ("full", "same", "valid")
          for boundary in ("fill", "wrap", "symm")
          for kernel in ((2, 3), (3, 2))]


def fill_value_differentiated(x):
    return weighted(ss.convolve2d(x, W[:2, :2], "same", fillvalue=x[0, 0] * 2.0)) \
        + weighted(ss.correlate2d(W, x[:3, :3], boundary="fill", fillvalue=x[1, 1]))


def kernel_larger_than_image(x):
    return weighted(ss.convolve2d(x[:2, :3], x, "full", "wrap")) \
        + weighted(ss.correlate2d(x[:2, :2], x, "same", "symm")) \
        + weighted(ss.convolve2d(x[:2, :2], x, "valid"))


def along_axes(x):
    return weighted(ss.fftconvolve(x, x[:, :2], "full", axes=1)) \
        + weighted(ss.fftconvolve(x, W[:3, :1], "same", axes=[0])) \
        + weighted(ss.oaconvolve(x, x[:1, :3] * 2.0, "valid", axes=-1))


def along_axes_broadcast(x):
    return weighted(ss.fftconvolve(x[:1, :], W[:, :3], "same", axes=1)) \
        + weighted(ss.oaconvolve(x[:, :1], x[:2, :], "full", axes=0)) \
        + weighted(ss.fftconvolve(x, x[:2, :2], "same"))


CASES = [dft_1d, dft_forward_norm, rdft, hdft, dft_nd, rdft_nd, dft_2d, hdft_nd, shifts,
         frequencies, fftpack_dfts, fftpack_real, dct_of_complex, dct_round_trip] + REAL \
    + CONV2D + [fill_value_differentiated, kernel_larger_than_image, along_axes,
                along_axes_broadcast]


# Code that computes with complex values: forward mode takes it through sg.jvp's
# transposed reverse pass (srcgrad compiles no tangent code for complex values).
COMPLEX = {dft_1d, dft_forward_norm, rdft, hdft, dft_nd, rdft_nd, dft_2d, hdft_nd, shifts,
           frequencies, fftpack_dfts, dct_of_complex}


def assert_every_form_complex(f, x):
    """``assert_every_form`` with forward mode by ``sg.jvp``, checked against the gradient
    and central differences."""
    check_grads(f, (x.copy(),), order=2)
    assert_forms_agree(f, (x.copy(),), nonzero=True)
    np.testing.assert_allclose(sg.function(taped)(f, x.copy()), sg.grad(f)(x.copy()),
                               rtol=1e-10, atol=1e-12)
    t = np.cos(np.arange(x.size) + 1.0).reshape(x.shape)
    value, tangent = sg.jvp(f, (x.copy(),), (t,))
    assert value == pytest.approx(f(x.copy()), rel=1e-12)
    assert tangent == pytest.approx(np.sum(sg.grad(f)(x.copy()) * t), rel=1e-10, abs=1e-12)
    eps = 1e-6
    assert tangent == pytest.approx((f(x + eps * t) - f(x - eps * t)) / (2 * eps), rel=1e-6,
                                    abs=1e-8)


# Second order for the first case of each transform and of each convolution and
# boundary: the other options are the same rule with other arguments, checked to first
# order in every form (the transforms are linear: the second pass is that rule again).
# (CI time.)
def _all_but_the_first(cases, key):
    """The cases but the first of each ``key`` of their names' parts."""
    seen, out = set(), set()
    for f in cases:
        k = key(f.__name__.split("_"))
        if k in seen:
            out.add(f)
        seen.add(k)
    return out


FIRST_ORDER = _all_but_the_first(REAL, lambda parts: tuple(parts[:2])) \
    | _all_but_the_first(CONV2D, lambda parts: (parts[0], parts[2]))


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_every_form(f):
    if f in COMPLEX:
        assert_every_form_complex(f, X.copy())
    else:
        assert_every_form(f, X.copy(), order=1 if f in FIRST_ORDER else 2, nonzero=True)


def two_operands(image, kernel):
    return weighted(ss.convolve2d(image, kernel, "same", "symm")) \
        + weighted(ss.correlate2d(image, kernel, "full", "wrap")) \
        + weighted(ss.convolve2d(image, kernel, "full", fillvalue=-0.3)) \
        + weighted(ss.fftconvolve(image, kernel[:, :2], "same", axes=1))


def test_both_operands_of_the_convolutions():
    args = (X.copy(), RNG.normal(size=(4, 3)))
    check_grads(two_operands, args, order=2)
    assert_forms_agree(two_operands, args, nonzero=True)
    assert_forward_mode_agrees(two_operands, args)


def spacing(d):
    return np.sum(np.fft.fftfreq(6, d) ** 2) + np.sum(np.fft.rfftfreq(5, d) * 3.0) \
        + np.sum(sf.fftfreq(4, d * 2.0) ** 3)


def test_frequencies_are_differentiable_in_the_spacing():
    """(np.fft.fftfreq was called freely: d got a zero gradient.)"""
    d = np.array(0.37)
    check_grads(spacing, (d,), order=2)
    f = np.fft.fftfreq(6, 1.0)
    want = -2.0 * np.sum(f ** 2) / d ** 3 - 3.0 * np.sum(np.fft.rfftfreq(5, 1.0)) / d ** 2 \
        - 3.0 * np.sum(sf.fftfreq(4, 2.0) ** 3) / d ** 4
    assert sg.grad(spacing)(d) == pytest.approx(want, rel=1e-12)


# --- values against the library's --------------------------------------------------------

def _same(got, want):
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_the_dfts_are_scipys():
    x, z = RNG.normal(size=(4, 6, 3)), RNG.normal(size=(4, 6, 3)) + 1j * RNG.normal(size=(4, 6, 3))
    for name in ("fft", "ifft", "irfft", "hfft"):
        for kw in ({}, {"n": 5, "axis": 1, "norm": "ortho"}, {"n": 8, "axis": 0, "norm": "forward"}):
            for a in (x, z):
                _same(getattr(T, name)(a, **kw), getattr(sf, name)(a, **kw))
    for name in ("rfft", "ihfft"):
        for kw in ({}, {"n": 5, "axis": 1, "norm": "ortho"}, {"n": 3, "axis": 0, "norm": "forward"}):
            _same(getattr(T, name)(x, **kw), getattr(sf, name)(x, **kw))
    for name in ("fftn", "ifftn", "irfftn", "hfftn", "fft2", "ifft2", "irfft2", "hfft2"):
        for kw in ({}, {"s": (5, 2)}, {"s": (3, 4), "axes": (2, 0), "norm": "ortho"},
                   {"axes": (1,), "norm": "forward"}):
            for a in (x, z):
                _same(getattr(T, name)(a, **kw), getattr(sf, name)(a, **kw))
    for name in ("rfftn", "ihfftn", "rfft2", "ihfft2"):
        for kw in ({}, {"s": (5, 2)}, {"s": (3, 4), "axes": (2, 0), "norm": "ortho"}):
            _same(getattr(T, name)(x, **kw), getattr(sf, name)(x, **kw))
    for axes in (None, 0, (1, 2)):
        _same(T.fftshift(x, axes), sf.fftshift(x, axes))
        _same(T.ifftshift(x, axes), sf.ifftshift(x, axes))
    for n, d in ((1, 1.0), (6, 0.3), (7, 2.5)):
        np.testing.assert_array_equal(T.scipy_fftfreq(n, d), sf.fftfreq(n, d))
        np.testing.assert_array_equal(T.scipy_rfftfreq(n, d), sf.rfftfreq(n, d))
        np.testing.assert_array_equal(T.fftfreq(n, d), np.fft.fftfreq(n, d))
        np.testing.assert_array_equal(T.rfftfreq(n, d), np.fft.rfftfreq(n, d))


def test_fftpacks_transforms_are_fftpacks():
    x, z = RNG.normal(size=(4, 6, 3)), RNG.normal(size=(4, 6, 3)) + 1j * RNG.normal(size=(4, 6, 3))
    for name in ("fft", "ifft"):
        for kw in ({}, {"n": 5, "axis": 1}, {"n": 8, "axis": 0}):
            for a in (x, z):
                _same(getattr(T, "fftpack_" + name)(a, **kw), getattr(fp, name)(a, **kw))
    for name in ("rfft", "irfft"):
        for kw in ({}, {"n": 5, "axis": 1}, {"n": 8, "axis": 0}, {"n": 1}):
            _same(getattr(T, "fftpack_" + name)(x, **kw), getattr(fp, name)(x, **kw))
    for name in ("fftn", "ifftn", "fft2", "ifft2"):
        for kw in ({}, {"shape": (3, 4), "axes": (2, 0)}, {"axes": (1,)}, {"shape": 5, "axes": 1}):
            for a in (x, z):
                _same(getattr(T, "fftpack_" + name)(a, **kw), getattr(fp, name)(a, **kw))
    _same(T.fftpack_fftn(x, (2, 3, 4)), fp.fftn(x, (2, 3, 4)))
    with pytest.raises(ValueError, match="same length"):
        T.fftpack_fftn(x, (2, 3))
    with pytest.raises(ValueError, match="same length"):
        fp.fftn(x, (2, 3))


@pytest.mark.parametrize("name", ["dct", "idct", "dst", "idst"])
def test_the_real_transforms_are_the_librarys(name):
    x = RNG.normal(size=(4, 6, 3))
    z = x + 1j * RNG.normal(size=x.shape)
    one, many = getattr(sf, name), getattr(sf, name + "n")
    for type_, norm, ortho, n, axis in itertools.product(
            (1, 2, 3, 4), (None, "ortho", "forward", "backward"), (None, True, False),
            (None, 2, 9), (0, -1)):
        kw = dict(n=n, axis=axis, norm=norm, orthogonalize=ortho)
        _same(getattr(T, name)(x, type_, **kw), one(x, type_, **kw))
        if ortho is None or ortho == (norm == "ortho"):
            _same(getattr(T, name)(z, type_, **kw), one(z, type_, **kw))
        else:  # (SciPy's value for complex values is not its map on Re and Im: refused)
            with pytest.raises(NotDifferentiableError, match="orthogonalize="):
                getattr(T, name)(z, type_, **kw)
    for type_, norm, s, axes in itertools.product(
            (1, 2, 3, 4), (None, "ortho", "forward"),
            (None, (5, 2), (3,), (2, 2, 2)), (None, (0, 2), (1,), -1)):
        if s is not None and axes is not None and len(s) != np.size(axes):
            continue
        kw = dict(s=s, axes=axes, norm=norm)
        _same(getattr(T, name + "n")(x, type_, **kw), many(x, type_, **kw))
        _same(getattr(T, name + "n")(z, type_, **kw), many(z, type_, **kw))
        kw["orthogonalize"] = norm == "ortho"
        _same(getattr(T, name + "n")(z, type_, **kw), many(z, type_, **kw))
    for type_, norm, n, axis in itertools.product((1, 2, 3, 4), (None, "ortho"), (None, 7),
                                                  (0, 1)):
        _same(getattr(T, "fftpack_" + name)(x, type_, n, axis, norm),
              getattr(fp, name)(x, type_, n, axis, norm))
        _same(getattr(T, "fftpack_" + name)(z, type_, n, axis, norm),
              getattr(fp, name)(z, type_, n, axis, norm))
    for type_, shape, axes in itertools.product((1, 2, 3, 4), (None, (5, 2)), ((0, 1), (2, 0))):
        _same(getattr(T, "fftpack_" + name + "n")(x, type_, shape, axes),
              getattr(fp, name + "n")(x, type_, shape, axes))
    f32 = x.astype(np.float32)
    got = getattr(T, name)(f32, 2)
    assert got.dtype == one(f32, 2).dtype
    np.testing.assert_allclose(got, one(f32, 2), rtol=1e-4, atol=1e-4)


def test_the_2d_convolutions_are_scipys_on_every_small_shape():
    """Odd and even sizes, either operand the larger, every mode and boundary, and the
    errors SciPy raises where it refuses the shapes."""
    rng = np.random.default_rng(2)
    for s1 in itertools.product(range(1, 5), repeat=2):
        for s2 in itertools.product(range(1, 6), repeat=2):
            a, w = rng.normal(size=s1), rng.normal(size=s2)
            for fn, mode, boundary in itertools.product(("convolve2d", "correlate2d"),
                                                        ("full", "same", "valid"),
                                                        ("fill", "pad", "wrap", "circular",
                                                         "symm", "symmetric")):
                lib, ours = getattr(ss, fn), getattr(T, fn)
                try:
                    want = lib(a, w, mode, boundary, 0.7)
                except ValueError:
                    with pytest.raises(ValueError):
                        ours(a, w, mode, boundary, 0.7)
                    continue
                _same(ours(a, w, mode, boundary, 0.7), want)


def test_the_convolutions_along_axes_are_scipys():
    rng = np.random.default_rng(3)
    shapes = [((4, 5), (4, 2)), ((4, 5), (1, 3)), ((1, 5), (3, 3)), ((3, 1), (3, 4)),
              ((2, 5, 3), (2, 2, 1)), ((2, 5, 3), (1, 7, 3)), ((4, 5), (4, 5)), ((1, 6), (3, 1))]
    for (s1, s2), mode, axes in itertools.product(shapes, ("full", "same", "valid"),
                                                  (None, 0, 1, -1, (0, 1), [1, 0])):
        a, w = rng.normal(size=s1), rng.normal(size=s2)
        for fn in ("fftconvolve", "oaconvolve"):
            try:
                want = getattr(ss, fn)(a, w, mode, axes)
            except ValueError:
                with pytest.raises(ValueError):
                    getattr(T, fn)(a, w, mode, axes)
                continue
            _same(getattr(T, fn)(a, w, mode, axes), want)


# --- refusals ---------------------------------------------------------------------------

def overwritten(x):
    return weighted(sf.fft(x, overwrite_x=True))

def planned(x):
    return weighted(sf.rfftn(x, plan="a plan"))

def dct_overwritten(x):
    return weighted(fp.dct(x, overwrite_x=True))

def fftpack_overwritten(x):
    return weighted(fp.fft2(x, overwrite_x=True))

def complex_idct_orthogonalized(x):
    return weighted(sf.idct(x * 1j, 2, orthogonalize=True))

def complex_dctn_orthogonalized(x):
    return weighted(sf.dctn(x * 1j, 2, norm="ortho", orthogonalize=False))

def other_namespace(x):
    return weighted(sf.fftfreq(5, x[0, 0], xp="cupy"))


@pytest.mark.parametrize("f, what", [
    (overwritten, r"scipy.fft.fft with overwrite_x=True .*pass overwrite_x=False"),
    (planned, r"scipy.fft.rfftn with plan= \(pass plan=None\)"),
    (dct_overwritten, r"scipy.fftpack.dct with overwrite_x=True"),
    (fftpack_overwritten, r"scipy.fftpack.fft2 with overwrite_x=True"),
    (complex_idct_orthogonalized, r"scipy.fft.idct of complex values with orthogonalize=True"),
    (complex_dctn_orthogonalized, r"scipy.fft.dctn of complex values with orthogonalize=False"),
    (other_namespace, r"scipy.fft.fftfreq with xp="),
])
def test_options_not_modelled_are_refused(f, what):
    with pytest.raises(NotDifferentiableError, match=what):
        sg.grad(f)(X.copy())


def complex_to_rfft(x):
    return weighted(sf.rfft(x * 1j))

def complex_to_fftpack_rfft(x):
    return weighted(fp.rfft(x * 1j))


@pytest.mark.parametrize("f", [complex_to_rfft, complex_to_fftpack_rfft])
def test_complex_values_to_a_real_transform_raise_as_scipy(f):
    with pytest.raises(TypeError, match="x must be a real sequence"):
        f(X.copy())
    with pytest.raises(TypeError, match="x must be a real sequence"):
        sg.grad(f)(X.copy())


def unknown_boundary(x):
    return weighted(ss.convolve2d(x, x[:2, :2], boundary="reflect"))


def test_a_boundary_scipy_does_not_know_raises_its_error():
    with pytest.raises(ValueError, match="Acceptable boundary flags"):
        sg.grad(unknown_boundary)(X.copy())


def complex_boundary(x):
    return weighted(ss.convolve2d(x * 1j, x[:2, :2], boundary="wrap"))


def test_complex_convolutions_are_still_refused():
    with pytest.raises(NotDifferentiableError, match="complex"):
        sg.grad(complex_boundary)(X.copy())
