"""Hand-written NumPy gradients of the workloads: the floor each column is held to.

Each function takes the workload's arguments and returns the tuple of
gradients with respect to the arguments the benchmark differentiates (for the
second-order workload, the second derivative; for ``tanh_net``, its
Jacobian). They are written the way a careful person writes an adjoint by
hand in the same NumPy style as the workload (same primitives, no tricks a
compiler could not know about), and are checked against finite differences
by ``run.py`` before anything is timed.
"""
import numpy as np


def rosenbrock_loop_grad(x):
    g = np.zeros_like(x)
    for i in range(len(x) - 1):
        xi = x[i]
        r = x[i + 1] - xi ** 2
        g[i] += -400.0 * xi * r - 2.0 * (1 - xi)
        g[i + 1] += 200.0 * r
    return (g,)


def logistic_loss_grad(w, b, X, y):
    margins = y * (X @ w + b)
    # d/dm log(1 + exp(-m)) = -sigmoid(-m) = -(1 - tanh(m / 2)) / 2
    coef = (-0.5 / len(y)) * y * (1.0 - np.tanh(0.5 * margins))
    return X.T @ coef, np.sum(coef)


def mlp_loss_grad(W1, b1, W2, b2, X, labels):
    n = X.shape[0]
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    e = np.exp(logits - np.max(logits, axis=1, keepdims=True))
    dlogits = e / np.sum(e, axis=1, keepdims=True)       # softmax
    dlogits[np.arange(n), labels] -= 1.0
    dlogits /= n
    dW2 = h.T @ dlogits
    db2 = np.sum(dlogits, axis=0)
    dpre = (dlogits @ W2.T) * (1.0 - h * h)
    dW1 = X.T @ dpre
    db1 = np.sum(dpre, axis=0)
    return dW1, db1, dW2, db2



def mlp_loss_params_grad(params, X, labels):
    """``mlp_loss_grad`` for the parameters as one dict: the gradient is a dict too."""
    grads = mlp_loss_grad(params["W1"], params["b1"], params["W2"], params["b2"], X, labels)
    return (dict(zip(("W1", "b1", "W2", "b2"), grads)),)

def mlp_loss_tuple_grad(params, X, labels):
    """``mlp_loss_grad`` for the parameters as one tuple: the gradient is a tuple too."""
    return (tuple(mlp_loss_grad(*params, X, labels)),)


def rnn_loss_grad(Wx, Wh, b, Wo, xs, target):
    hs = [np.zeros((xs.shape[1], Wh.shape[0]))]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(xs[t] @ Wx + hs[-1] @ Wh + b))
    prediction = hs[-1] @ Wo
    dprediction = 2.0 * (prediction - target) / prediction.size
    dWo = hs[-1].T @ dprediction
    dh = dprediction @ Wo.T
    dWx = np.zeros_like(Wx)
    dWh = np.zeros_like(Wh)
    db = np.zeros_like(b)
    for t in range(xs.shape[0] - 1, -1, -1):
        da = dh * (1.0 - hs[t + 1] ** 2)
        dWx += xs[t].T @ da
        dWh += hs[t].T @ da
        db += np.sum(da, axis=0)
        dh = da @ Wh.T
    return dWx, dWh, db, dWo


def _lv_rhs(state, p):
    x, y = state[0], state[1]
    return np.array([p[0] * x - p[1] * x * y, p[3] * x * y - p[2] * y])


def _lv_vjp(kbar, state, p):
    """(kbar @ d rhs/d state, kbar @ d rhs/d p) at ``state``."""
    x, y = state[0], state[1]
    a, b, c, d = p[0], p[1], p[2], p[3]
    d_state = np.array([[a - b * y, -b * x],
                        [d * y, d * x - c]])
    d_p = np.array([[x, -x * y, 0.0, 0.0],
                    [0.0, 0.0, -y, x * y]])
    return kbar @ d_state, kbar @ d_p


def rk4_loss_grad(p, y0, dt, steps):
    # forward, keeping the four stage states of every step
    y = y0
    stages = []
    for _ in range(steps):
        s1 = y
        k1 = _lv_rhs(s1, p)
        s2 = y + 0.5 * dt * k1
        k2 = _lv_rhs(s2, p)
        s3 = y + 0.5 * dt * k2
        k3 = _lv_rhs(s3, p)
        s4 = y + dt * k3
        k4 = _lv_rhs(s4, p)
        stages.append((s1, s2, s3, s4))
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    # backward through each step
    ybar = 2.0 * (y - 1.0)
    pbar = np.zeros_like(p)
    for s1, s2, s3, s4 in reversed(stages):
        k1bar = dt / 6.0 * ybar
        k2bar = dt / 3.0 * ybar
        k3bar = dt / 3.0 * ybar
        k4bar = dt / 6.0 * ybar
        gs, gp = _lv_vjp(k4bar, s4, p)
        ybar = ybar + gs
        k3bar = k3bar + dt * gs
        pbar += gp
        gs, gp = _lv_vjp(k3bar, s3, p)
        ybar = ybar + gs
        k2bar = k2bar + 0.5 * dt * gs
        pbar += gp
        gs, gp = _lv_vjp(k2bar, s2, p)
        ybar = ybar + gs
        k1bar = k1bar + 0.5 * dt * gs
        pbar += gp
        gs, gp = _lv_vjp(k1bar, s1, p)
        ybar = ybar + gs
        pbar += gp
    return (pbar,)


