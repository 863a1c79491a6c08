"""Arrays written into after the block: the gradient is at the values the block
computed with (TensorFlow's tape keeps them), in every placement.

Each case returns (gradient, expected). ``a = [1, 2, 3]`` throughout.
"""
import numpy as np

import srcgrad as sg


def input_written_after():
    a = np.array([1.0, 2.0, 3.0])
    with sg.GradientTape() as tape:
        tape.watch(a)
        y = np.sum(a * a)
    a[0] = 10.0
    return tape.gradient(y, a), np.array([2.0, 4.0, 6.0])


def bound_value_written_after():
    a = np.array([1.0, 2.0, 3.0])
    with sg.GradientTape() as tape:
        tape.watch(a)
        b = a * 2.0
        y = np.sum(b * b)
    b[0] = 10.0
    return tape.gradient(y, a), np.array([8.0, 16.0, 24.0])


def view_written_through_its_base():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with sg.GradientTape() as tape:
        tape.watch(a)
        y = np.sum(a[:, 1:] ** 2)
    a[:] = 0.0
    return tape.gradient(y, a), np.array([[0.0, 4.0, 6.0], [0.0, 10.0, 12.0]])


def params_updated_in_place_between_gradients():
    """A persistent tape: the SGD step writes into the arrays, the second gradient
    is the first one."""
    params = {"w": np.array([1.0, 2.0, 3.0]), "b": np.array([0.5])}
    x = np.array([0.5, -1.0, 2.0])
    with sg.GradientTape(persistent=True) as tape:
        tape.watch(params)
        loss = np.sum((x * params["w"] + params["b"]) ** 2)
    first = tape.gradient(loss, params)
    for k in params:
        params[k] -= 0.1 * first[k]
    second = tape.gradient(loss, params)
    r = x * np.array([1.0, 2.0, 3.0]) + 0.5
    expected = {"w": 2.0 * r * x, "b": np.array([2.0 * np.sum(r)])}
    return (first["w"], first["b"], second["w"], second["b"]), \
        (expected["w"], expected["b"], expected["w"], expected["b"])


def list_of_layers_written_after():
    weights = [np.array([[1.0, 0.5], [0.0, 2.0]]), np.array([[0.5], [1.5]])]
    x = np.array([[1.0, -1.0]])
    with sg.GradientTape() as tape:
        tape.watch(weights)
        h = x
        for w in weights:
            h = np.tanh(h @ w)
        loss = np.sum(h)
    expected = _layers_grad(x, [w.copy() for w in weights])
    for w in weights:
        w *= 3.0
    h[...] = 0.0
    return tuple(tape.gradient(loss, weights)), tuple(expected)


def _tanh_layers(x, weights):
    h = x
    for w in weights:
        h = np.tanh(h @ w)
    return np.sum(h)


def helper_layers_written_after():
    """In a helper, ``h`` starts as the input and is then rebound to new arrays: the
    record keeps a copy of the input only, which the user then overwrites."""
    weights = [np.array([[1.0, 0.5], [0.0, 2.0]]), np.array([[0.5], [1.5]])]
    x = np.array([[1.0, -1.0]])
    with sg.GradientTape() as tape:
        tape.watch(weights)
        loss = _tanh_layers(x, weights)
    expected = _layers_grad(x, [w.copy() for w in weights])
    x[...] = 5.0
    for w in weights:
        w *= 3.0
    return tuple(tape.gradient(loss, weights)), tuple(expected)


def _layers_grad(x, weights):
    hs = [x]
    for w in weights:
        hs.append(np.tanh(hs[-1] @ w))
    g = np.ones_like(hs[-1])
    out = []
    for w, h_in, h_out in reversed(list(zip(weights, hs, hs[1:]))):
        d = g * (1.0 - h_out ** 2)
        out.append(h_in.T @ d)
        g = d @ w.T
    return out[::-1]


def manual_input_written_after():
    a = np.array([1.0, 2.0, 3.0])
    tape = sg.GradientTape()
    tape.__enter__()
    tape.watch(a)
    y = np.sum(a * a)
    tape.__exit__(None, None, None)
    a[0] = 10.0
    return tape.gradient(y, a), np.array([2.0, 4.0, 6.0])


def manual_bound_value_written_after():
    a = np.array([1.0, 2.0, 3.0])
    tape = sg.GradientTape()
    tape.__enter__()
    tape.watch(a)
    b = a * 2.0
    y = np.sum(b * b)
    tape.__exit__(None, None, None)
    b[0] = 10.0
    return tape.gradient(y, a), np.array([8.0, 16.0, 24.0])


def nested_tapes_written_after():
    """Blocks with a nested tape are recorded by running them again from the values
    they started from: copies, not the arrays the user changed since."""
    x = np.array([1.0, 2.0])
    p = {"w": np.array([0.5, 1.5])}
    with sg.GradientTape(persistent=True) as outer:
        outer.watch([x, p])
        with sg.GradientTape() as inner:
            inner.watch(x)
            y = np.sum(p["w"] * x ** 3)
        dy = inner.gradient(y, x)
        s = np.sum(dy * dy)
    x[0] = 10.0
    p["w"] *= 3.0
    gx, gp = outer.gradient(s, [x, p])
    w, x0 = np.array([0.5, 1.5]), np.array([1.0, 2.0])
    # s = sum(9 w^2 x^4)
    return (gx, gp["w"], outer.gradient(s, x)), \
        (36.0 * w ** 2 * x0 ** 3, 18.0 * w * x0 ** 4, 36.0 * w ** 2 * x0 ** 3)


CASES = [input_written_after, bound_value_written_after, view_written_through_its_base,
         params_updated_in_place_between_gradients, list_of_layers_written_after,
         manual_input_written_after, manual_bound_value_written_after,
         nested_tapes_written_after, helper_layers_written_after]
