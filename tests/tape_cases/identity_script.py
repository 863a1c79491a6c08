"""Identity cases of the tape at module level, with ``with`` and by hand.

``RESULTS`` maps each case to its gradients (``runpy.run_path``); the
expected values are in ``tests/test_tape_identity.py``.
"""
import numpy as np

import srcgrad as sg

RESULTS = {}
x = np.array([1.0, 2.0, 3.0])

with sg.GradientTape() as tape:
    tape.watch(x)
    y = x * x
    z = y
RESULTS["alias_target"] = tape.gradient(z, x)

w = x
with sg.GradientTape() as tape:
    tape.watch(x)
    tape.watch(x)
    loss = np.sum(x * w)
    result = loss
    logged = loss
RESULTS["alias_source_and_names"] = tape.gradient(result, x)

tape = sg.GradientTape()
tape.__enter__()
tape.watch([x, x])
y = np.sum(x * x)
tape.__exit__(None, None, None)
RESULTS["manual_watch_twice"] = tape.gradient(y, x)

with sg.GradientTape() as tape:
    tape.watch(x)
RESULTS["target_is_source"] = tape.gradient(x, x)

layers = [(sg.Variable(np.ones((3, 2))), sg.Variable(np.zeros(2))),
          (sg.Variable(np.ones((2, 1))), sg.Variable(np.zeros(1)))]
with sg.GradientTape() as tape:
    h = x
    for W, b in layers:
        h = h @ W + b
    y = np.sum(h)
RESULTS["pairs"] = tape.gradient(y, layers)
