"""Rule cases of ``srcgrad/rules/selection.py`` (see ``tests/rule_cases/__init__.py``)."""
import numpy as np

# NaN and infinities, replaced by np.nan_to_num.
NONFINITE = np.array([1.5, np.nan, np.inf, -0.5, -np.inf, np.nan])


def cases(t):
    C, R, B, F = t.C, t.R, t.B, t.F
    return [
        # take: repeated and negative indices add up; modes; axes
        C(np.take, R(5), [0, 2, 2]), C(np.take, R(5), [0, 4, 4, -1], id="negative"),
        C(np.take, R(3, 4), [[0, 2], [2, 2]], axis=1, id="axis"),
        C(np.take, R(3, 4), 1, axis=0, id="scalar-index"),
        C(np.take, R(2, 3, 4), [3, 0, 3], axis=-1, id="negative-axis"),
        C(np.take, R(3, 4), [[11, 0], [5, 5]], id="flat-2d-index"),
        C(np.take, R(3, 4), [5, -7, 5], axis=1, mode="wrap", id="wrap"),
        C(np.take, R(4), [9, -3, 1, 9], mode="clip", id="clip"),
        # bincount (the scatter-add of the adjoints above), in its weights
        C(np.bincount, np.array([0, 3, 3, 1, 3]), R(5)),
        C(np.bincount, np.array([2, 2, 0]), R(3), minlength=6, id="minlength"),
        # take_along_axis
        C(np.take_along_axis, R(3, 4), np.array([[0, 2, 2], [1, 1, 0], [3, 0, -1]]), axis=1),
        C(np.take_along_axis, R(3, 4), np.array([[2, 0, 1, 2], [0, 0, 0, 1]]), axis=0,
          id="axis0"),
        C(np.take_along_axis, R(3, 4), np.array([11, 0, 0, 5]), axis=None, id="flat"),
        C(np.take_along_axis, R(1, 4), np.array([[0, 3], [3, 3], [1, 2]]), axis=1,
          id="broadcast"),
        C(np.take_along_axis, R(2, 3, 4), np.argsort(np.arange(24.0).reshape(2, 3, 4) % 5, 1),
          1, id="3d"),
        # select: the first true condition's choice; broadcasting; default
        C(np.select, [B(3, 4), B(3, 4)], [R(3, 4), R(3, 4)], F),
        C(np.select, [B(3, 4), B(4)], [R(4), R(3, 1)], R(4), id="broadcast"),
        C(np.select, [B(5)], [R(5)], id="no-default"),
        C(np.select, [B(3, 4), B(3, 4)], R(2, 3, 4), R(3, 4), id="array-choices"),
        C(np.select, [B(3)], [F], R(3), id="pyfloat-choice"),
        # sort and partition (random reals have no ties)
        C(np.sort, R(6)), C(np.sort, R(3, 4), axis=0, id="axis0"),
        C(np.sort, R(3, 4), axis=None, id="flat"),
        C(np.sort, R(2, 3, 4), 1, kind="stable", id="3d"),
        C(np.partition, R(7), 3), C(np.partition, R(3, 5), [1, 3], axis=1, id="kths"),
        C(np.partition, R(3, 4), 5, axis=None, id="flat"),
        C(np.partition, R(4, 3), -1, axis=0, id="axis0"),
        # nan_to_num: 1 where finite; nan, posinf and neginf get the rest
        C(np.nan_to_num, R(3, 4)),
        C(np.nan_to_num, NONFINITE.copy(), nan=F, posinf=F, neginf=F, id="replaced"),
        # (the default posinf and neginf, +-1.8e308, are too large to difference)
        C(np.nan_to_num, np.array([[0.5, np.nan], [np.nan, -2.0]]), id="nan-default"),
        # real inputs of real / imag / conj / real_if_close
        C(np.real, R(3, 4)), C(np.real, F, id="pyfloat"), C(np.imag, R(3, 4)),
        C(np.conjugate, R(3, 4)), C(np.conjugate, F, id="pyfloat"),
        C(np.real_if_close, R(3, 4)),
        # interp: x inside, outside and between knots; fp; left/right
        C(np.interp, R(3, 4), np.array([-1.5, -0.3, 0.0, 0.4, 1.2]), R(5)),
        C(np.interp, np.array([-3.0, -1.0, 0.1, 0.7, 2.5]), np.array([-2.0, 0.0, 0.5, 2.0]),
          R(4), F, F, id="left-right"),
        C(np.interp, F, np.array([-1.0, 0.0, 1.0]), R(3), id="pyfloat"),
        C(np.interp, np.array([0.2, 1.4, 1.6, 3.0]), np.array([0.0, 1.0, 1.5, 1.5, 2.0]),
          R(5), id="repeated-knot"),
    ]
