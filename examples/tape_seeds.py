"""The GradientTape seed snippets of SPEC §1, run as written (tf -> sg).

    python examples/tape_seeds.py

Prints every value next to the one expected; exits with status 1 if any differs.
The snippets are at module level, as a user would type them in a script; the
tape finds each recorded block in this file's source.
"""
import sys

import numpy as np

import srcgrad as sg

FAILURES = []


def check(what, got, expected):
    if expected is None:
        ok = got is None
    else:
        ok = got is not None and np.allclose(np.asarray(got, dtype=float), expected,
                                             rtol=1e-12, atol=0)
    shown = "None" if got is None else repr(float(got)) if np.ndim(got) == 0 else repr(got)
    print(f"{what:<34} {shown:>22}   expected {expected!r:<8} {'ok' if ok else 'MISMATCH'}")
    if not ok:
        FAILURES.append(what)


# --- a Variable is watched automatically
x = sg.Variable(3.0)
with sg.GradientTape() as tape:
    y = x ** 2
check("d(x**2)/dx", tape.gradient(y, x), 6.0)

# --- nested tapes: second derivative
x = sg.constant(3.0)
with sg.GradientTape() as g:
    g.watch(x)
    with sg.GradientTape() as gg:
        gg.watch(x)
        y = x * x
    dy_dx = gg.gradient(y, x)               # 6.0
d2y_dx2 = g.gradient(dy_dx, x)              # 2.0
check("nested: dy/dx", dy_dx, 6.0)
check("nested: d2y/dx2", d2y_dx2, 2.0)

# --- a persistent tape answers several gradient calls
with sg.GradientTape(persistent=True) as g:
    g.watch(x)
    y = x * x
    z = y * y
check("persistent: dz/dx", g.gradient(z, x), 108.0)
check("persistent: dy/dx", g.gradient(y, x), 6.0)

# --- watch_accessed_variables=False: only what is watched
x, w = sg.Variable(2.0), sg.Variable(5.0)
with sg.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
    tape.watch(x)
    y = x ** 2
    z = w ** 3
check("explicit watch: dy/dx", tape.gradient(y, x), 4.0)
check("unwatched Variable: dz/dw", tape.gradient(z, w), None)

# --- __enter__ / __exit__ by hand, several statements on a line
x = sg.constant(3.0)
g = sg.GradientTape(); g.__enter__(); g.watch(x); y = x * x
g.__exit__(None, None, None); z = x * x
check("by hand: dy/dx", g.gradient(y, x), 6.0)

g = sg.GradientTape(); g.__enter__(); g.watch(x); y = x * x
g.__exit__(None, None, None); z = x * x
check("by hand: dz/dx (after __exit__)", g.gradient(z, x), None)

# --- by hand, one statement per line
g = sg.GradientTape()
g.__enter__()
g.watch(x)
y = x * x
g.__exit__(None, None, None)
z = x * x
check("by hand, lines: dy/dx", g.gradient(y, x), 6.0)


# --- Python control flow inside a py_function
def log_huber(x, m):                        # Python control flow inside
    if np.abs(x) <= m:
        return x ** 2
    return m ** 2 * (1 - 2 * np.log(m) + np.log(x ** 2))


x, m = sg.Variable(1.5), sg.Variable(2.0)
with sg.GradientTape() as g:
    y = sg.py_function(log_huber, [x, m])   # 2.25
check("log_huber(1.5, 2)", y, 2.25)
check("d log_huber / dx", g.gradient(y, x), 3.0)


# --- the training-loop pattern: a user class holding Variables
class Dense:
    def __init__(self, n_in, n_out, rng):
        self.w = sg.Variable(rng.normal(0.0, 1.0 / np.sqrt(n_in), size=(n_in, n_out)))
        self.b = sg.Variable(np.zeros(n_out))

    def __call__(self, x):
        return np.tanh(x @ self.w + self.b)


class Model:
    def __init__(self, rng):
        self.layers = [Dense(2, 4, rng), Dense(4, 1, rng)]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    @property
    def trainable_variables(self):
        return [v for layer in self.layers for v in (layer.w, layer.b)]


def loss_fn(y_true, y_pred):
    return np.mean((y_true - y_pred) ** 2)


rng = np.random.default_rng(0)
model = Model(rng)
x_batch = rng.normal(size=(16, 2))
y_true = np.tanh(x_batch[:, :1] - 0.5 * x_batch[:, 1:])
with sg.GradientTape() as tape:            # the training-loop pattern
    loss = loss_fn(y_true, model(x_batch))  # model: a user class holding Variables
grads = tape.gradient(loss, model.trainable_variables)

# check one gradient entry per Variable against a central difference
for i, (v, grad) in enumerate(zip(model.trainable_variables, grads)):
    base = v.numpy()
    index = (0,) * base.ndim
    bumped = base.copy()
    bumped[index] += 1e-6
    v.assign(bumped)
    up = loss_fn(y_true, model(x_batch))
    bumped[index] -= 2e-6
    v.assign(bumped)
    down = loss_fn(y_true, model(x_batch))
    v.assign(base)
    numeric = (up - down) / 2e-6
    got = None if grad is None else grad[index]
    ok = got is not None and abs(got - numeric) <= 1e-6 * max(1.0, abs(numeric))
    print(f"{'training: dloss/dvar' + str(i) + str(list(index)):<34} "
          f"{'None' if got is None else repr(float(got)):>22}   numeric {numeric:.12g} "
          f"{'ok' if ok else 'MISMATCH'}")
    if not ok:
        FAILURES.append(f"training variable {i}")

if FAILURES:
    print(f"\n{len(FAILURES)} MISMATCH(ES): {', '.join(FAILURES)}")
    sys.exit(1)
print("\nall seed snippets give the expected values")