def _lv_floats(x, y, a, b, c, d):
    return a * x - b * x * y, d * x * y - c * y


def rk4_loss_floats_grad(alpha, beta, gamma, delta, prey, predator, dt, steps):
    """The gradient of ``rk4_loss_floats`` with respect to the four parameters, in the
    style it is written in: Python floats, the stage states of every step kept."""
    a, b, c, d = alpha, beta, gamma, delta
    x, y = prey, predator
    stages = []
    for _ in range(steps):
        k1x, k1y = _lv_floats(x, y, a, b, c, d)
        x2, y2 = x + 0.5 * dt * k1x, y + 0.5 * dt * k1y
        k2x, k2y = _lv_floats(x2, y2, a, b, c, d)
        x3, y3 = x + 0.5 * dt * k2x, y + 0.5 * dt * k2y
        k3x, k3y = _lv_floats(x3, y3, a, b, c, d)
        x4, y4 = x + dt * k3x, y + dt * k3y
        k4x, k4y = _lv_floats(x4, y4, a, b, c, d)
        stages.append((x, y, x2, y2, x3, y3, x4, y4))
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
    gx, gy = 2.0 * (x - 1.0), 2.0 * (y - 1.0)
    ga = gb = gc = gd = 0.0
    for x1, y1, x2, y2, x3, y3, x4, y4 in reversed(stages):
        bx = [dt / 6.0 * gx, dt / 3.0 * gx, dt / 3.0 * gx, dt / 6.0 * gx]  # k1x..k4x bars
        by = [dt / 6.0 * gy, dt / 3.0 * gy, dt / 3.0 * gy, dt / 6.0 * gy]
        points = ((x1, y1), (x2, y2), (x3, y3), (x4, y4))
        scale = (0.5 * dt, 0.5 * dt, dt)  # stage s + 1 reads x + scale[s] * k_s
        for s in (3, 2, 1, 0):
            px, py = points[s]
            kx, ky = bx[s], by[s]
            # the vector-Jacobian product of the right-hand side at (px, py)
            sx = kx * (a - b * py) + ky * d * py
            sy = -kx * b * px + ky * (d * px - c)
            ga += kx * px
            gb -= kx * px * py
            gc -= ky * py
            gd += ky * px * py
            gx += sx
            gy += sy
            if s > 0:
                bx[s - 1] += scale[s - 1] * sx
                by[s - 1] += scale[s - 1] * sy
    return ga, gb, gc, gd


def scalar_recurrence_second(a):
    """d^2/da^2 of ``scalar_recurrence``, carrying (s, s', s'') forward."""
    s, ds, dds = a, 1.0, 0.0
    for _ in range(100):
        sin_s, cos_s = np.sin(s), np.cos(s)
        dds = (-sin_s * ds * ds + cos_s * dds) * a + 2.0 * cos_s * ds + 0.5 * dds
        ds = cos_s * ds * a + sin_s + 0.5 * ds
        s = sin_s * a + 0.5 * s
    return (dds,)


def tanh_net_jacobian(W1, W2, x):
    """dy/dx of ``tanh_net``: the chain rule as two row-scaled weight matrices."""
    h = np.tanh(W1 @ x)
    y = np.tanh(W2 @ h)
    return (((1 - y * y)[:, None] * W2) @ ((1 - h * h)[:, None] * W1),)


def mlp_train_step(params, X, labels, learning_rate):
    """One SGD step of the MLP with the hand-written gradient, in place."""
    grads = mlp_loss_grad(*params, X, labels)
    for param, g in zip(params, grads):
        param -= learning_rate * g


def chain_energy_hvp(x, v):
    """H(x) v of ``chain_energy``: the elementwise part's second derivative times v, and
    the squared chain sum's (2 s n, s = sum(x_i x_{i+1}), n its gradient) derivative."""
    s = np.sum(x[:-1] * x[1:])
    ds = np.sum(v[:-1] * x[1:] + x[:-1] * v[1:])
    diagonal = (-np.sin(x) * x ** 2 + 4.0 * x * np.cos(x) + 2.0 * np.sin(x)) * v
    n = np.zeros_like(x)
    n[:-1] += x[1:]
    n[1:] += x[:-1]
    dn = np.zeros_like(x)
    dn[:-1] += v[1:]
    dn[1:] += v[:-1]
    return (diagonal + 2.0 * ds * n + 2.0 * s * dn,)
