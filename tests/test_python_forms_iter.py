"""Python forms real programs use (issue 13): ``reversed(...)``, ``map(f, ...)``,
functions held in a list, tuple or dict and called through it, functions made by a
factory (``make(a)`` returning a closure), and records built in the function.

Each form is checked against central differences to second order (``check_grads``),
by ``sg.value_and_grad`` and a ``GradientTape`` in plain code and in an
``@sg.function`` (``assert_forms_agree``), and in forward mode (``sg.jvp``,
``assert_forward_mode_agrees``). What cannot be modelled exactly is refused,
naming the construct.
"""
import dataclasses
import functools
import typing
import re

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.testing import check_grads
from tape_forms import assert_forms_agree, assert_forward_mode_agrees

X = np.array([0.3, 1.2, -0.7, 2.1])


def check_every_form(f, args=(X,)):
    check_grads(f, args, order=2, wrt=list(range(len(args))))
    assert_forms_agree(f, args, nonzero=True)
    assert_forward_mode_agrees(f, args)


# -- reversed ---------------------------------------------------------------------------

def reversed_enumerated(x):
    return sum(v * i for i, v in enumerate(reversed(x)))


def reversed_loop(x):
    s = 1.0
    for v in reversed(x):
        s = s * 0.5 + np.sin(v)
    return s


def reversed_zipped(x):
    return sum(a * b ** 2 for a, b in zip(x, reversed(x)))


def reversed_listed(x):
    ys = list(reversed(x))
    return ys[0] * ys[1] ** 2 + ys[-1]


def reversed_tuple_display(x):
    t = (x[0], x[1] ** 2, x[2])
    return sum(v * (k + 1.0) for k, v in enumerate(reversed(t)))


def reversed_list_display(x):
    s = 0.0
    for v in reversed([x[0], x[1] * 2, np.tanh(x[3])]):
        s = s * 3.0 + v ** 2
    return s


def reversed_comprehension(x):
    return np.sum(np.array([v ** 2 * k for k, v in enumerate(reversed([x[0], x[1], x[2]]))]))


def reversed_rebound(x):
    # Python reverses the array the loop started with: ``x`` rebound in the body.
    s = 0.0
    for v in reversed(x):
        x = x * v
        s = s + np.sum(x)
    return s


def reversed_rows(x):
    m = np.outer(x, x[:2])
    s = 0.0
    for k, row in enumerate(reversed(m)):
        s = s + (k + 1.0) * np.sum(np.sin(row))
    return s


def reversed_sum(x):
    return sum(reversed(x ** 2))


@pytest.mark.parametrize("f", [reversed_enumerated, reversed_loop, reversed_zipped,
                               reversed_listed, reversed_tuple_display, reversed_list_display,
                               reversed_comprehension, reversed_rebound, reversed_rows,
                               reversed_sum])
def test_reversed(f):
    check_every_form(f)


def reversed_two(x, y):
    return sum(a * np.cos(b) for a, b in zip(reversed(x), y))


def test_reversed_zip_of_two_arguments_of_different_lengths():
    check_every_form(reversed_two, (X, X[:3] * 2.0))


# -- map ------------------------------------------------------------------------------

def square(v):
    return v * v


def times(a, b):
    return a * b


def map_summed(x):
    return sum(map(np.sin, x))


def map_loop(x):
    s = 0.0
    for v in map(np.tanh, x):
        s = s + v ** 2
    return s


def map_lambda_listed(x):
    ys = list(map(lambda v: v * 3.0 + v ** 2, x))
    return ys[0] * ys[2]


def map_two_sequences(x):
    return sum(map(times, x, x[::-1] ** 2))


def map_user_tuple(x):
    t = tuple(map(square, x))
    return t[1] + t[3] * t[0]


def map_of_reversed(x):
    return sum(map(square, reversed(x)))


def map_enumerated(x):
    return sum(k * v for k, v in enumerate(map(np.exp, x)))


def map_comprehension(x):
    return np.sum(np.stack([v * 2.0 for v in map(np.sin, [x, x ** 2])]))


@pytest.mark.parametrize("f", [map_summed, map_loop, map_lambda_listed, map_two_sequences,
                               map_user_tuple, map_of_reversed, map_enumerated,
                               map_comprehension])
def test_map(f):
    check_every_form(f)


# -- refused, naming the construct ------------------------------------------------------

def map_kept(x):
    m = map(np.sin, x)  # an iterator: a second pass over it would find nothing
    return sum(m)


