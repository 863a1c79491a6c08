"""Records (dataclasses) of several classes built in the differentiated code, called
through one name: a loop over ``[Mul(a), Add(b)]`` where only ``a`` is differentiated
(``Add(b)`` no record the compiler built), or a name bound to ``Add(a)`` in one branch and
``Mul(a)`` in the other. The name kept the class it held first (or in the branch
normalized last), so the other item's call ran as that class's method: wrong values and
gradients, silently (found by a battery of signal-processing programs). Now computed or
refused; never the other class's method."""
import dataclasses

import pytest

import srcgrad as sg


@dataclasses.dataclass
class Mul:
    w: float

    def __call__(self, x):
        return self.w * x


@dataclasses.dataclass
class Add:
    w: float

    def __call__(self, x):
        return self.w + x


def chain(a, b):
    h = 2.0
    for layer in [Mul(a), Add(b)]:
        h = layer(h)
    return h ** 2  # (2a + b)^2


def branch(x, a):
    if x > 0:
        layer = Add(a)
    else:
        layer = Mul(a)
    return layer(x) ** 2


def branch_expression(x, a):
    layer = Add(a) if x > 0 else Mul(a)
    return layer(x) ** 2


def _never_wrong(f, args, wrt):
    eps = 1e-6
    try:
        value, grad = sg.value_and_grad(f, wrt=wrt)(*args)
    except sg.CompileError:
        return False
    assert value == pytest.approx(f(*args), rel=1e-12)
    grads = grad if isinstance(wrt, tuple) else (grad,)
    for i, g in zip(wrt if isinstance(wrt, tuple) else (wrt,), grads):
        up, down = list(args), list(args)
        up[i] += eps
        down[i] -= eps
        assert g == pytest.approx((f(*up) - f(*down)) / (2 * eps), rel=1e-6)
    return True


@pytest.mark.parametrize("wrt", [0, 1, (0, 1)])
def test_a_loop_over_records_of_two_classes(wrt):
    # (a record built of constants beside one of differentiable values is one too)
    assert _never_wrong(chain, (0.5, 3.0), wrt)


@pytest.mark.parametrize("f", [branch, branch_expression], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [1.5, -1.5])
def test_a_name_bound_to_records_of_two_classes_in_branches(f, x):
    _never_wrong(f, (x, 0.7), 1)


def test_records_of_one_class_in_both_branches():
    def same(x, a):
        if x > 0:
            layer = Mul(a)
        else:
            layer = Mul(2.0 * a)
        return layer(x) ** 2
    assert _never_wrong(same, (1.5, 0.7), 1)
    assert _never_wrong(same, (-1.5, 0.7), 1)


@dataclasses.dataclass
class Gain:
    g: float

    def __call__(self, x):
        return self.g * x


def test_a_record_of_constants_called_where_it_is_made():
    """(``Gain(0.5)(x)`` was refused: the record of constants ran as written, a value
    whose class srcgrad could not tell. Found by a battery of signal programs.)"""
    def f(x):
        return Gain(0.5)(x) ** 2 + Gain(x)(2.0)
    assert _never_wrong(f, (1.3,), 0)


def rebound_in_a_loop(a):
    h = 0.5
    layer = Mul(a)
    for _ in range(2):
        h = layer(h)
        layer = Add(a)
    return h


def chosen_then_rebound(a):
    layer = Mul(a) if a > 0.5 else Add(a)
    h = layer(3.0)
    layer = Add(a)
    return layer(h)


@pytest.mark.parametrize("f", [rebound_in_a_loop, chosen_then_rebound],
                         ids=lambda f: f.__name__)
def test_a_name_bound_to_records_of_two_classes_in_turn(f):
    """(Both ran the class bound last: wrong values, silently. Found by a battery checking
    the fixes above in other styles.)"""
    _never_wrong(f, (0.7,), 0)
