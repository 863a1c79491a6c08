"""Messages about a function a tape block calls name its variables as its lines do
(hunt 4, bug_27: 'in-place update `helper_h += ...`' where the user wrote ``h``)."""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([0.3, -0.8, 1.2])


def helper(x):
    h = x * 1.0
    hs = [h]
    h += 1.0
    return np.sum(hs[0] * x)


def test_run_time_check_of_an_inlined_update_names_the_users_variable():
    with pytest.raises(Exception) as e:
        with sg.GradientTape() as t:
            t.watch(X)
            y = helper(X)
        t.gradient(y, X)
    assert "`h += ...`" in str(e.value) and "helper_h" not in str(e.value)
    with pytest.raises(sg.CompileError) as e:
        sg.grad(helper)(X)
    assert "`h += ...`" in str(e.value)
