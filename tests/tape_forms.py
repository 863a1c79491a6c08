"""The gradient of a function by a tape recording a call of it: the tape form of tests.

``sg.function(taped)(f, x)`` gives the same inside ``@sg.function``.
"""
import srcgrad as sg


def taped(f, x):
    with sg.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def taped_two(f, x, y):
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(y)
        z = f(x, y)
    return tape.gradient(z, [x, y])
