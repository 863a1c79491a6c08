"""``scopes``: the one-walk answer for flat functions is beniget's answer."""
import pathlib

import gast
import pytest

from srcgrad.transforms import scopes

ROOT = pathlib.Path(__file__).resolve().parent.parent

TRICKY = '''
import functools
@functools.wraps(print)
def decorated(a, b=default, *args, c: int = other, **kw) -> result:
    x = a + b
    del x
    (y := len(args))
    for i, j in zip(a, b):
        total = total + i
    return decorated(y) + sum(kw) + glob

@prop.setter
def prop(self, value):
    self.value = value

def reads_before_binding(x):
    if x:
        z = 1
    return z + w

def nested(x):
    def inner(y):
        return x + y
    return [inner(v) for v in x]
'''


def _functions(text):
    return [n for n in gast.walk(gast.parse(text)) if isinstance(n, gast.FunctionDef)]


def _beniget(fn):
    chains = scopes._chains(fn)
    return {d.name() for d in chains.locals[fn]}, chains.unbound


def _repository_functions():
    for path in sorted(ROOT.glob("srcgrad/**/*.py")) + sorted(ROOT.glob("examples/*.py")):
        yield from _functions(path.read_text())


@pytest.mark.parametrize("fn", _functions(TRICKY), ids=lambda fn: fn.name)
def test_flat_functions_get_benigets_names(fn):
    flat = scopes._flat_names(fn)
    if fn.name == "nested":
        assert flat is None  # nested scopes: beniget's chains
    else:
        assert flat == _beniget(fn)
    assert scopes.names(fn) == _beniget(fn)
    assert scopes.function_locals(fn) == _beniget(fn)[0]


def test_every_flat_function_of_the_package_gets_benigets_names():
    compared = 0
    for fn in _repository_functions():
        flat = scopes._flat_names(fn)
        if flat is not None:
            assert flat == _beniget(fn), fn.name
            compared += 1
    assert compared > 300
