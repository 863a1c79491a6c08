"""Module-level tape blocks whose called functions read module globals.

    python tests/tape_cases/globals_script.py
"""
import numpy as np

import srcgrad as sg

W = sg.Variable([1.5, -0.5])


def predict(a):
    return np.sum(a * W)


x = np.array([2.0, 3.0])
with sg.GradientTape() as tape:
    y = predict(x)
G_W = tape.gradient(y, W)                     # [2.0, 3.0]

c = sg.constant(2.0)


def scale(a):
    return a * c


z0 = sg.constant(3.0)
with sg.GradientTape() as tape:
    tape.watch(z0)
    tape.watch(c)
    y2 = scale(z0) * z0
G_Z, G_C = tape.gradient(y2, [z0, c])         # 12.0, 9.0

if __name__ == "__main__":
    print("G_W:", G_W)
    print("G_Z, G_C:", G_Z, G_C)
