"""Supported syntax that srcgrad must still refuse: found by the later passes."""
import numpy as np


def direct_recursion(x, n):
    if n == 0:
        return x
    return direct_recursion(x * 2.0, n - 1)  # MARK: recursion


def mutual_a(x, n):
    if n <= 0:
        return x
    return mutual_b(x * 2.0, n - 1)  # MARK: mutual_a_calls_b


def mutual_b(x, n):
    return mutual_a(x + 1.0, n)  # MARK: mutual_b_calls_a


def no_rule_sort_complex(x):
    y = x * 2.0
    z = np.sort_complex(y)  # MARK: no_rule
    return np.sum(z * z)


class Model:
    # (Slots change how attributes are stored: not mirrored by locals, refused. A plain
    # class's attributes are: tests/test_object_attributes.py.)
    __slots__ = ("x",)

    def __init__(self):
        self.x = 0.0

    def store(self, x):
        self.x = x * 2.0  # MARK: attribute
        return np.sum(self.x)


def attribute_assignment(model, x):
    return model.store(x)


def and_operator(x, y):
    z = x and y  # MARK: and
    return z * 2.0


def or_operator(x, y):
    return (x or y) * 2.0  # MARK: or


def differentiable_index(x):
    i = x[0] * 2.0  # (a float: NumPy refuses it too; ``.astype(int)`` carries no gradient)
    return x[i] * 2.0  # MARK: index


def numpy_1_name(x):
    return np.trapz(x ** 2)  # MARK: removed_name


def misspelt_name(x):
    return np.sum(np.exq(x))  # MARK: misspelt
