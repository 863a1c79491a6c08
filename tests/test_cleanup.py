"""Copies dropped from loops of generated code (``cleanup._Copies``), on code written out."""
import textwrap

import gast
import pytest

from srcgrad.transforms.cleanup import _Copies


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

import numpy as np  # noqa: E402

import srcgrad as sg  # noqa: E402
from srcgrad import runtime  # noqa: E402
from srcgrad.testing import check_grads  # noqa: E402


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


def test_hessian_through_gathered_adjoints():
    # tape.jacobian differentiates the gradient code again, all rows at once.
    p, y = np.array([0.3, -1.2, 0.7]), np.array([0.9, 0.4])
    with sg.GradientTape() as outer:
        outer.watch(p)
        with sg.GradientTape() as inner:
            inner.watch(p)
            f = unpacked(p, y)
        g = inner.gradient(f, p)
    hessian = outer.jacobian(g, p)
    eps = 1e-6
    numeric = np.stack([(sg.grad(unpacked)(p + eps * e, y) - sg.grad(unpacked)(p - eps * e, y))
                        / (2 * eps) for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(hessian, numeric, atol=1e-7)


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
    from srcgrad.transforms.cleanup import _gathered

    _gathered(body)
    assert gast.unparse(gast.Module(body, [])).strip() == code
