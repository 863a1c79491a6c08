"""The seed snippets with ``tape.__enter__()`` / ``tape.__exit__(None, None, None)``
called by hand instead of ``with``: the recorded region is the statements between.
"""
import numpy as np

import srcgrad as sg

from .keras_like import MLP, loss_fn, make_data


def seed_square():
    x = sg.Variable(3.0)
    tape = sg.GradientTape()
    tape.__enter__()
    y = x ** 2
    tape.__exit__(None, None, None)
    return tape.gradient(y, x)                  # 6.0


def seed_nested():
    """Both tapes entered and exited by hand."""
    x = sg.constant(3.0)
    g = sg.GradientTape()
    g.__enter__()
    g.watch(x)
    gg = sg.GradientTape()
    gg.__enter__()
    gg.watch(x)
    y = x * x
    gg.__exit__(None, None, None)
    dy_dx = gg.gradient(y, x)                   # 6.0
    g.__exit__(None, None, None)
    d2y_dx2 = g.gradient(dy_dx, x)              # 2.0
    return dy_dx, d2y_dx2


def seed_nested_outer_manual():
    """The outer tape by hand, the inner one a with block."""
    x = sg.constant(3.0)
    g = sg.GradientTape()
    g.__enter__()
    g.watch(x)
    with sg.GradientTape() as gg:
        gg.watch(x)
        y = x * x
    dy_dx = gg.gradient(y, x)                   # 6.0
    g.__exit__(None, None, None)
    d2y_dx2 = g.gradient(dy_dx, x)              # 2.0
    return dy_dx, d2y_dx2


def seed_nested_inner_manual():
    """The outer tape a with block, the inner one by hand."""
    x = sg.constant(3.0)
    with sg.GradientTape() as g:
        g.watch(x)
        gg = sg.GradientTape()
        gg.__enter__()
        gg.watch(x)
        y = x * x
        gg.__exit__(None, None, None)
        dy_dx = gg.gradient(y, x)               # 6.0
    d2y_dx2 = g.gradient(dy_dx, x)              # 2.0
    return dy_dx, d2y_dx2


def seed_persistent():
    x = sg.constant(3.0)
    g = sg.GradientTape(persistent=True)
    g.__enter__()
    g.watch(x)
    y = x * x
    z = y * y
    g.__exit__(None, None, None)
    return g.gradient(z, x), g.gradient(y, x)   # 108.0, 6.0


def seed_no_auto_watch():
    x, w = sg.Variable(2.0), sg.Variable(5.0)
    tape = sg.GradientTape(watch_accessed_variables=False, persistent=True)
    tape.__enter__()
    tape.watch(x)
    y = x ** 2
    z = w ** 3
    tape.__exit__(None, None, None)
    return tape.gradient(y, x), tape.gradient(z, w)    # 4.0, None


def seed_manual_oneline_y():
    x = sg.constant(3.0)
    g = sg.GradientTape(); g.__enter__(); g.watch(x); y = x * x
    g.__exit__(None, None, None); z = x * x
    return g.gradient(y, x)                     # 6.0


def seed_manual_oneline_z():
    x = sg.constant(3.0)
    g = sg.GradientTape(); g.__enter__(); g.watch(x); y = x * x
    g.__exit__(None, None, None); z = x * x
    return g.gradient(z, x)                     # None


def seed_manual_lines_y():
    x = sg.constant(3.0)
    g = sg.GradientTape()
    g.__enter__()
    g.watch(x)
    y = x * x
    g.__exit__(None, None, None)
    z = x * x
    return g.gradient(y, x)                     # 6.0


def seed_manual_lines_z():
    x = sg.constant(3.0)
    g = sg.GradientTape()
    g.__enter__()
    g.watch(x)
    y = x * x
    g.__exit__(None, None, None)
    z = x * x
    return g.gradient(z, x)                     # None


def seed_log_huber(x0=1.5):
    def log_huber(x, m):                        # Python control flow inside
        if np.abs(x) <= m:
            return x ** 2
        return m ** 2 * (1 - 2 * np.log(m) + np.log(x ** 2))
    x, m = sg.Variable(x0), sg.Variable(2.0)
    g = sg.GradientTape()
    g.__enter__()
    y = sg.py_function(log_huber, [x, m])       # 2.25
    g.__exit__(None, None, None)
    return y, g.gradient(y, x)                  # 3.0


def log_huber(x, m):
    if np.abs(x) <= m:
        return x ** 2
    return m ** 2 * (1 - 2 * np.log(m) + np.log(x ** 2))


def seed_log_huber_global(x0=1.5):
    x, m = sg.Variable(x0), sg.Variable(2.0)
    g = sg.GradientTape()
    g.__enter__()
    y = sg.py_function(log_huber, [x, m])       # 2.25
    g.__exit__(None, None, None)
    return y, g.gradient(y, x)                  # 3.0


def seed_training(model=None, data=None):
    model = MLP([3, 4, 1], seed=3) if model is None else model
    x_batch, y_true = make_data(8) if data is None else data
    tape = sg.GradientTape()
    tape.__enter__()
    loss = loss_fn(y_true, model(x_batch))
    tape.__exit__(None, None, None)
    grads = tape.gradient(loss, model.trainable_variables)
    return loss, grads
