"""Values whose Python meaning srcgrad's eager evaluation did not keep, each a silent
wrong gradient before (found by a battery of Python-style programs):

- a list appended to through a chain of names (``alias = other = store``, an object's
  field given the caller's list: ``self.store = store``), read under the first name;
- a list held by the class for every instance (``hist = []`` in the class body),
  appended to through ``self.hist``;
- a generator expression bound to a name and read twice (empty the second time) or
  after what it reads was rebound (it runs when read);
- a dict's ``values()`` view bound to a name, then the dict written into;
- lists appended to under a name bound to an item of a container or a loop's variable,
  or stored in another container before the append (or before the next trip's); a
  ``collections.deque`` (its ``maxlen`` drops items); a class attribute assigned inside
  the code.

Each is refused, naming the line; the same code read once, right away, is taken and
checked in every form.
"""
import numpy as np
import pytest

import srcgrad as sg
from tape_forms import assert_every_form

X = np.array([0.3, -0.7, 1.1])


def appended_through_a_chain(x):
    store = []
    other = store
    alias = other
    alias.append(x[0] * 3.0)
    return sum(store) * x[1]


class Recorder:
    def __init__(self, store):
        self.store = store

    def add(self, v):
        self.store.append(v)


def appended_through_an_object(x):
    store = []
    r = Recorder(store)
    r.add(x[0] * 2.0)
    r.add(x[1] ** 2)
    return sum(store) * x[2]


class Shared:
    hist = []

    def __init__(self, k):
        self.k = k

    def add(self, v):
        self.hist.append(v * self.k)


def appended_to_a_class_list(x):
    a = Shared(1.0)
    a.add(x[0])
    return sum(a.hist) * x[2]


def generator_read_twice(x):
    g = (v ** 2 for v in x)
    a = sum(g)
    b = sum(g)
    return a + 10.0 * b


def generator_read_late(x):
    y = x * 1.0
    g = (y[i] * 2.0 for i in range(3))
    y = y ** 2
    return sum(g)


def view_read_after_a_store(x):
    d = {"a": x[0], "b": x[1]}
    vals = d.values()
    d["a"] = x[2] * 5.0
    return sum(vals)


def appended_to_an_item(x):
    outer = [[x[0]], [x[1]]]
    inner = outer[0]
    inner.append(x[2] ** 2)
    return sum(outer[0]) + sum(outer[1])


def appended_to_a_loop_variable(x):
    outer = [[x[0]], [x[1]]]
    for row in outer:
        row.append(x[2])
    return sum(outer[0]) + sum(outer[1])


def _add_to(lst, v):
    lst.append(v)


def appended_by_a_helper_to_a_dict_item(x):
    d = {"a": []}
    _add_to(d["a"], x[2] * 3.0)
    _add_to(d["a"], x[0])
    return sum(d["a"])


def popped_from_an_item(x):
    outer = [[x[0], x[1]], [x[2]]]
    inner = outer[0]
    inner.pop()
    return sum(outer[0]) + outer[1][0]


def appended_after_being_stored(x):
    outer = []
    row = []
    outer.append(row)
    row.append(x[0] * 2.0)
    return sum(outer[0]) + x[1]


def appended_on_the_next_trip(x):
    rows = []
    row = []
    for i in range(3):
        row.append(x[i] * 2.0)
        rows.append(row)
    return sum(rows[0]) + x[0]


def rolling_window(x):
    import collections
    win = collections.deque(maxlen=2)
    s = 0.0
    for v in x:
        win.append(v * 2.0)
        s = s + sum(win)
    return s


class Scaled:
    k = 2.0

    def __init__(self, w):
        self.w = w

    def value(self):
        return self.w * self.k


def class_attribute_set_inside(x):
    Scaled.k = 7.0
    return Scaled(x[0]).value()


REFUSED = [
    (appended_through_a_chain, "appending a differentiable value to `alias`"),
    (appended_through_an_object, "appending a differentiable value to `r.store`"),
    (appended_to_a_class_list, "the class holds for every instance"),
    (generator_read_twice, "`g` holds a generator"),
    (generator_read_late, "`g` holds a generator"),
    (view_read_after_a_store, "`vals` holds the dict view"),
    (appended_to_an_item, "appending a differentiable value to `inner`, a list also held"),
    (appended_to_a_loop_variable, "appending a differentiable value to `row`"),
    (appended_by_a_helper_to_a_dict_item, "appending a differentiable value to `lst`"),
    (popped_from_an_item, "popping a differentiable value from `inner`"),
    (appended_after_being_stored, "appending a differentiable value to `row`"),
    (class_attribute_set_inside, "assigning `Scaled.k`, an attribute of a class"),
    (rolling_window, "appending a differentiable value to `win`, a collections.deque"),
    (appended_on_the_next_trip, "appending a differentiable value to `row`"),
]


@pytest.mark.parametrize("f, message", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_refused(f, message):
    with pytest.raises(sg.CompileError, match=message):
        sg.grad(f)(X.copy())
    with pytest.raises(sg.CompileError, match=message):
        sg.jvp(f, (X.copy(),), (np.ones(3),))


def generator_read_right_away(x):
    g = (v ** 2 for v in x)
    total = sum(g)
    vals = {"a": x[0], "b": total}.values()
    return sum(vals) * x[1]


def appended_under_one_name(x):
    store = []
    store.append(x[0] * 2.0)
    kept = store
    return sum(kept) * x[2]


class OwnList:
    def __init__(self):
        self.hist = []

    def add(self, v):
        self.hist.append(v)


def appended_to_an_own_list(x):
    o = OwnList()
    o.add(x[0] * x[1])
    o.add(np.sin(x[2]))
    return sum(o.hist)


@pytest.mark.parametrize("f", [generator_read_right_away, appended_under_one_name,
                               appended_to_an_own_list])
def test_taken_where_exact(f):
    assert_every_form(f, X.copy())


def rows_appended_then_stored(x):
    rows = []
    for i in range(2):
        row = []
        for j in range(3):
            row.append(x[j] * (i + 1))
        rows.append(row)
    return np.sum(np.array(rows) ** 2)


def _doubled(x):
    out = []
    for v in x:
        out.append(v * 2.0)
    return out


def a_helpers_list_appended_to(x):
    ys = _doubled(x)
    ys.append(x[0] ** 3)
    return sum(ys)


@pytest.mark.parametrize("f", [rows_appended_then_stored, a_helpers_list_appended_to])
def test_lists_made_under_one_name_are_taken(f):
    assert_every_form(f, X.copy())


def scaled_value(x):
    return Scaled(x[0]).value() + x[1]


def test_a_class_attribute_changed_between_calls_is_read_again():
    """(A float compiled in as a constant, with a guard on its type only: the second
    call reused the code made for ``k = 2.0``.)"""
    import srcgrad as sg
    grad = sg.value_and_grad(scaled_value)
    try:
        for k in (2.0, 5.0, 1.0):
            Scaled.k = k
            value, g = grad(X.copy())
            assert value == pytest.approx(k * X[0] + X[1], rel=1e-12)
            np.testing.assert_allclose(g, [k, 1.0, 0.0], rtol=1e-12)
    finally:
        Scaled.k = 2.0
