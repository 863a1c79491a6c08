"""Peepholes on generated code: copies dropped from loops (``cleanup._Copies``), the
adjoint of an unpacked vector gathered into one array (``cleanup._gathered``), two
adds into one item merged (``cleanup._merged_item_adds``) and constant adjoints
folded into loops (``cleanup._constant_adjoints``)."""
import textwrap

import gast
import numpy as np
import pytest

import srcgrad as sg
from srcgrad import runtime
from srcgrad.testing import check_grads
from srcgrad.passes.cleanup import _constant_adjoints, _Copies, _gathered, _merged_item_adds


def _clean(code, live_after=()):
    body = gast.parse(textwrap.dedent(code)).body
    _Copies(body, set(live_after)).block(body)
    return gast.unparse(gast.Module(body, [])).strip()


@pytest.mark.parametrize("code, want", [
    # read further down, before its source changes: replaced by the source
    ("for i in r:\n    t = s\n    u = t * 2.0\n    v = u + t",
     "for i in r:\n    u = s * 2.0\n    v = u + s"),
    # copied back (the adjoint of ``s = s + x``): both copies go
    ("for i in r:\n    t = s\n    s = t\n    u = t * 2.0",
     "for i in r:\n    u = s * 2.0"),
    # the source changes in between: kept
    ("for i in r:\n    t = s\n    s = s * 2.0\n    u = t + 1.0", None),
    # read in a nested block, or in the next iteration first: kept
    ("for i in r:\n    t = s\n    if c:\n        u = t", None),
    ("for i in r:\n    u = t\n    t = s", None),
    # bound twice, or read after the code: kept
    ("for i in r:\n    t = s\n    u = t\nt = 1.0", None),
    ("for i in r:\n    t = s\n    u = t", "live:t"),
    # outside loops copies stay: they give values their users' names
    ("t = s\nu = t", None),
])
def test_copies(code, want):
    live = ("t",) if want == "live:t" else ()
    expected = textwrap.dedent(code).strip() if want in (None, "live:t") else want
    assert _clean(code, live) == expected


def test_a_source_rebound_in_a_nested_block_keeps_the_copy():
    code = "for i in r:\n    t = s\n    for j in q:\n        s = s * 2.0\n    u = t + 1.0"
    assert _clean(code) == code


# The adjoint of unpacking a vector, gathered into one array (``cleanup._gathered``).


def unpacked(p, y):
    a, b, c = p[0], p[1], p[2]
    u, v = y[0], y[1]
    return a * b * u * u + np.sin(b * v) + c * c * u * v


def test_unpacking_a_vector_gathers_its_adjoint():
    p, y = np.array([0.3, -1.2, 0.7]), np.array([0.9, 0.4])
    check_grads(unpacked, (p, y), order=2)
    text = sg.grad(unpacked, wrt=(0, 1)).__srcgrad_compiled__.entry((p, y)).text
    assert "_sg.gather_items(p, [" in text and "_sg.gather_items(y, [" in text
    assert "add_at_zeros" not in text


def gathered(p):
    a, b = p[0] * p[1], np.sin(p[2])
    return runtime.gather_items(p, [a * b, b * b, a])  # as generated code calls it


