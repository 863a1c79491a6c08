"""The adjoints of ``numpy.fft`` (``srcgrad.runtime.fft``) by the dot-product test.

For a linear map ``f`` and its adjoint ``f*`` (real inner product ``Re vdot``),
``<g, f(d)> == <f*(g), d>`` for every output adjoint ``g`` and input direction ``d``;
``f(d)`` is taken both by central differences around a random point and exactly.
Complex inputs are probed along real, imaginary and general complex directions, which
together pin down both halves of the TensorFlow-convention adjoint.
"""
import warnings

import numpy as np
import pytest

from srcgrad.runtime import fft as F

NORMS = [None, "backward", "ortho", "forward"]
H = 1e-6


def _rand(rng, shape, complex_):
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if complex_ else x


def _directions(rng, x):
    if not np.iscomplexobj(x):
        return [_rand(rng, np.shape(x), False)]
    real = _rand(rng, np.shape(x), False)
    return [real.astype(complex), 1j * _rand(rng, np.shape(x), False), _rand(rng, np.shape(x), True)]


def check_adjoint(forward, grad, x, seed=0):
    """The dot-product test of ``grad`` against ``forward`` at ``x``."""
    rng = np.random.default_rng(seed)
    y = forward(x)
    g = _rand(rng, y.shape, np.iscomplexobj(y))
    gx = grad(g, x)
    assert gx.shape == np.shape(x)
    assert np.iscomplexobj(gx) == np.iscomplexobj(x)
    for d in _directions(rng, x):
        exact = forward(d)
        fd = (forward(x + H * d) - forward(x - H * d)) / (2 * H)
        rhs = np.real(np.vdot(gx, d))
        scale = np.linalg.norm(g) * np.linalg.norm(exact) + 1e-300
        np.testing.assert_allclose(np.real(np.vdot(g, exact)), rhs, rtol=1e-10, atol=1e-12 * scale)
        np.testing.assert_allclose(np.real(np.vdot(g, fd)), rhs, rtol=1e-6, atol=1e-8 * scale)


# (shape, axis) of the 1-D transforms: 1-D/2-D/3-D, odd and even lengths, axes 0, -1 and
# negative/middle ones.
SHAPE_AXES = [((7,), -1), ((8,), 0), ((3, 6), -1), ((5, 4), 0), ((2, 3, 5), 1),
              ((2, 3, 5), -3), ((2, 4, 3), -2)]


def _lengths(name, m):
    """n: the default, larger than the input and smaller, of both parities."""
    if name in ("irfft", "hfft"):  # n is the output length; n//2+1 points of the input are used
        return [None, 2 * m + 1, 2 * m + 2, m, m + 1, 1]
    return [None, m + 3, 1] + ([m - 2] if m > 3 else [])


ONE_D = [(name, complex_) for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
         for complex_ in (False, True) if not (complex_ and name in ("rfft", "ihfft"))]
ONE_D_CASES = [
    pytest.param(name, complex_, shape, axis, n, norm,
                 id=f"{name}-{'c' if complex_ else 'r'}-{shape}-ax{axis}-n{n}-{norm}")
    for name, complex_ in ONE_D for shape, axis in SHAPE_AXES
    for n in _lengths(name, shape[axis]) for norm in NORMS
]


@pytest.mark.parametrize("name, complex_, shape, axis, n, norm", ONE_D_CASES)
def test_1d(name, complex_, shape, axis, n, norm):
    fn, grad = getattr(np.fft, name), getattr(F, name + "_grad")
    x = _rand(np.random.default_rng(1), shape, complex_)
    check_adjoint(lambda v: fn(v, n, axis, norm), lambda g, v: grad(g, v, n, axis, norm), x)


# (shape, s, axes) of the n-D transforms: defaults, s larger/smaller/-1, axes in any
# order, negative, a single one and a repeated one.
ND_CASES = [
    ((6,), None, None),
    ((4, 5), None, None),
    ((4, 5), (6, 3), (0, 1)),
    ((4, 5), (3, 12), (0, 1)),
    ((3, 4, 5), None, None),
    ((3, 4, 5), None, (0, 2)),
    ((3, 4, 5), (2, 7), (-1, 0)),
    ((3, 4, 5), (5, 3), (-2, -3)),
    ((3, 4, 5), None, (1,)),
    ((3, 4, 5), (4, 6), (1, 1)),
    ((3, 4, 5), (-1, 7), (0, 2)),
    ((3, 4, 5), (3, 2, 9), None),  # s without axes: deprecated, still run by NumPy
]
ND = [(name, complex_) for name in ("fftn", "ifftn", "rfftn", "irfftn")
      for complex_ in (False, True) if not (complex_ and name == "rfftn")]


def _nd_call(fn, s, axes, norm):
    kwargs = {"norm": norm}
    if s is not None:
        kwargs["s"] = s
    if axes is not None:
        kwargs["axes"] = axes
    return lambda *args: fn(*args, **kwargs)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("shape, s, axes", ND_CASES, ids=str)
@pytest.mark.parametrize("name, complex_", ND, ids=str)
def test_nd(name, complex_, shape, s, axes, norm):
    x = _rand(np.random.default_rng(2), shape, complex_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check_adjoint(_nd_call(getattr(np.fft, name), s, axes, norm),
                      _nd_call(getattr(F, name + "_grad"), s, axes, norm), x)


# The 2-D transforms: their default axes (-2, -1), and others.
TWO_D_CASES = [((4, 5), None, None), ((3, 4, 5), (6, 3), None), ((3, 4, 5), None, (0, 2)),
               ((3, 4, 5), (3, 8), (2, 0)), ((2, 3), (4, 1), (-1, -2))]
TWO_D = [(name, complex_) for name in ("fft2", "ifft2", "rfft2", "irfft2")
         for complex_ in (False, True) if not (complex_ and name == "rfft2")]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("shape, s, axes", TWO_D_CASES, ids=str)
@pytest.mark.parametrize("name, complex_", TWO_D, ids=str)
def test_2d(name, complex_, shape, s, axes, norm):
    x = _rand(np.random.default_rng(3), shape, complex_)
    check_adjoint(_nd_call(getattr(np.fft, name), s, axes, norm),
                  _nd_call(getattr(F, name + "_grad"), s, axes, norm), x)


@pytest.mark.parametrize("name", ["rfft", "ihfft", "rfftn", "rfft2"])
def test_real_only_transforms_reject_complex(name):
    x = np.ones((3, 4), dtype=complex)
    with pytest.raises(TypeError, match="discards its imaginary part"):
        getattr(F, name + "_grad")(np.ones((3, 3), dtype=complex), x)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.float64])
def test_real_inputs_get_real_adjoints(dtype):
    x = np.arange(12).reshape(3, 4).astype(dtype)
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "rfftn", "irfft2"):
        y = getattr(np.fft, name)(x)
        gx = getattr(F, name + "_grad")(np.ones_like(y), x)
        assert gx.dtype.kind == "f" and gx.shape == x.shape, name


def test_list_input():
    x = [[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]]
    check_adjoint(lambda v: np.fft.fft2(v, (3, 5)), lambda g, v: F.fft2_grad(g, v, (3, 5)), x)


def test_invalid_norm():
    with pytest.raises(ValueError, match="Invalid norm"):
        F.fft_grad(np.ones(4, dtype=complex), np.ones(4), norm="both")


def test_exported_names():
    public = [name for name in dir(F) if name.endswith("_grad") and not name.startswith("_")]
    assert sorted(F.__all__) == sorted(public + ["row_axes"])
