"""``a[0], a[1] = a[1], a[0]``: NumPy reads views of a 2-D array's rows, and the first
write changes the second row read (both rows end up as the old row 1), so srcgrad
refuses it; items of a 1-D array are copies and the swap is exact, to second order.
The code compiled for complex values copied the items before the check (to keep the
backward pass free of views) and so computed a true swap: a wrong value and
gradient (fuzzer 35036:46)."""
import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads


def swapped(x):
    s = x * 1.5
    s[0], s[1] = s[1], s[0]
    return np.sum(s * np.arange(1.0, s.size + 1.0).reshape(s.shape))


@pytest.mark.parametrize("dtype", [float, complex])
def test_swapping_rows_of_a_matrix_is_refused(dtype):
    x = np.array([[-0.262, -1.184, 0.33], [-0.906, 1.33, -0.145]], dtype=dtype)
    with pytest.raises(sg.CompileError, match=r"is a view of the array this assignment writes"):
        sg.grad(swapped)(x)


@pytest.mark.parametrize("dtype", [float, complex])
def test_swapping_items_of_a_vector(dtype):
    x = np.array([0.3, -1.2, 0.7], dtype=dtype)
    np.testing.assert_allclose(sg.grad(swapped)(x), np.array([3.0, 1.5, 4.5]))
    check_grads(swapped, (x.real.copy(),), order=2)
