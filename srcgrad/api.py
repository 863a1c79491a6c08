"""The functional API: ``grad``, ``value_and_grad``, ``adjoint_source``, ``function``."""
import functools
import inspect
import types

import numpy as np

from .compiler.cache import Compiled
from .compiler.numba_backend import NumbaCompiled
from .compiler.pipeline import check_function
from .tape.inplace import compile_in_place
from .tape.tape import run_in_place


def _unwrap(f):
    while getattr(f, "__srcgrad_function__", False):
        f = f.__wrapped__
    return f


def _python_function(f, api):
    """``f`` as a Python function or bound method whose source srcgrad can read.

    A callable object stands for its ``__call__``; anything without Python
    source (a builtin, a ufunc, a class) is a ``TypeError`` with a remedy.
    """
    f = _unwrap(f)
    if inspect.isfunction(f) or inspect.ismethod(f) and inspect.isfunction(f.__func__):
        return f
    call = getattr(type(f), "__call__", None)
    if not isinstance(f, type) and inspect.isfunction(call):
        return f.__call__
    name = getattr(f, "__name__", type(f).__name__)
    module = {"numpy": "np", "builtins": None}.get(getattr(f, "__module__", None),
                                                  getattr(f, "__module__", None))
    name = f"{module}.{name}" if module and not isinstance(f, type) else name
    kind = "a NumPy ufunc" if isinstance(f, np.ufunc) else "a class" if isinstance(f, type) \
        else "a builtin function" if inspect.isbuiltin(f) else f"a {type(f).__name__}"
    raise TypeError(
        f"srcgrad.{api} differentiates Python functions, and `{name}` is {kind}; "
        f"wrap it in one: srcgrad.{api}(lambda x: {name}(x))")


def _make(f, wrt, mode, preserve_result=False, backend=None):
    if backend not in _BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, _BACKENDS))}, "
                         f"not {backend!r}")
    if isinstance(f, functools.partial):
        return _partial(f, wrt, mode, preserve_result, backend)
    f = _python_function(f, "grad" if mode == "grad" else "value_and_grad")
    if backend == "numba":
        _check_indices(f, wrt)
        compiled = NumbaCompiled(f, wrt, mode)
    else:
        compiled = Compiled.of(f, wrt, mode)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        out = compiled(args, kwargs)  # (compiled holds f weakly: this closure keeps it)
        if preserve_result:
            value, grads = out
            return grads, value
        return out

    # Lets the compiler differentiate this gradient again (higher order; Numba's
    # refuses, naming it).
    wrapper.__srcgrad_generated__ = compiled.generic
    wrapper.__srcgrad_compiled__ = compiled
    wrapper.__srcgrad_target__ = f
    del wrapper.__wrapped__  # inspect must not mistake f's source for ours
    wrapper.__signature__ = inspect.signature(f)
    return wrapper


def _partial(p, wrt, mode, preserve_result, backend):
    """``functools.partial(f, *args, **keywords)``: the gradient of ``f`` with the
    bound arguments passed first, so positions in ``wrt`` count after them."""
    shift = len(p.args)

    def shifted(i):  # (a negative index counts from the end either way)
        return i + shift if isinstance(i, int) and i >= 0 else i

    wrt = type(wrt)(map(shifted, wrt)) if isinstance(wrt, (list, tuple)) else shifted(wrt)
    return functools.partial(_make(p.func, wrt, mode, preserve_result, backend), *p.args,
                             **p.keywords)


_BACKENDS = (None, "numpy", "numba")


def grad(f, wrt=0, *, preserve_result=False, backend=None):
    """The gradient of scalar-valued ``f`` with respect to argument(s) ``wrt``.

    ``wrt`` is an index or parameter name, or a tuple/list of them (then the
    gradient is a tuple). With ``preserve_result=True`` the function returns
    ``(gradient, value)``. ``backend="numba"`` compiles the generated code with
    Numba (``pip install 'srcgrad[numba]'``); code Numba cannot type is refused
    with a ``CompileError`` naming the line.
    """
    return _make(f, wrt, "value_and_grad" if preserve_result else "grad", preserve_result,
                 backend)


def value_and_grad(f, wrt=0, *, backend=None):
    """Like ``grad`` but returns ``(value, gradient)``."""
    return _make(f, wrt, "value_and_grad", backend=backend)


def adjoint_source(f, wrt=0, args=None):
    """The generated gradient code of ``f``, as ``srcgrad show`` prints it: for arguments
    of any kind, or specialised as a call with example ``args`` runs it (ranks known:
    the matrix products' own adjoints, no unbroadcasting between scalars)."""
    f = _python_function(f, "adjoint_source")
    _check_indices(f, wrt)
    compiled = Compiled.of(f, wrt, "grad")
    return compiled.generic_text() if args is None else compiled.specialised(args).text


def _check_indices(f, wrt):
    """Without a call to count the arguments, ``wrt`` indices count ``f``'s parameters."""
    params = inspect.signature(f).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    count = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    for i in wrt if isinstance(wrt, (list, tuple)) else [wrt]:
        if isinstance(i, int) and not isinstance(i, bool) and not -count <= i < count:
            raise TypeError(f"wrt index {i} is out of range: {f.__qualname__}() has {count} "
                            "positional parameters")


def function(f):
    """Compile ``f`` with srcgrad.

    The code is checked when the function is first called (unsupported
    constructs raise ``CompileError`` naming the line), and its gradient
    tape blocks are compiled in place (``tape/inplace.py``): each runs its
    compiled forward code as a call in the function's own code, no frame
    tricks. The blocks are specialised on the kinds of values they start
    from when they first run with them.
    """
    if inspect.ismethod(f):  # ``sg.function(self.train_step)``: the method, bound again
        return types.MethodType(function(f.__func__), f.__self__)
    compiled = []  # [(f's code when compiled, the function to run)]

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        if not compiled or compiled[0][0] is not f.__code__:
            check_function(f)
            try:
                rewritten = compile_in_place(f, run_in_place)
            except (SyntaxError, ValueError, TypeError):  # a function it cannot rebuild:
                rewritten = None  # its blocks run as in plain code
            compiled[:] = [(f.__code__, rewritten or f)]
        return compiled[0][1](*args, **kwargs)

    wrapper.__srcgrad_function__ = True
    wrapper.__signature__ = inspect.signature(f)
    return wrapper
