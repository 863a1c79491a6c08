"""Unsupported syntax: rejected up front by the fence pass."""
import contextlib

import numpy as np


def try_statement(x):
    y = x * 2.0
    try:  # MARK: try
        y = y + 1.0
    except ValueError:
        y = y - 1.0
    finally:  # (a try/except alone is differentiated: tests/test_try_except.py)
        x = x + 1.0
    return y


def try_star_statement(x):
    y = x * 2.0
    try:  # MARK: try_star
        y = y + 1.0
    except* ValueError:
        pass
    return y


def with_statement(x):
    y = x * 2.0
    with contextlib.suppress(ValueError):  # MARK: with
        y = np.log(y)
    return y


def yield_expression(x):
    y = x * 2.0
    yield y  # MARK: yield


def yield_from_expression(x):
    y = x * 2.0
    yield from [y, y]  # MARK: yield_from


COUNTER = 0.0


def global_statement(x):
    # (A global counter assigned is supported: tests/test_global_names.py. Bound as a
    # loop's variable, it is not.)
    global COUNTER
    for COUNTER in range(2):  # MARK: global
        x = x * 2.0
    return x


def nonlocal_statement(x):
    total = 0.0

    def add(v):
        nonlocal total  # MARK: nonlocal
        total = total + v

    add(x)
    return x * total


async def async_function(x):  # MARK: async_def
    return x * 2.0


async def _helper(v):
    return v


async def await_expression(x):  # MARK: await_def
    y = await _helper(x)  # MARK: await
    return y * 2.0


def lambda_in_comprehension(x):
    # (A lambda elsewhere is compiled as a nested def: passes/lambdas.py.)
    return sum([(lambda v: v * k)(x) for k in range(3)])  # MARK: lambda


def class_definition(x):
    class Box:  # MARK: class
        pass

    return x * 2.0


def del_statement(x):
    y = x * 2.0
    z = y + 1.0
    del y  # MARK: del
    return z + y  # (a read past the del: Python's NameError, refused)


def match_statement(x, n):
    match n:  # MARK: match
        case 0:
            return x
        case _:
            return x * 2.0


# (An import whose names nothing else binds is read as what it imports: these rebind.)
def import_statement(x):
    import math  # MARK: import
    math = x
    return math


def import_from_statement(x):
    from math import sin  # MARK: import_from
    if x > 0.0:
        sin = abs
    return sin(x)


def walrus(x):
    # (Only sometimes evaluated: not lifted before the statement, passes/walrus.py.)
    if x > 0.0 and (y := x * 2.0) > 1.0:  # MARK: walrus
        return y
    return x


def set_comprehension(x):
    s = {v * 2.0 for v in x}  # MARK: setcomp
    return sum(s)


def dict_comprehension(x):
    # (Over keys known when compiling, a dict comprehension is compiled.)
    d = {float(v): v * 2.0 for v in x}  # MARK: dictcomp
    return d[0.5] + d[1.0]


def kwargs_parameter(x, **options):  # MARK: kwargs
    return x * 2.0


def _options():
    return {"axis": 0}


def double_star_call(x):
    return np.sum(x * 2.0, **_options())  # MARK: double_star
