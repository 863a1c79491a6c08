"""``py_function``: call a Python function so that a tape differentiates through it."""


def py_function(func, inp, Tout=None, name=None):
    """``func(*inp)``; differentiable, and ``func`` may use any supported control flow.

    srcgrad compiles ``func``'s source as part of the recorded block, so unlike
    TensorFlow's ``py_function`` nothing here is opaque to the gradient.
    ``Tout`` and ``name`` are accepted for compatibility and ignored.
    """
    return func(*inp)


py_function.__srcgrad_py_function__ = True