def reversed_of_zip(x):
    return sum(a * b for a, b in reversed(zip(x, x)))


def map_of_differentiable_function(x):
    return sum(map(x[0].__mul__, x))


def map_function_rebound(x):
    f = np.sin
    s = 0.0
    for v in map(f, x):
        f = np.cos  # ``map`` holds np.sin: which one it holds depends on the run
        s = s + v * f(v)
    return s


@pytest.mark.parametrize("f, words", [
    (map_kept, "`map(...)` of differentiable values"),
    (reversed_of_zip, "reverses lists, tuples and arrays only"),
    (map_of_differentiable_function, "the function mapped is made from differentiable"),
    (map_function_rebound, "the loop rebinds `f`"),
])
def test_refused(f, words):
    with pytest.raises(sg.CompileError, match=re.escape(words)):
        sg.grad(f)(X)


# -- functions held in a list, tuple or dict --------------------------------------------

def relu(v):
    return np.maximum(v, 0.0)


def functions_summed(x):
    fs = [lambda v: v * 2, lambda v: v ** 2, np.sin]
    return sum(f(x[0]) * f(x[1]) for f in fs)


def functions_chained(x):
    fs = (np.sin, lambda v: v ** 2, square)
    y = x
    for f in fs:
        y = f(y)
    return np.sum(y)


def functions_indexed(x):
    fs = [lambda v: v * 2, lambda v: v ** 3]
    return np.sum(fs[1](x) + fs[0](x) * fs[-1](x))


def functions_by_constant_name(x):
    acts = {"relu": lambda v: np.maximum(v, 0.0), "tanh": np.tanh}
    return np.sum(acts["tanh"](x) * x)


def functions_enumerated(x):
    fs = [np.sin, np.cos, np.tanh]
    s = 0.0
    for k, f in enumerate(fs):
        s = s + (k + 1.0) * np.sum(f(x))
    return s


def functions_zipped_with_constants(x):
    fs = [np.sin, np.exp]
    return sum(w * np.sum(f(x)) for f, w in zip(fs, (0.5, 2.0)))


def functions_reaching_outer(x):
    scale = x[0] ** 2  # read by the lambdas when called
    fs = [lambda v: v * scale, lambda v: np.sin(v * scale)]
    return sum(np.sum(f(x)) for f in fs)


def functions_nested_defs(x):
    def first(v):
        return v ** 2 + x[1]

    def second(v):
        return np.exp(v) * x[0]

    fs = {"a": first, "b": second}
    return np.sum(fs["a"](x) * fs["b"](x))


@pytest.mark.parametrize("f", [functions_summed, functions_chained, functions_indexed,
                               functions_by_constant_name, functions_enumerated,
                               functions_zipped_with_constants, functions_reaching_outer,
                               functions_nested_defs])
def test_functions_in_containers(f):
    check_every_form(f)


def activation_by_name(x, name):
    acts = {"relu": relu, "tanh": np.tanh, "square": lambda v: v ** 2}
    return np.sum(acts[name](x) * x)


def layer_by_index(x, i):
    layers = [np.sin, lambda v: v * x[0], relu]
    return np.sum(layers[i](x))


def forward_along_first(f, x, extra, seed=5):
    """Forward mode of ``f(x, extra)`` along ``x`` (``extra`` is not differentiated):
    the tangent agrees with the gradient and with central differences."""
    from srcgrad.compiler.tangents import compile_tangent

    t = np.random.default_rng(seed).standard_normal(x.shape)
    code = compile_tangent(f, [0], (x.copy(), extra))
    value, tangent = code.fn(x.copy(), extra, t)
    assert value == pytest.approx(f(x, extra), rel=1e-12)
    assert tangent == pytest.approx(float(np.sum(sg.grad(f)(x, extra) * t)), rel=1e-9)
    numeric = (f(x + 1e-6 * t, extra) - f(x - 1e-6 * t, extra)) / 2e-6
    assert tangent == pytest.approx(numeric, rel=1e-6)


@pytest.mark.parametrize("f, extra", [(activation_by_name, n) for n in ("relu", "tanh", "square")]
                         + [(layer_by_index, i) for i in (0, 1, 2, -1)])
