"""Fast paths against the answers they replace: names of flat functions (beniget), source lines (inspect)."""
import pathlib

import gast
import numpy as np
import pytest

from srcgrad.ir import scopes

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


def _identity(f):
    return f


@_identity
def _decorated(x):
    return x


def _same_block(fast, slow):
    """``fast`` is ``slow`` but for trailing lines that compile to nothing."""
    (lines, start), (want, want_start) = fast, slow
    rest = want[len(lines):]
    return start == want_start and lines == want[:len(lines)] \
        and all(not line.strip() or line.strip().startswith("#") for line in rest)


def test_source_lines_are_inspects():
    """``source._source_lines`` (no scan of ``sys.modules``, no tokenizer) finds what ``inspect`` finds."""
    import importlib
    import inspect
    import pkgutil

    import golden_functions
    import srcgrad
    from srcgrad.compiler import source

    def decorated_here(x):
        return x

    compared = 0
    modules = [golden_functions] + [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(srcgrad.__path__, "srcgrad.") if info.name != "srcgrad.__main__"]
    for module in modules:
        for name, fn in sorted(vars(module).items()):
            if inspect.isfunction(fn) and fn.__module__ == module.__name__ and fn.__name__ != "<lambda>":
                # (Of the code that runs: a functools.wraps wrapper's own, where inspect
                # follows __wrapped__ to the function it wraps.)
                assert _same_block(source._source_lines(fn), inspect.getsourcelines(fn.__code__)), name
                compared += 1
    for fn in (decorated_here, _decorated, _ends_in_a_comment, pytest.mark.skip.__call__):
        assert _same_block(source._source_lines(fn), inspect.getsourcelines(fn)), fn
    assert source._source_lines(_decorated)[0][0].startswith("@_identity")
    assert source._source_lines(_ends_in_a_comment)[0][-1].strip() == ")"
    assert compared > 50


def _ends_in_a_comment(x):
    return np.sum(
        x
    )
    # a trailing comment


def test_a_block_that_does_not_parse_is_read_again_by_inspect(monkeypatch):
    from srcgrad.compiler import source

    lines, start = source._source_lines(_decorated)
    monkeypatch.setattr(source, "_source_lines", lambda fn: (lines[:2], start))  # cut after `def`
    assert source.parse_function(_decorated).node.name == "_decorated"
