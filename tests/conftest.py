"""Feed the function corpus (``tests/corpus``) to tests by parameter name.

Any test with a parameter named ``corpus_func`` runs once per corpus function,
with the function's name as the test id. Two markers narrow that:

- ``@pytest.mark.corpus_select("attr")``: only functions whose ``attr`` is set
  (e.g. ``float32_safe``);
- ``@pytest.mark.corpus_exclude("attr")``: functions whose ``attr`` is set
  (e.g. ``no_second_order``, holding the reason) still appear, as skips that
  carry the reason, so an exclusion is always visible in the report.
"""
import importlib
import importlib.util

import pytest

from corpus import FUNCTIONS
from srcgrad.rules import optional

# Importing srcgrad imports no SciPy: SciPy's entries join the rule tables when a program
# has imported the SciPy module they key on (rules/optional.py). The tests that read the
# tables check every entry, so every such module is imported and its entries added here,
# before a test module reads a table (test_optional_scipy.py checks the lazy path itself,
# in fresh interpreters).
if importlib.util.find_spec("scipy") is not None:
    for _name in optional.modules():
        importlib.import_module(_name)
    optional.ensure()


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "corpus_select(attr): run only corpus functions that have the attribute set")
    config.addinivalue_line(
        "markers", "corpus_exclude(attr): skip, with the attribute's reason, corpus functions "
                   "that have the attribute set")


def _corpus_params(select, exclude):
    params = []
    for func in FUNCTIONS:
        if not all(getattr(func, attr, False) for attr in select):
            continue
        marks = [
            pytest.mark.skip(reason=f"{func.__name__} excluded by {attr}: {getattr(func, attr)}")
            for attr in exclude if getattr(func, attr, False)
        ]
        params.append(pytest.param(func, id=func.__name__, marks=marks))
    return params


def pytest_generate_tests(metafunc):
    if "corpus_func" not in metafunc.fixturenames:
        return
    select = [attr for m in metafunc.definition.iter_markers("corpus_select") for attr in m.args]
    exclude = [attr for m in metafunc.definition.iter_markers("corpus_exclude") for attr in m.args]
    metafunc.parametrize("corpus_func", _corpus_params(select, exclude))


def check_to_second_order(f, args, wrt=None, *, eps=1e-6, rtol=1e-5, atol=1e-7, seed=0):
    """``check_grads(f, args, order=2, wrt=wrt)``: it compiles each gradient's gradient
    once for every argument of ``wrt`` together (the compiles are most of the time)."""
    from srcgrad import testing

    testing.check_grads(f, args, order=2, wrt=wrt, eps=eps, rtol=rtol, atol=atol, seed=seed)


@pytest.fixture
def check_second_order():
    """``check_to_second_order``: check_grads(order=2)'s checks, one compile per gradient."""
    return check_to_second_order