def test_gather_items_differentiated_again_and_by_rows():
    # Its rule (higher order) and the rule's row form (tape.jacobian) against differences.
    p = np.array([0.3, -1.2, 0.7])
    check_grads(lambda q: np.sum(gathered(q) ** 2), (p,), order=2)
    with sg.GradientTape() as tape:
        tape.watch(p)
        y = gathered(p)
    jacobian = tape.jacobian(y, p)
    eps = 1e-6
    numeric = np.stack([(gathered(p + eps * e) - gathered(p - eps * e)) / (2 * eps)
                        for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(jacobian, numeric, atol=1e-7)


@pytest.mark.parametrize("like, items", [
    (np.ones(3), [np.float64(1.0), 2.0, np.float64(3.0)]),   # the fast path
    (np.ones(5), [1.0, 2.0]),                                # longer: zeros after
    (np.ones(3, np.float32), [np.float64(1.0), 2.0, 3.0]),   # float32 zeros, float64 items
    (np.ones(2), [1.0, 2]),                                  # an int item
    (np.ones(2), [1.0, 2j]),                                 # a complex item
    (np.ones((2, 3)), [np.ones(3), np.arange(3.0)]),         # rows of a matrix
])
def test_gather_items_is_items_added_into_zeros(like, items):
    want = runtime.zeros_like(like)
    want = runtime.add_at(want, 0, items[0])
    for i in range(1, len(items)):
        want = runtime.add_at(want, i, items[i])
    got = runtime.gather_items(like, items)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_gathering_needs_every_index_from_zero():
    code = "d = _sg.add_at_zeros(p, 2, c)\nd[0] += a"  # index 1 missing: kept as it is
    body = gast.parse(code).body
    _gathered(body)
    assert gast.unparse(gast.Module(body, [])).strip() == code


def _merged(code):
    body = gast.parse(textwrap.dedent(code)).body
    _merged_item_adds(body)
    return gast.unparse(gast.Module(body, [])).strip()


@pytest.mark.parametrize("code, want", [
    # nothing between touches d, i or a: one read and write of the item
    ("d[i] += a\nb = c * 2.0\nd[i] += b", "b = c * 2.0\nd[i] += a + b"),
    ("for i in r:\n    d[i, 0] += a\n    d[i, 0] += b", "for i in r:\n    d[i, 0] += a + b"),
    # another item in between: kept apart (d[j] may be d[i])
    ("d[i] += a\nd[j] += c\nd[i] += b", None),
    # d read, i or a rebound, or a block in between: kept apart
    ("d[i] += a\nb = d[0]\nd[i] += b", None),
    ("d[i] += a\ni = i + 1\nd[i] += b", None),
    ("d[i] += a\na = 2.0\nd[i] += b", None),
    ("d[i] += a\na[0] += 2.0\nd[i] += b", None),
    ("d[i] += a\nif c:\n    b = 1.0\nd[i] += b", None),
    # other indices, or not an add: kept
    ("d[i] += a\nd[k] += b", None),
    ("d[i] -= a\nd[i] += b", None),
])
def test_merged_item_adds(code, want):
    assert _merged(code) == (want if want is not None else _merged_nothing(code))


def _merged_nothing(code):
    return gast.unparse(gast.Module(gast.parse(code).body, [])).strip()


def _constants(code, adjoints):
    body = gast.parse(textwrap.dedent(code)).body
    _constant_adjoints(body, set(adjoints))
    return gast.unparse(gast.Module(body, [])).strip()


def test_constant_adjoints_are_folded_into_loops_only():
    code = "ds = 1.0\nu = ds * y\nfor i in r:\n    v = ds * 2.0"
    assert _constants(code, ["ds"]) == "ds = 1.0\nu = ds * y\nfor i in r:\n    v = 1.0 * 2.0"
    # bound twice, or not an adjoint: left alone
    twice = "ds = 1.0\nfor i in r:\n    v = ds * 2.0\n    ds = v"
    assert _constants(twice, ["ds"]) == _merged_nothing(twice)
    assert _constants(code, ["v"]) == _merged_nothing(code)


def running_sum(x):
    s = 0.0
    for i in range(len(x) - 1):
        s = s + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return s


def test_a_scalar_loop_adds_each_item_once_and_folds_its_seed():
    x = np.linspace(-1.0, 1.5, 7)
    g = sg.grad(running_sum)
    g(x)
    text = g.__srcgrad_compiled__.entry((x,)).text
    loop = text[text.index("for i in reversed"):]
    assert loop.count("dx[i] +=") == 1 and "ds *" not in loop and "200.0 * " in loop, text
    check_grads(running_sum, (x,))


def unpack_in_loop(y, p):
    for _ in range(3):
        a, b = p[0], p[1]
        y = y * a + b
    return np.sum(y)


def test_copies_leave_forward_loops_too():
    """``a, b = p[0], p[1]`` in a loop: the items are read where ``a`` and ``b`` were."""
    y, p = np.array([0.5, 1.5]), np.array([0.9, 0.2])
    g = sg.grad(unpack_in_loop, wrt=(0, 1))
    g(y, p)
    text = g.__srcgrad_compiled__.entry((y, p)).text
    forward = text[:text.index("dresult = 1.0")]
    assert "    a = " not in forward and "    b = " not in forward, text
    check_grads(unpack_in_loop, (y, p), wrt=(0, 1))


def test_a_tape_block_run_once_keeps_the_copies_its_user_reads():
    """``previous = y`` in a loop of a block the tape runs once: the user reads
    ``previous`` after the block, so the copy stays (it is free: no array is copied)."""
    y0 = np.array([0.5, 1.5])
    with sg.GradientTape() as tape:
        tape.watch(y0)
        y = y0
        for _ in range(3):
            previous = y
            y = previous * 2.0 + 1.0
        loss = np.sum(y)
    np.testing.assert_allclose(previous, (y0 * 2.0 + 1.0) * 2.0 + 1.0)
    np.testing.assert_allclose(tape.gradient(loss, y0), [8.0, 8.0])
