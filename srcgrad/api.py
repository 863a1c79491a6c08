"""The functional API: ``grad``, ``value_and_grad``, ``adjoint_source``, ``function``."""
import functools
import inspect

from .compiler.cache import Compiled
from .compiler.pipeline import check_function


def _unwrap(f):
    while getattr(f, "__srcgrad_function__", False):
        f = f.__wrapped__
    return f


def _make(f, wrt, mode, preserve_result=False):
    f = _unwrap(f)
    compiled = Compiled.of(f, wrt, mode)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        out = compiled(args, kwargs)  # (compiled holds f weakly: this closure keeps it)
        if preserve_result:
            value, grads = out
            return grads, value
        return out

    # Lets the compiler differentiate this gradient again (higher order).
    wrapper.__srcgrad_generated__ = compiled.generic
    wrapper.__srcgrad_compiled__ = compiled
    wrapper.__srcgrad_target__ = f
    del wrapper.__wrapped__  # inspect must not mistake f's source for ours
    wrapper.__signature__ = inspect.signature(f)
    return wrapper


def grad(f, wrt=0, *, preserve_result=False):
    """The gradient of scalar-valued ``f`` with respect to argument(s) ``wrt``.

    ``wrt`` is an index or parameter name, or a tuple/list of them (then the
    gradient is a tuple). With ``preserve_result=True`` the function returns
    ``(gradient, value)``.
    """
    return _make(f, wrt, "value_and_grad" if preserve_result else "grad", preserve_result)


def value_and_grad(f, wrt=0):
    """Like ``grad`` but returns ``(value, gradient)``."""
    return _make(f, wrt, "value_and_grad")


def adjoint_source(f, wrt=0):
    """The generated gradient code of ``f``, as ``srcgrad show`` prints it."""
    return Compiled.of(_unwrap(f), wrt, "grad").generic_text()


def function(f):
    """Compile ``f`` with srcgrad.

    The code is checked when the function is first called (unsupported
    constructs raise ``CompileError`` naming the line); gradient tapes inside
    it are compiled by the tape API.
    """
    checked = []

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        if not checked:
            check_function(f)
            checked.append(True)
        return f(*args, **kwargs)

    wrapper.__srcgrad_function__ = True
    wrapper.__signature__ = inspect.signature(f)
    return wrapper
