"""Hessians by nested tapes, ``jacobian`` of an inner tape's gradient (tests/test_jacobian.py).

One function per number of arguments: a tape records the block it is in from
source, so the blocks are written out.
"""
import srcgrad as sg


def hessian_1(func, a):
    with sg.GradientTape() as outer:
        outer.watch(a)
        with sg.GradientTape() as inner:
            inner.watch(a)
            y = func(a)
        ga = inner.gradient(y, a)
    return [[outer.jacobian(ga, a)]]


def hessian_2(func, a, b):
    with sg.GradientTape(persistent=True) as outer:
        outer.watch(a)
        outer.watch(b)
        with sg.GradientTape() as inner:
            inner.watch(a)
            inner.watch(b)
            y = func(a, b)
        ga, gb = inner.gradient(y, [a, b])
    return [[outer.jacobian(ga, a), outer.jacobian(ga, b)],
            [outer.jacobian(gb, a), outer.jacobian(gb, b)]]


def hessian_3(func, a, b, c):
    with sg.GradientTape(persistent=True) as outer:
        outer.watch(a)
        outer.watch(b)
        outer.watch(c)
        with sg.GradientTape() as inner:
            inner.watch(a)
            inner.watch(b)
            inner.watch(c)
            y = func(a, b, c)
        ga, gb, gc = inner.gradient(y, [a, b, c])
    return [[outer.jacobian(g, s) for s in (a, b, c)] for g in (ga, gb, gc)]
