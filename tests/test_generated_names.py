"""The names the generated code relies on are never the user's.

Generated code reaches srcgrad's runtime as ``_sg``, the builtins by their names
(``range(len(x))`` for ``for v in x``, ``reversed`` in the backward loops, ``locals()``
in a tape's code) and NumPy as ``np`` (the user's, where it is NumPy) or ``_np``. A user
variable of one of those names (a local ``_sg``, ``len`` or ``reversed``; a module
``import numpy as onp`` or ``np = 4`` "number of points"; a module global ``_sg`` or
``len``; a closure's ``_sg``) keeps its own value, and the generated code still reaches
srcgrad's objects (hunt4 bug_14, bug_15, bug_16).
"""
import importlib.util
import textwrap

import numpy as np
import pytest

import srcgrad as sg
from srcgrad.api import adjoint_source
from srcgrad.forward import tangent_source
from srcgrad.testing import check_grads

X = np.array([0.3, -0.8, 1.2])
D = np.array([1.0, 0.5, -0.2])


def _central(f, x, d, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    return (f(x + eps * d) - f(x - eps * d)) / (2 * eps)


def _check_every_form(f, x=X, d=D, order=2):
    """grad (to second order), value_and_grad, jvp and hvp against central differences."""
    check_grads(f, (x,), order=order)
    value, g = sg.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    np.testing.assert_allclose(g, sg.grad(f)(x), rtol=1e-12)
    value, tangent = sg.jvp(f, (x,), (d,))
    assert value == pytest.approx(f(x), rel=1e-12)
    assert tangent == pytest.approx(_central(f, x, d), rel=1e-6, abs=1e-8)
    np.testing.assert_allclose(sg.hvp(f)(x, d), _central(sg.grad(f), x, d),
                               rtol=1e-5, atol=1e-6)


# -- the runtime alias `_sg` ------------------------------------------------------------

def sg_local(x):
    _sg = 3.0  # e.g. a "private" scale, or a name from a code generator
    return np.sum((x * _sg) ** 2) + np.prod(x[:2])


def sg_local_in_loop(x):
    _sg = 0.5
    acc = 0.0
    for v in x:
        acc = acc + np.sin(v) * _sg
    return acc * acc


def sg_parameter(x, _sg=2.0):
    return np.sum(np.tanh(x * _sg) ** 2)


def _closure_over_sg():
    _sg = 2.5

    def f(x):
        return np.sum(np.sin(x) * _sg) + np.prod(x[:2])
    return f


sg_closure = _closure_over_sg()


@pytest.mark.parametrize("f", [sg_local, sg_local_in_loop, sg_parameter, sg_closure],
                         ids=lambda f: f.__name__)
def test_a_user_variable_named_sg(f):
    _check_every_form(f)


def test_the_user_sg_keeps_its_name_and_the_runtime_is_renamed():
    text = adjoint_source(sg_local, args=(X,))
    assert "_sg = 3.0" in text and "_srcgrad." in text
    assert "_sg." not in text.replace("_srcgrad.", "")
    forward = tangent_source(sg_local, args=(X,))
    assert "_sg = 3.0" in forward and "_sg." not in forward.replace("_srcgrad.", "")


def test_without_a_collision_the_generated_text_is_unchanged():
    def plain(x):
        return np.sum((x * 3.0) ** 2)
    text = adjoint_source(plain, args=(X,))
    assert "_srcgrad" not in text and "_sg." in text


def test_a_tape_block_reading_a_local_sg():
    def run(x):
        _sg = 3.0
        w = sg.Variable(x)
        with sg.GradientTape() as tape:
            acc = 0.0
            for v in w:
                acc = acc + v ** 2 * _sg
            y = acc + np.sum(np.sin(w))
        return tape.gradient(y, w)
    np.testing.assert_allclose(run(X), 6.0 * X + np.cos(X), rtol=1e-10)


# -- builtins the generated loops call --------------------------------------------------

def len_local(x):
    acc = 0.0
    for v in x:  # generated: range(len(x))
        acc = acc + v ** 2
    len = 2.0  # e.g. a physical length
    return acc * len


def reversed_local(x):
    h = np.tanh(x)
    for i in range(2):  # the backward loop runs reversed(...)
        h = h * 0.5 + np.sin(h)
    reversed = 2.0  # e.g. a flag or a score
    return np.sum(h) * reversed


def many_builtins_local(x):
    zip = 2.0
    enumerate = 0.5
    isinstance = 1.25
    locals = 2.0
    type = 0.75
    reversed = 1.1
    len = 0.9
    acc = 0.0
    for v in x:
        acc = acc + np.sin(v) * v
    h = x
    for k in (0, 1):
        h = np.cos(h) * 0.5
    return (acc + np.sum(h)) * zip * enumerate * isinstance * locals * type * reversed * len


def range_local(x):
    acc = 0.0
    for v in x:  # generated: range(len(x)); backward: reversed(...)
        acc = acc + np.sin(v) * v
    range = 1.5
    return acc * range


def len_parameter(x, len=2.0):
    acc = 0.0
    for v in x:
        acc = acc + v ** 3
    return acc * len


@pytest.mark.parametrize("f", [len_local, reversed_local, many_builtins_local, range_local,
                               len_parameter],
                         ids=lambda f: f.__name__)
def test_a_local_named_as_a_builtin_the_generated_code_calls(f):
    _check_every_form(f)


def test_a_local_len_leaves_the_users_name_and_aliases_the_builtin():
    text = adjoint_source(len_local, args=(X,))
    assert "len = 2.0" in text and "range(_builtin_len(x))" in text


# -- module globals: numpy under another name, `np` a number, `_sg` and `len` globals ----

_MODULES = {
    "onp_module": """
        import numpy as onp            # the module never binds the name `np`

        def f(x):
            return onp.sum(onp.sin(x) ** 2) + onp.prod(x[:2]) + onp.sum(onp.cos(x) * x)
        """,
    "np_count_module": """
        import numpy
        np = 4                          # "number of points": a module global named np

        def f(x):
            y = numpy.tanh(x) * np
            return numpy.sum(numpy.sin(y) ** 2) + numpy.prod(x[:2]) + numpy.max(x * y)
        """,
    "globals_module": """
        import numpy as np
        _sg = 3.0                       # module globals named as srcgrad's own names
        len = 7

        def f(x):
            acc = 0.0
            for v in x:
                acc = acc + np.sin(v) * v
            return acc * _sg + np.prod(x[:2]) * len
        """,
}


@pytest.fixture(params=sorted(_MODULES))
def module_f(request, tmp_path):
    path = tmp_path / f"{request.param}.py"
    path.write_text(textwrap.dedent(_MODULES[request.param]))
    spec = importlib.util.spec_from_file_location(request.param, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def test_module_globals_named_as_the_generated_codes_names(module_f):
    _check_every_form(module_f)


def test_forward_mode_reaches_numpy_through_srcgrads_name(module_f):
    # (The tangents of reductions, np.prod's here, are weighted sums the compiler writes.)
    text = tangent_source(module_f, args=(X,))
    if "np = 4" in open(module_f.__code__.co_filename).read() or "onp" in text:
        assert " np." not in text and "(np." not in text


def local_np(x):
    np = 4  # a local named np; NumPy is `numpy` here
    return numpy.sum(numpy.sin(x) ** 2) * np + numpy.prod(x[:2])


import numpy  # noqa: E402  (for local_np)


def test_a_local_named_np():
    _check_every_form(local_np)
