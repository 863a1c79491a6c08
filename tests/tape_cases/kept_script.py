"""Module-level blocks whose arrays are written into after the block (run with
runpy): ``with`` and ``__enter__()``/``__exit__()`` by hand."""
import numpy as np

import srcgrad as sg

a = np.array([1.0, 2.0, 3.0])
with sg.GradientTape() as tape:
    tape.watch(a)
    b = a * 2.0
    y = np.sum(b * b)
a[0] = 10.0
b[1] = 10.0
with_grad = tape.gradient(y, a)

c = np.array([1.0, 2.0, 3.0])
manual = sg.GradientTape()
manual.__enter__()
manual.watch(c)
z = np.sum(c * c * c)
manual.__exit__(None, None, None)
c[:] = -1.0
manual_grad = manual.gradient(z, c)
