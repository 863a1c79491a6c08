"""Feed the function corpus (``tests/corpus``) to tests by parameter name.

Any test with a parameter named ``corpus_func`` runs once per corpus function,
with the function's name as the test id. Two markers narrow that:

- ``@pytest.mark.corpus_select("attr")``: only functions whose ``attr`` is set
  (e.g. ``float32_safe``);
- ``@pytest.mark.corpus_exclude("attr")``: functions whose ``attr`` is set
  (e.g. ``no_second_order``, holding the reason) still appear, as skips that
  carry the reason, so an exclusion is always visible in the report.
"""
import pytest

from corpus import FUNCTIONS


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
    """The checks of ``check_grads(f, args, order=2, wrt=wrt)``, with each gradient's
    gradient compiled once for every argument of ``wrt`` together.

    ``check_grads`` checks the gradient ``g_i`` of each argument ``i``, then the gradient
    of ``h_i = sum(g_i * u_i)`` with respect to each argument ``j`` in turn: one compile
    of second-order code per pair ``(i, j)``, and those compiles are most of the test
    time. Here ``grad(h_i, wrt=<all of wrt>)`` is compiled once per ``i`` and each of its
    gradients is checked as ``check_grads`` checks one (shape, dtype, and a central
    difference along a random direction, with the same ``eps``, ``rtol`` and ``atol``).
    With a single argument, or a parameter tree or record among the arguments, it is
    ``check_grads(order=2)`` itself.
    """
    import numpy as np

    from srcgrad import grad, testing
    from srcgrad.errors import CompileError

    args = tuple(args)
    if wrt is None:
        wrt = [i for i, a in enumerate(args) if testing._is_float(a) or testing._is_float_tree(a)]
    elif isinstance(wrt, (int, np.integer)):
        wrt = [int(wrt)]
    else:
        wrt = [int(i) for i in wrt]
    tolerance = dict(eps=eps, rtol=rtol, atol=atol, seed=seed)
    if len(wrt) < 2 or not all(testing._is_float(args[i]) for i in wrt) \
            or any(testing._has_record(a) for a in args):
        testing.check_grads(f, args, order=2, wrt=wrt, **tolerance)
        return
    testing.check_grads(f, args, order=1, wrt=wrt, **tolerance)
    rng = np.random.default_rng(seed + 1)
    for i in wrt:
        gf = grad(f, wrt=i)
        u = testing._direction(rng, args[i])
        if np.iscomplexobj(u):
            def h(*a):  # the real inner product of C as R^2, as check_grads takes it
                return np.real(np.sum(gf(*a) * np.conj(u)))
        else:
            def h(*a):
                return np.sum(gf(*a) * u)
        try:
            grads = grad(h, wrt=tuple(wrt))(*testing._copies(args))
        except CompileError:
            # Refused with respect to several arguments at once, where each alone compiles
            # (a loop index over one of them looks differentiable): each pair, as check_grads.
            testing.check_grads(f, args, order=2, wrt=wrt, **tolerance)
            return
        assert len(grads) == len(wrt), grads
        for j, g in zip(wrt, grads):
            where = f"gradient of d({testing._name(f)})/d(arg {i}) with respect to argument {j}"
            assert g is not None, f"{where} is None"
            testing._check_like(g, args[j], where)
            v = [testing._direction(rng, args[j])]
            analytic = float(np.real(np.sum(
                np.conj(np.asarray(g, dtype=np.result_type(g, 1.0))) * v[0])))
            numeric = testing._directional_difference(h, args, j, v, eps)
            assert abs(analytic - numeric) <= atol + rtol * abs(numeric), (
                f"{where} is wrong: along a random direction the analytic derivative is "
                f"{analytic!r}, the numeric (central difference) one {numeric!r}")


@pytest.fixture
def check_second_order():
    """``check_to_second_order``: check_grads(order=2)'s checks, one compile per gradient."""
    return check_to_second_order
