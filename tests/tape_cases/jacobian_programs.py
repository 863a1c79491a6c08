"""Tape programs with non-scalar targets, for ``tests/test_jacobian.py``.

Each ``prog_*(x, w)`` records a block and returns ``(y, [dy/dx, dy/dw])`` from
one ``jacobian`` call; the test compares those with central differences of
``y``. ``x`` is a float array of shape (4,) and ``w`` of shape (3,) unless
the name says otherwise (``*_scalar``: Python floats; ``*_matrix``: x (3, 4)).
Together they reach every kind of statement the backward pass writes:
elementwise and broadcasting rules, reductions along axes, shape changes,
every kind of index read and write, lists, loops, branches, custom gradients.
"""
import math

import numpy as np

import srcgrad as sg


def prog_broadcast_outer(x, w):
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        y = np.tanh(x[:, None] * w[None, :]) + np.exp(-w) * 0.5
    return y, tape.jacobian(y, [x, w])


def prog_matmul_chain(x, w):
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        m = np.outer(w, x)              # (3, 4)
        y = np.sin(m @ x) + w @ m @ m.T
    return y, tape.jacobian(y, [x, w])


def prog_vector_matmul(x, w):
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        a = np.reshape(np.concatenate([x, w, x[:2]]), (3, 3))
        y = a @ w + w @ a + np.dot(a, a)[0]
    return y, tape.jacobian(y, [x, w])


def prog_reductions_axes(x, w):
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        m = x[:, None] * w[None, :] + x[:, None] ** 2   # (4, 3)
        y = np.concatenate([np.sum(m, axis=0), np.mean(m, axis=1), np.max(m, axis=-1),
                            np.prod(m, axis=0), np.var(m, axis=1), np.std(m, axis=0),
                            np.sum(m, axis=1, keepdims=True)[:, 0], np.cumsum(m, axis=1)[1],
                            np.cumsum(m)[:3], np.linalg.norm(m, axis=0), [np.linalg.norm(m)]])
    return y, tape.jacobian(y, [x, w])


def prog_shapes(x, w):
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        m = np.reshape(np.concatenate([x, w, x * w[0], w, x]), (3, 2, 3))[:, :, :2]   # (3, 2, 2)
        a = np.transpose(m, (2, 0, 1)) * 2.0
        b = np.swapaxes(m, 0, 2) + np.moveaxis(m, 0, -1)
        c = np.reshape(m, (4, 3), order="F")
        d = np.flip(m, axis=1) * np.flip(m)
        e = np.expand_dims(np.squeeze(m[:1]), 0)
        f = np.stack([x, x * 2.0], axis=1) + np.vstack([x, x]).T
        y = [a.ravel(), b.flatten(), c.ravel(), d.ravel(), e.ravel(), f.ravel(),
             np.broadcast_to(w, (2, 3)).ravel(), np.triu(m[0]).ravel(), m.T.ravel()]
        y = np.concatenate(y)
    return y, tape.jacobian(y, [x, w])


def prog_einsum_tensordot(x, w):
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        m = np.outer(x, w)
        y = np.concatenate([np.einsum("ij,j->i", m, w), np.einsum("ij,ik->jk", m, m).ravel(),
                            np.tensordot(m, m, axes=([0], [0])).ravel(),
                            np.inner(m, w), np.trace(np.outer(w, w)) * w])
    return y, tape.jacobian(y, [x, w])


def prog_linalg(x, w):
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        a = np.eye(3) * w + 4.0 * np.eye(3) + np.outer(w, w) * 0.1
        y = np.concatenate([np.linalg.solve(a, w * x[0]), np.linalg.inv(a).ravel(),
                            [np.linalg.det(a)], np.linalg.solve(a, np.outer(w, x)).ravel()])
    return y, tape.jacobian(y, [x, w])


def prog_index_reads(x, w):
    idx = np.array([0, 2, 2, 3])
    mask = np.array([True, False, True, True])
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        m = x[:, None] * w[None, :]                         # (4, 3)
        t = np.stack([m, m * 2.0])                          # (2, 4, 3)
        y = np.concatenate([m[1], m[:, 2], m[-1, ::-1], x[idx], x[mask], m[idx, 1],
                            m[..., 0], m[None, 2, :].ravel(), t[:, idx, 1].ravel(),
                            t[0, idx[:2], :].ravel(), t[np.array([1, 0]), :, np.array([2, 0])].ravel(),
                            [x[0] * w[-1]]])
    return y, tape.jacobian(y, [x, w])


def prog_index_writes(x, w):
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        z = np.zeros((3, 4))
        z[0] = x * w[0]
        z[1, 1:3] = w[:2] ** 2
        z[2] = z[0] * z[1]
        z[:, -1] = w
        z[np.array([0, 2]), 0] = x[:2] + 1.0
        y = z.ravel() * 2.0
    return y, tape.jacobian(y, [x, w])


def prog_list_loop(x, w):
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        rows = []
        h = x
        for k in range(3):
            h = np.tanh(h * w[k] + x)
            rows.append(h)
        last = rows.pop()
        rows.append(last * 2.0)
        y = np.stack(rows) + np.array(rows)
    return y, tape.jacobian(y, [x, w])


def prog_index_loop(x, w):
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        out = np.zeros(4)
        acc = 0.0
        for i in range(4):
            acc = acc + x[i] * w[i % 3]
            out[i] = acc * x[i]
        y = out + np.cumsum(x)
    return y, tape.jacobian(y, [x, w])


def prog_while_branches(x, w):
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        h = x * 1.0
        n = 0
        while np.sum(h * h) < 50.0 and n < 10:
            if h[0] > 0:
                h = h * w[0] + np.sin(h)
            else:
                h = h - w[1] * h[1]
            n += 1
        y = h * np.sum(w)
    return y, tape.jacobian(y, [x, w])


def prog_scalar(x, w):
    """x and w are Python floats: the backward pass runs on scalars per row."""
    with sg.GradientTape() as tape:
        tape.watch(x)
        tape.watch(w)
        a = math.sin(x) * w
        b = a * a + math.exp(w) / x
        c = max(a, b) + min(x, w) + abs(x - w) + x ** 3
        y = np.array([a, b, c, a * b * c, sum([a, b, x])])
    return y, tape.jacobian(y, [x, w])


def prog_custom_gradient(x, w):
    @sg.custom_gradient
    def clipped_square(v):
        def grad_fn(upstream):
            return upstream * 2.0 * v
        return v * v, grad_fn

    def scaled(a, b):
        return a * np.sum(b)

    with sg.GradientTape() as tape:
        tape.watch([x, w])
        y = clipped_square(x) + sg.py_function(scaled, [x, w])
    return y, tape.jacobian(y, [x, w])


def prog_matrix(x, w):
    """x of shape (3, 4): a target of rank 2, sources of rank 2 and 1."""
    with sg.GradientTape() as tape:
        tape.watch([x, w])
        y = np.tanh(x @ w)[:, None] * x + np.sum(x, axis=0)[None, :]
    return y, tape.jacobian(y, [x, w])


PROGRAMS = {name[len("prog_"):]: fn for name, fn in dict(globals()).items()
            if name.startswith("prog_")}