def test_function_chosen_by_an_argument(f, extra):
    """``acts[name](x)`` / ``layers[i](x)``, ``name`` and ``i`` arguments the code is not
    specialised on: each function is compiled, the one the item is runs."""
    x = X + 0.05  # away from relu's kink
    check_grads(f, (x, extra), order=2, wrt=[0])
    value, g = sg.value_and_grad(f)(x, extra)
    assert value == pytest.approx(f(x, extra), rel=1e-12)
    np.testing.assert_allclose(g, sg.grad(f)(x, extra), rtol=1e-12)
    assert_forms_agree(functools.partial(f, **{f.__code__.co_varnames[1]: extra}), (x,),
                       nonzero=True)
    forward_along_first(f, x, extra)
    # One compiled code serves every name: the choice is made when it runs.
    for other in ("relu", "tanh") if f is activation_by_name else (0, 2):
        np.testing.assert_allclose(sg.grad(f)(x, other),
                                   sg.grad(functools.partial(f, **{
                                       f.__code__.co_varnames[1]: other}))(x), rtol=1e-12)


def test_function_chosen_by_a_missing_name_raises_as_python_does():
    with pytest.raises(KeyError):
        sg.grad(activation_by_name)(X, "gelu")
    with pytest.raises(IndexError):
        sg.grad(layer_by_index)(X, 3)
    with pytest.raises(TypeError, match="'list' object is not callable"):
        sg.grad(layer_by_index)(X, slice(0, 1))


# -- functions made by a call (closures) ------------------------------------------------

def make_scale(a):
    return lambda v: a * v


def make_layer(w, b):
    def layer(v):
        return np.tanh(w * v + b)
    return layer


def made_once(x):
    g = make_scale(x[0] ** 2)
    return np.sum(g(x))


def made_from_constants(x):
    layers = [make_scale(w) for w in (0.5, 2.0, -1.5)]
    y = x
    for f in layers:
        y = f(y)
    return np.sum(y ** 2)


def made_display(x):
    fs = [make_layer(x[0], 0.1), make_layer(0.5, x[1]), np.sin]
    y = x
    for f in fs:
        y = f(y)
    return np.sum(y * x)


def made_by_index(x):
    fs = [make_layer(w, b) for w, b in ((0.5, 0.1), (1.5, -0.2))]
    return np.sum(fs[0](x) * fs[1](x) + fs[-1](x[2]))


def made_not_varied(x):
    g = make_scale(3.0)
    h = make_layer(0.7, 0.2)
    return np.sum(h(g(x)))


def made_keeps_its_own_values(x):
    # Two closures of one factory: each reads its own ``a``.
    double, triple = make_scale(2.0), make_scale(x[1])
    return np.sum(double(x) * triple(x))


@pytest.mark.parametrize("f", [made_once, made_from_constants, made_display, made_by_index,
                               made_not_varied, made_keeps_its_own_values])
def test_functions_made_by_a_call(f):
    check_every_form(f)


def made_in_a_loop(x):
    s = 0.0
    for i in range(3):
        g = make_scale(x[i])  # another closure on each trip
        s = s + np.sum(g(x))
    return s


def made_over_unknown_length(x):
    fs = [make_scale(w) for w in x[:2]]
    return sum(np.sum(f(x)) for f in fs)


def test_functions_made_in_a_loop_are_refused():
    with pytest.raises(sg.CompileError, match="a function a call makes inside a loop"):
        sg.grad(made_in_a_loop)(X)
    with pytest.raises(sg.CompileError, match="cannot tell at compile time which function"):
        sg.grad(made_over_unknown_length)(X)


# -- records built in the function -----------------------------------------------------

@dataclasses.dataclass
class Point:
    x: float
    y: float

    def norm(self):
        return np.sqrt(self.x ** 2 + self.y ** 2)

    def scaled(self, k):
        return Point(self.x * k, self.y * k)

    @property
    def area(self):
        return self.x * self.y


class Pair(typing.NamedTuple):
    a: float
    b: float

    def total(self):
        return self.a * np.exp(self.b)


def point_method(x):
    p = Point(x[0], x[1])
    return p.norm() * p.x


def point_inline(x):
    return Point(x[0], x[1] ** 2).norm()


def point_returned_by_a_method(x):
    q = Point(x[0], x[1]).scaled(x[2])
    return q.norm() + Point(x[1], x[3]).area


def pair_method(x):
    return Pair(x[0], x[1]).total() + Pair(b=x[2], a=x[3]).b


@pytest.mark.parametrize("f", [point_method, point_inline, point_returned_by_a_method,
                               pair_method])
def test_records_built_here(f):
    check_every_form(f)


class PlainPoint:
    def __init__(self, x, y):
        self.x = x
        self.y = y


