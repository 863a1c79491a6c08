"""``tape.jacobian`` of a tuple, list, dict or record target crashed inside NumPy
(hunt 4, bug_31): it is one array's Jacobian, as TensorFlow's is; anything else is a
TypeError saying so."""
import numpy as np
import pytest

import srcgrad as sg

X = np.array([0.3, -0.5, 0.8])


@pytest.mark.parametrize("make", [lambda x: (np.sin(x), np.sum(x ** 2)),
                                  lambda x: [np.sin(x), x * 2.0],
                                  lambda x: {"a": np.sin(x), "b": np.sum(x)}],
                         ids=["tuple", "list", "dict"])
@pytest.mark.parametrize("method", ["jacobian", "batch_jacobian"])
def test_structured_targets_are_a_clear_type_error(make, method):
    x = X.copy()
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = make(x)
    with pytest.raises(TypeError, match=f"tape.{method}'s target must be one array"):
        getattr(tape, method)(y, x)
    with sg.GradientTape() as tape:  # (one array: as before)
        tape.watch(x)
        z = np.sin(x)
    np.testing.assert_allclose(tape.jacobian(z, x), np.diag(np.cos(x)), rtol=1e-12)
