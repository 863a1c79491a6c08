"""The seed snippets of SPEC §1 and the issue, as written, in ordinary functions.

Each ``seed_*`` function runs one snippet and returns the values its comments
give (``EXPECTED`` in tests/test_tape.py). ``tf`` is spelled ``sg``.
"""
import numpy as np

import srcgrad as sg

from .keras_like import MLP, loss_fn, make_data


def seed_square():
    x = sg.Variable(3.0)
    with sg.GradientTape() as tape:
        y = x ** 2
    return tape.gradient(y, x)                  # 6.0


def seed_nested():
    x = sg.constant(3.0)
    with sg.GradientTape() as g:
        g.watch(x)
        with sg.GradientTape() as gg:
            gg.watch(x)
            y = x * x
        dy_dx = gg.gradient(y, x)               # 6.0
    d2y_dx2 = g.gradient(dy_dx, x)              # 2.0
    return dy_dx, d2y_dx2


def seed_persistent():
    x = sg.constant(3.0)
    with sg.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = y * y
    return g.gradient(z, x), g.gradient(y, x)   # 108.0, 6.0


def seed_no_auto_watch():
    x, w = sg.Variable(2.0), sg.Variable(5.0)
    with sg.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
        tape.watch(x)
        y = x ** 2
        z = w ** 3
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
    with sg.GradientTape() as g:
        y = sg.py_function(log_huber, [x, m])   # 2.25
    return y, g.gradient(y, x)                  # 3.0


def log_huber(x, m):
    if np.abs(x) <= m:
        return x ** 2
    return m ** 2 * (1 - 2 * np.log(m) + np.log(x ** 2))


def seed_log_huber_global(x0=1.5):
    x, m = sg.Variable(x0), sg.Variable(2.0)
    with sg.GradientTape() as g:
        y = sg.py_function(log_huber, [x, m])   # 2.25
    return y, g.gradient(y, x)                  # 3.0


def seed_training(model=None, data=None):
    model = MLP([3, 4, 1], seed=3) if model is None else model
    x_batch, y_true = make_data(8) if data is None else data
    with sg.GradientTape() as tape:            # the training-loop pattern
        loss = loss_fn(y_true, model(x_batch))  # model: a user class holding Variables
    grads = tape.gradient(loss, model.trainable_variables)
    return loss, grads