def plain_point(x):
    return PlainPoint(x[0], x[1]).x


def method_of_a_returned_record(x):
    return Point(x[0], x[1]).scaled(x[2]).norm()


def test_plain_class_built_in_an_expression():
    """(It was refused, 'make PlainPoint a dataclass': objects.py keeps it as its attributes.)"""
    check_every_form(plain_point)


def test_method_of_a_returned_record():
    """(It was refused, 'bind it to a name first': a call returning a record built by its
    return statement is known as one where it is inlined.)"""
    check_every_form(method_of_a_returned_record)


def table_changed(x):
    fs = [np.sin, np.cos]
    fs.append(np.tanh)  # no longer the display's functions
    return sum(np.sum(f(x)) for f in fs)


def shuffle_in_place(items):
    items.reverse()


def table_passed_on(x):
    fs = [np.sin, np.cos]
    shuffle_in_place(fs)  # what it does to the list is not read when compiling
    return np.sum(fs[0](x))


def table_rebound(x):
    fs = [np.sin, np.cos]
    if x[0] > 0:
        fs = [np.cos, np.sin]
    return np.sum(fs[0](x))


@pytest.mark.parametrize("f", [table_changed, table_passed_on, table_rebound])
def test_tables_that_may_change_are_refused(f):
    with pytest.raises(sg.CompileError, match="cannot tell at compile time which function"):
        sg.grad(f)(X)


def make_with_default(a):
    def inner(v, a=a):  # the default is ``a`` when the def runs
        return a * v
    return inner


def default_read_at_definition(x):
    a = x[0] * 2

    def inner(v, a=a):
        return a * v
    a = 0.0  # the default stays x[0] * 2
    return np.sum(inner(x))


def made_with_default(x):
    g = make_with_default(x[0] * 2)
    return np.sum(g(x))


@pytest.mark.parametrize("f", [default_read_at_definition, made_with_default])
def test_defaults_computed_where_a_def_runs_are_refused(f):
    # (Inlined, the default would be read where the call is: refused, not misread.)
    with pytest.raises(sg.CompileError, match="is computed from local variables when it is "
                       "defined"):
        sg.grad(f)(X)


# -- ``zip(*rows)`` in a loop, the rows written out in the code ---------------------------

def zip_of_spread_rows(x):
    rows = [x[:3] * 2.0, np.sin(x[1:]), x[:3] ** 2]
    total = 0.0
    for a, b, c in zip(*rows):
        total = total + a * b - c
    return total


def zip_of_spread_rows_comprehension(x):
    # (the same math as a generator over the columns, one row given on its own)
    rows = (np.sin(x[1:]), x[:3] ** 2)
    return sum(a * b - c for a, b, c in zip(x[:3] * 2.0, *rows))


def _two_rows(x):
    return x[:3] * 2.0, np.sin(x[1:])


def zip_of_rows_a_helper_returns(x):
    rows = _two_rows(x)  # (its items known once the helper is inlined)
    return sum(a * b for a, b in zip(*rows))


def _total(*xs):
    out = 0.0
    for v in xs:
        out = out + np.sum(v ** 2)
    return out


def star_args_of_rows_a_helper_returns(x):
    rows = _two_rows(x)
    return _total(*rows)


@pytest.mark.parametrize("f", [zip_of_spread_rows, zip_of_spread_rows_comprehension,
                               zip_of_rows_a_helper_returns,
                               star_args_of_rows_a_helper_returns])
def test_zip_of_spread_rows(f):
    # (Refused before: "Starred expression on differentiable values is not supported";
    # rows a helper returns: "cannot tell when compiling how many items `rows` holds".)
    check_every_form(f)


def zip_of_float_pairs(a, b):
    pairs = [a * 2.0, b + 1.0]
    return sum(u * v for u, v in zip(*[pairs, pairs]))


def test_zip_of_spread_rows_of_python_floats():
    check_every_form(zip_of_float_pairs, (0.7, -0.3))


def zip_of_rows_made_in_a_loop(x, m):
    rows = [np.tanh(r * x[:2]) for r in m]  # (as many rows as m has: not known when compiling)
    return sum(a * b for a, b in zip(*rows))


def test_zip_of_rows_not_written_out_is_refused():
    with pytest.raises(sg.CompileError, match=r"`\*rows` in a call: srcgrad cannot tell when "
                                              "compiling how many items `rows` holds"):
        sg.grad(zip_of_rows_made_in_a_loop)(X, np.ones((2, 2)))
