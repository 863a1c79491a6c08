"""The helpers that give an index's adjoint (``_sg.add_at``, ``_sg.add_at_zeros``) agree
with their definition, ``np.add.at`` into a copy (or zeros) of the result dtype, for
every kind of index, dtype and gradient: their quick path for a slice or an int with a
gradient of the base's dtype must change nothing but the time."""
import numpy as np
import pytest

from srcgrad.runtime import core

INDICES = [slice(1, None), slice(None, -1), slice(None, None, 2), 0, 2, np.int64(1),
           (slice(None), 1), [0, 0, 2], Ellipsis, ()]


def reference(base, index, grad, zeros):
    start = np.zeros(np.shape(base), base.dtype if base.dtype.kind in "fc" else float) \
        if zeros else base
    out = np.array(start, dtype=np.result_type(start, grad, np.float16), copy=True)
    np.add.at(out, index, grad)
    return out


def cases():
    rng = np.random.default_rng(7)
    for dtype in (np.float64, np.float32, np.float16, np.complex128, np.int64):
        for shape in ((5,), (3, 4)):
            base = (rng.normal(size=shape) * 3).astype(dtype)
            for index in INDICES:
                try:
                    sub_shape = np.shape(base[index])
                except IndexError:
                    continue
                grads = [1.5, np.float32(2.0)] + [
                    (np.ones(sub_shape) * 0.5).astype(g) for g in (dtype, np.float64, np.float32)]
                for grad in grads:
                    yield base, index, grad


@pytest.mark.parametrize("zeros", [False, True])
def test_index_adjoints_are_np_add_at(zeros):
    checked = 0
    for base, index, grad in cases():
        want = reference(base, index, grad, zeros)
        like = core.like(base) if zeros else base
        got = (core.add_at_zeros if zeros else core.add_at)(like, index, grad)
        assert type(got) is np.ndarray and got.flags.writeable
        assert got.dtype == want.dtype and got.shape == want.shape, (base.dtype, index, grad)
        np.testing.assert_array_equal(got, want)
        assert got is not base
        checked += 1
    assert checked > 400


def test_add_at_leaves_its_base_as_it_was():
    base = np.arange(5.0)
    out = core.add_at(base, slice(1, 3), np.ones(2))
    np.testing.assert_array_equal(base, np.arange(5.0))
    np.testing.assert_array_equal(out, [0.0, 2.0, 3.0, 3.0, 4.0])
