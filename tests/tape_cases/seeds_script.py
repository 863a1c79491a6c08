"""The seed snippets, as written, at module level of a script.

    python tests/tape_cases/seeds_script.py

prints one line per snippet, ``name: value, value``; ``RESULTS`` holds the
same values for ``runpy.run_path``.
"""
import os
import sys

import numpy as np

import srcgrad as sg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keras_like import MLP, loss_fn, make_data  # noqa: E402

RESULTS = {}


def show(name, *values):
    RESULTS[name] = values
    text = ", ".join("None" if v is None else repr(float(v)) for v in values)
    print(f"{name}: {text}")


x = sg.Variable(3.0)
with sg.GradientTape() as tape:
    y = x ** 2
show("square", tape.gradient(y, x))                         # 6.0

x = sg.constant(3.0)
with sg.GradientTape() as g:
    g.watch(x)
    with sg.GradientTape() as gg:
        gg.watch(x)
        y = x * x
    dy_dx = gg.gradient(y, x)               # 6.0
d2y_dx2 = g.gradient(dy_dx, x)              # 2.0
show("nested", dy_dx, d2y_dx2)

with sg.GradientTape(persistent=True) as g:
    g.watch(x)
    y = x * x
    z = y * y
show("persistent", g.gradient(z, x), g.gradient(y, x))          # 108.0, 6.0

x, w = sg.Variable(2.0), sg.Variable(5.0)
with sg.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
    tape.watch(x)
    y = x ** 2
    z = w ** 3
show("no_auto_watch", tape.gradient(y, x), tape.gradient(z, w))    # 4.0, None

x = sg.constant(3.0)
g = sg.GradientTape(); g.__enter__(); g.watch(x); y = x * x
g.__exit__(None, None, None); z = x * x
show("manual_oneline_y", g.gradient(y, x))                            # 6.0

g = sg.GradientTape(); g.__enter__(); g.watch(x); y = x * x
g.__exit__(None, None, None); z = x * x
show("manual_oneline_z", g.gradient(z, x))                            # None

g = sg.GradientTape()
g.__enter__()
g.watch(x)
y = x * x
g.__exit__(None, None, None)
z = x * x
show("manual_lines_y", g.gradient(y, x))                              # 6.0

g = sg.GradientTape()
g.__enter__()
g.watch(x)
y = x * x
g.__exit__(None, None, None)
z = x * x
show("manual_lines_z", g.gradient(z, x))                              # None


def log_huber(x, m):                        # Python control flow inside
    if np.abs(x) <= m:
        return x ** 2
    return m ** 2 * (1 - 2 * np.log(m) + np.log(x ** 2))


x, m = sg.Variable(1.5), sg.Variable(2.0)
with sg.GradientTape() as g:
    y = sg.py_function(log_huber, [x, m])   # 2.25
show("log_huber", y, g.gradient(y, x))      # 3.0

model = MLP([3, 4, 1], seed=3)
x_batch, y_true = make_data(8)
losses = []
for step in range(5):
    with sg.GradientTape() as tape:            # the training-loop pattern
        loss = loss_fn(y_true, model(x_batch))  # model: a user class holding Variables
    grads = tape.gradient(loss, model.trainable_variables)
    for v, grad in zip(model.trainable_variables, grads):
        v.assign_sub(0.1 * grad)
    losses.append(loss)
show("training", *losses)
