"""``py_function`` and ``custom_gradient``: TensorFlow's ways to shape a gradient."""
import functools


def py_function(func, inp, Tout=None, name=None):
    """``func(*inp)``; differentiable, and ``func`` may use any supported control flow.

    srcgrad compiles ``func``'s source as part of the recorded block, so unlike
    TensorFlow's ``py_function`` nothing here is opaque to the gradient.
    ``Tout`` and ``name`` are accepted for compatibility and ignored.
    """
    return func(*inp)


py_function.__srcgrad_py_function__ = True


def custom_gradient(f):
    """Decorate ``f(*args) -> (y, grad_fn)``: calls return ``y``; its gradient is ``grad_fn``.

    ``grad_fn(upstream)`` returns the adjoint of each argument (a tuple when
    there are several), as in TensorFlow. srcgrad does not read ``f``'s body
    to differentiate it, so it may use anything Python allows. The gradient is
    used as given: ``grad_fn`` itself is not differentiated again.
    """
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        y, _ = f(*args, **kwargs)
        return y

    wrapper.__srcgrad_custom_gradient__ = f
    del wrapper.__wrapped__  # the compiler must not read f's source instead
    return wrapper
