"""What a GradientTape costs next to sg.grad, for the README's tape section.

    python benchmarks/tape_cost.py

A logistic loss on a 256 x 32 batch: the gradient by ``sg.grad``, by a tape in
plain code, by the same tape inside ``@sg.function``, and the forward pass
alone; interleaved, medians of 400 rounds.
"""
import time, numpy as np, srcgrad as sg
rng = np.random.default_rng(0)
X = rng.standard_normal((256, 32)); y = (rng.random(256) > 0.5).astype(float)
w0 = rng.standard_normal(32) * 0.1
def loss(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z)
g = sg.grad(loss)
def tape_plain(w):
    with sg.GradientTape() as tape:
        tape.watch(w)
        l = loss(w, X, y)
    return tape.gradient(l, w)
@sg.function
def tape_fn(w):
    with sg.GradientTape() as tape:
        tape.watch(w)
        l = loss(w, X, y)
    return tape.gradient(l, w)
assert np.allclose(g(w0, X, y), tape_plain(w0)) and np.allclose(tape_fn(w0), tape_plain(w0))
res = {}
for r in range(400):
    for name, f in (("sg.grad", lambda: g(w0, X, y)), ("tape plain", lambda: tape_plain(w0)), ("tape in @sg.function", lambda: tape_fn(w0)), ("forward", lambda: loss(w0, X, y))):
        t = time.perf_counter(); f(); res.setdefault(name, []).append(time.perf_counter() - t)
for k, v in res.items(): print(f"{k}: {np.median(v)*1e6:.0f} us")
