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
