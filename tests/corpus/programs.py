"""The corpus, part 2: numerical programs, user classes and the primitive table.

Same input convention and rules as ``functions.py`` (see its docstring).
"""
import math

import numpy as np

from . import helpers_mod
from .helpers_mod import horner, logsumexp, sigmoid, tanh_layer
from .marks import covers, float32_safe, no_second_order

# ---------------------------------------------------------------------------
# Optimisation test functions and losses
# ---------------------------------------------------------------------------


@covers("rosenbrock", "power_op")
def rosenbrock(x, y):
    return (1.0 - x) ** 2 + 100.0 * (y - x ** 2) ** 2


@covers("rosenbrock", "slice", "np_sum")
def rosenbrock_nd(a):
    return np.sum(100.0 * (a[1:] - a[:-1] ** 2) ** 2 + (1.0 - a[:-1]) ** 2)


@covers("rosenbrock", "for_range2", "augassign_scalar", "index_int")
def rosenbrock_loop(a):
    f = 0.0
    for i in range(0, len(a) - 1):
        f += 100.0 * (a[i + 1] - a[i] ** 2) ** 2 + (1.0 - a[i]) ** 2
    return f


@covers("logistic_loss", "logaddexp", "matmul_op")
def logistic_loss(X, w, labels):
    """Binary cross-entropy of a linear classifier (label 1 against the rest)."""
    targets = (labels == 1) * 1.0
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - targets * z)


@covers("logistic_loss", "for_zip", "import_from", "np_log")
def logistic_loss_loop(X, w, labels):
    total = 0.0
    for row, label in zip(X, labels):
        prob = sigmoid(np.dot(row, w))
        if label == 1:
            total = total - np.log(prob)
        else:
            total = total - np.log(1.0 - prob)
    return total / len(labels)


@covers("logistic_loss", "other_module", "np_mean")
def regularized_logistic(X, w, labels, t):
    z = X @ w
    sign = np.where(labels == 1, 1.0, -1.0)
    return np.mean(helpers_mod.softplus(-sign * z)) + 0.5 * t * helpers_mod.squared_norm(w)


@float32_safe
@covers("softmax_xent", "reduce_axis", "keepdims", "fancy_index")
def softmax_cross_entropy(X, W, labels):
    logits = X @ W
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(len(labels)), labels])


@covers("softmax_xent", "setitem", "for_enumerate", "logsumexp")
def softmax_cross_entropy_onehot(X, W, labels):
    onehot = np.zeros((5, 3))
    for i, label in enumerate(labels):
        onehot[i, label] = 1.0
    logits = X @ W
    return np.mean(logsumexp(logits, axis=1) - np.sum(onehot * logits, axis=1))


@covers("softmax_xent", "for_array", "np_exp", "index_int")
def softmax_probability_row(X, W):
    """Mean probability the model gives to class 0, row by row."""
    total = 0.0
    for row in X:
        logits = row @ W
        e = np.exp(logits - np.max(logits))
        total = total + e[0] / np.sum(e)
    return total / X.shape[0]


@covers("huber", "np_where", "np_abs")
def huber_loss(a, b):
    r = a - b
    delta = 1.0
    quad = 0.5 * r ** 2
    lin = delta * (np.abs(r) - 0.5 * delta)
    return np.sum(np.where(np.abs(r) <= delta, quad, lin))


@covers("huber", "for_zip", "if_value", "builtin_abs")
def huber_loss_loop(a, b, x):
    total = 0.0
    for ai, bi in zip(a, b):
        r = x * ai - bi
        if abs(r) <= 1.0:
            total = total + 0.5 * r * r
        else:
            total = total + abs(r) - 0.5
    return total


@covers("huber", "other_module", "call_kwargs")
def huber_helper(a, b):
    return np.sum(helpers_mod.huber(a - b, delta=0.5))


@covers("logsumexp", "np_max", "np_log")
def logsumexp_shift(a):
    m = np.max(a)
    return m + np.log(np.sum(np.exp(a - m)))


@covers("logsumexp", "logaddexp", "for_array")
def logsumexp_pairwise(a, x):
    acc = x * a[0]
    for ai in a[1:]:
        acc = np.logaddexp(acc, x * ai)
    return acc


@float32_safe
@covers("logsumexp", "reduce_axis", "keepdims", "squeeze")
def logsumexp_columns(X):
    m = np.max(X, axis=0, keepdims=True)
    lse = np.log(np.sum(np.exp(X - m), axis=0, keepdims=True)) + m
    return np.sum(np.squeeze(lse, axis=0))


# ---------------------------------------------------------------------------
# Small neural networks and RNNs
# ---------------------------------------------------------------------------


@float32_safe
@covers("mlp_tanh", "matmul_op", "np_tanh")
def mlp_tanh(X, W, w, ys):
    h = np.tanh(X @ W)
    out = h @ w
    return np.mean((out - ys) ** 2)


@covers("mlp_tanh", "for_list", "list_literal", "attr_T")
def mlp_tanh_layers(X, W, A):
    weights = [W, A.T * 0.5, W * W]
    h = X
    for Wi in weights:
        h = np.tanh(h @ Wi)
    return np.sum(h ** 2)


@covers("mlp_tanh", "import_from", "call_kwargs", "transitive_call")
def mlp_tanh_helper(X, W, w):
    h = tanh_layer(X, W, b=w)
    h2 = tanh_layer(h, W)
    return np.mean(h2[:, 0] * h[:, 1])


@covers("rnn_stack", "for_array", "matmul_op")
def rnn_hidden_states(X, W, w):
    """A vanilla RNN over the rows of X; read out every hidden state."""
    h = np.zeros(3)
    hs = []
    for row in X:
        h = np.tanh(W @ h + row * w)
        hs.append(h)
    H = np.stack(hs)
    return np.sum(H @ w)


@covers("rnn_stack", "for_list", "dot")
def rnn_over_list(xs, W, w):
    h = np.zeros(3)
    hs = []
    for xi in xs:
        h = np.tanh(np.dot(W, h) + xi)
        hs.append(h)
    return np.sum(np.stack(hs, axis=1) * w[:, None])


@covers("rnn_stack", "import_from", "for_range1", "index_int")
def gated_rnn(X, W, A):
    h = np.zeros(3)
    states = []
    for i in range(X.shape[0]):
        gate = sigmoid(X[i] @ A)
        cand = np.tanh(X[i] @ W + h)
        h = gate * h + (1.0 - gate) * cand
        states.append(h)
    return np.mean(np.stack(states) ** 2)


@covers("rnn_stack", "for_zip", "listcomp")
def rnn_teacher_forcing(X, ys, W, w):
    h = np.zeros(3)
    outputs = []
    for row, target in zip(X, ys):
        h = np.tanh(h @ W + row)
        outputs.append(np.dot(h, w) - target)
    errors = np.stack(outputs)
    return np.sum(errors ** 2) + sum([0.01 * o for o in outputs])


# ---------------------------------------------------------------------------
# ODE integration, root finding, polynomials
# ---------------------------------------------------------------------------


@covers("rk4", "nested_def", "nested_call_repeated", "math_fn")
def rk4_step_scalar(x, t):
    """One RK4 step of dy/dt = -y + sin(t) from y(t) = x."""
    h = 0.1

    def rhs(s, y):
        return -y + math.sin(s)

    k1 = rhs(t, x)
    k2 = rhs(t + 0.5 * h, x + 0.5 * h * k1)
    k3 = rhs(t + 0.5 * h, x + 0.5 * h * k2)
    k4 = rhs(t + h, x + h * k3)
    return x + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


@covers("rk4", "closure_param", "for_range1", "matmul_op")
def rk4_linear_system(M, w):
    """Integrate y' = -M y / 3 for ten steps and return |y|^2."""
    h = 0.05

    def rhs(y):
        return -(M @ y) / 3.0

    y = w
    for _ in range(10):
        k1 = rhs(y)
        k2 = rhs(y + 0.5 * h * k1)
        k3 = rhs(y + 0.5 * h * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y ** 2)


@covers("rk4", "method", "attr_self", "np_array_literal")
def oscillator_rk4(ode, x, y):
    """Integrate a damped oscillator from (x, y) and return its final energy."""
    state = np.array([x, y])
    t = 0.0
    h = 0.1
    for _ in range(5):
        k1 = ode.rhs(t, state)
        k2 = ode.rhs(t + 0.5 * h, state + 0.5 * h * k1)
        k3 = ode.rhs(t + 0.5 * h, state + 0.5 * h * k2)
        k4 = ode.rhs(t + h, state + h * k3)
        state = state + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        t += h
    return ode.energy(state)


@covers("rk4", "while", "tuple_unpack")
def euler_vs_midpoint(x, p):
    """Logistic growth integrated by Euler and midpoint; their gap."""
    ye, ym = x, x
    s = 0.0
    while s < 1.0:
        ye = ye + 0.1 * p * ye * (1.0 - ye / 3.0)
        mid = ym + 0.05 * p * ym * (1.0 - ym / 3.0)
        ym, s = ym + 0.1 * p * mid * (1.0 - mid / 3.0), s + 0.1
    return (ye - ym) ** 2 + ym


@covers("newton", "for_range1", "augassign_scalar")
def newton_sqrt(p):
    """sqrt(p) by six Newton steps from 1."""
    r = 1.0
    for _ in range(6):
        r = 0.5 * (r + p / r)
    return r


@covers("newton", "for_range1", "tuple_unpack")
def newton_cubic(x, y):
    """Root of z^3 + x z - y = 0 by eight Newton iterations."""
    z = 1.0
    for _ in range(8):
        f, df = z ** 3 + x * z - y, 3.0 * z ** 2 + x
        z = z - f / df
    return z


@covers("newton", "method", "for_range1")
def polynomial_newton(poly, x):
    """Three Newton steps towards the (single, real) root of poly, starting at x."""
    z = x
    for _ in range(3):
        z = z - poly(z) / poly.derivative(z)
    return z


@covers("newton", "linalg_solve", "np_array_literal", "index_int")
def newton_system(x, y):
    """Two Newton steps for u^2 + v^2 = x + 1, u - v = y - 1."""
    u = np.array([1.0, 0.5])
    for _ in range(2):
        F = np.array([u[0] ** 2 + u[1] ** 2 - x - 1.0, u[0] - u[1] - y + 1.0])
        J = np.array([[2.0 * u[0], 2.0 * u[1]], [1.0, -1.0]])
        u = u - np.linalg.solve(J, F)
    return u[0] * u[1]


@covers("horner", "for_array", "dot")
def horner_vector_coeffs(a, x):
    """Evaluate the polynomial with coefficients a at x (Horner)."""
    acc = 0.0
    for coef in a:
        acc = acc * x + coef
    return acc


@covers("horner", "import_from", "other_module")
def horner_helper(a, x, y):
    return horner(a, x) - helpers_mod.horner(a, y)


@covers("horner", "for_range3", "index_int")
def horner_reverse_index(a, x):
    acc = a[-1]
    for i in range(len(a) - 2, -1, -1):
        acc = acc * x + a[i]
    return acc


@covers("horner", "dunder_call", "method")
def polynomial_object(poly, x):
    return poly(x) * poly.derivative(x)


@covers("running_mean", "for_enumerate", "augassign_scalar")
def running_mean(a):
    m = 0.0
    for k, ai in enumerate(a):
        m += (ai - m) / (k + 1)
    return m * m


@covers("running_mean", "rnn_stack", "for_array")
def exponential_moving_average(X, x):
    """EMA of the rows of X with smoothing 1 / (1 + x); mean square of the trace."""
    alpha = 1.0 / (1.0 + x)
    avg = X[0]
    trace = [avg]
    for row in X[1:]:
        avg = alpha * row + (1.0 - alpha) * avg
        trace.append(avg)
    return np.mean(np.stack(trace) ** 2)


@covers("running_mean", "for_range1", "tuple_unpack", "assert_stmt")
def welford_variance(a):
    assert len(a) > 1, "need two samples"
    mean, m2 = 0.0, 0.0
    for k in range(len(a)):
        delta = a[k] - mean
        mean = mean + delta / (k + 1)
        m2 = m2 + delta * (a[k] - mean)
    return m2 / (len(a) - 1)


@covers("cumprod_loop", "for_array", "listcomp")
def cumulative_products(pa):
    prods = []
    running = 1.0
    for ai in pa:
        running = running * ai
        prods.append(running)
    return np.sum(np.array(prods)) + sum([p * p for p in prods])


@covers("cumprod_loop", "setitem", "for_range2")
def survival_curve(a, x):
    """Survival probabilities from hazards sigmoid(a_i * x), cumulatively."""
    surv = np.ones(len(a))
    hazard = sigmoid(a * x)
    surv[0] = 1.0 - hazard[0]
    for i in range(1, len(a)):
        surv[i] = surv[i - 1] * (1.0 - hazard[i])
    return np.sum(surv)


@covers("cumprod_loop", "augassign_scalar", "np_prod")
def compound_growth(pa, t):
    total = 1.0
    for r in pa:
        total *= 1.0 + 0.1 * r * t
    return total - np.prod(1.0 + 0.05 * pa)


@covers("gram", "matmul_op", "attr_T", "linalg_det", "expand_dims_none")
def gram_logdet(X, x):
    """log det of an RBF Gram matrix with lengthscale x, plus jitter."""
    sq = np.sum(X ** 2, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
    K = np.exp(-0.5 * d2 / x ** 2) + 0.5 * np.eye(5)
    return np.log(np.linalg.det(K))


@covers("gram", "setitem", "for_range1", "dot", "nested_loops")
def gram_by_loops(X):
    G = np.zeros((5, 5))
    for i in range(5):
        for j in range(5):
            G[i, j] = np.dot(X[i], X[j])
    return np.sum(np.tanh(G))


@covers("gram", "einsum", "expand_dims", "broadcast_to")
def pairwise_distances(X):
    diff = np.expand_dims(X, 1) - np.expand_dims(X, 0)
    d2 = np.einsum("ijk,ijk->ij", diff, diff)
    full = np.broadcast_to(np.sum(X ** 2, axis=1), (5, 5))
    return np.sum(np.exp(-d2)) + np.mean(full)


# ---------------------------------------------------------------------------
# User classes: methods, __call__, attributes of objects
# ---------------------------------------------------------------------------


@covers("dunder_call", "attr_self")
def dense_layer_output(layer, X):
    return np.sum(layer(X) ** 2)


@covers("dunder_call", "method", "attr_self")
def dense_layer_regularized(layer, w, t):
    out = layer(w * t)
    return np.sum(out) + t * layer.l2_penalty()


@covers("method", "attr_self", "dunder_call")
def mlp_model_loss(model, X, ys):
    return model.loss(X, ys)


@covers("dunder_call", "for_list", "attr_self")
def mlp_model_layers(model, w):
    h = w
    total = 0.0
    for layer in model.layers:
        h = layer(h)
        total = total + np.sum(h * h)
    return total


@covers("dunder_call", "attr_self", "dot")
def kernel_pair(kernel, a, b):
    return kernel(a, b) + kernel(a, a * 0.5)


@covers("method", "attr_self", "linalg_det")
def kernel_logdet(kernel, X):
    K = kernel.gram(X) + 0.1 * np.eye(5)
    return np.log(np.linalg.det(K))


@covers("method", "attr_self", "linalg_solve")
def gp_posterior_mean(kernel, X, ys, w):
    """Posterior mean of a GP at the test point w."""
    K = kernel.gram(X) + 0.1 * np.eye(5)
    alpha = np.linalg.solve(K, ys)
    kstar = np.array([kernel(row, w) for row in X])
    return np.dot(kstar, alpha)


@covers("dunder_call", "for_range1", "attr_self")
def polynomial_fixed_point(poly, x):
    z = x
    for _ in range(4):
        z = 0.5 * z + 0.01 * poly(z)
    return z


# ---------------------------------------------------------------------------
# The primitive table: elementwise, where, maximum/minimum, clip
# ---------------------------------------------------------------------------


@covers("elementwise", "np_exp", "np_log", "np_sin")
def elementwise_mix(a, pa):
    return np.sum(np.exp(0.3 * a) * np.log(pa) + np.sin(a) * np.cos(pa))


@covers("elementwise", "np_sqrt", "np_tanh")
def elementwise_more(pa, a):
    return np.sum(np.sqrt(pa) * np.tanh(a) + np.square(a) / pa + np.arctan(a))


@covers("elementwise", "np_log", "np_exp")
def elementwise_hyperbolic(a, x):
    return np.sum(np.sinh(x * a) - np.cosh(0.5 * a) + np.log1p(a * a) + np.expm1(-a * a))


@covers("elementwise", "power_op", "np_abs")
def elementwise_powers(pa, a):
    return np.sum(np.power(pa, 1.5) + pa ** a + np.abs(a) ** 3 + np.tan(0.3 * a))


@covers("np_where", "compare")
def where_piecewise(a):
    """A C1 piecewise function: quadratic below zero, log1p above."""
    return np.sum(np.where(a > 0.0, np.log1p(np.maximum(a, 0.0)), a - 0.5 * a * a))


@covers("np_where", "np_exp", "bool_ops")
def where_soft_relu(a, b):
    inside = (a > -2.0) & (a < 2.0)
    return np.sum(np.where(inside, np.exp(a) * b, b))


@covers("np_maximum", "np_minimum")
def maximum_minimum(a, b):
    hi = np.maximum(a, b)
    lo = np.minimum(a, b)
    return np.sum(hi * hi) + np.sum(np.sin(lo))


@no_second_order("piecewise linear: the Hessian is zero wherever it exists, "
                 "a second-order check compares zeros")
@covers("np_maximum", "matmul_op")
def hinge_loss(X, w, labels):
    sign = np.where(labels == 1, 1.0, -1.0)
    return np.mean(np.maximum(0.0, 1.0 - sign * (X @ w)))


@covers("np_minimum", "np_maximum", "np_exp")
def soft_bounds(a, x):
    return np.sum(np.exp(np.minimum(a, x)) + np.maximum(a * x, -x) ** 2)


@covers("np_clip", "np_sum")
def clip_activations(a, b):
    return np.sum(np.clip(a, -1.0, 1.0) * b + np.clip(b, -2.0, None) ** 2)


@covers("np_clip", "np_log")
def clipped_log(a):
    probs = np.clip(1.0 / (1.0 + np.exp(-a)), 1e-6, 1.0 - 1e-6)
    return -np.sum(np.log(probs))


# ---------------------------------------------------------------------------
# Reductions with axis / keepdims
# ---------------------------------------------------------------------------


@covers("reduce_axis", "np_mean", "np_sum", "tuple_axis")
def reductions_axes(X):
    col = np.sum(X, axis=0)
    row = np.mean(X, axis=1)
    return np.sum(col ** 2) + np.sum(row ** 3) + np.mean(X) + np.sum(X ** 4, axis=(0, 1))


@covers("keepdims", "reduce_axis", "np_max", "np_min")
def standardize_range(X):
    lo = np.min(X, axis=0, keepdims=True)
    hi = np.max(X, axis=0, keepdims=True)
    scaled = (X - lo) / (hi - lo)
    return np.sum(scaled * X)


@covers("np_prod", "reduce_axis", "keepdims")
def product_reductions(pa, X):
    return np.prod(pa) + np.sum(np.prod(X, axis=1) ** 2) + np.sum(np.prod(X, axis=0, keepdims=True))


@covers("np_max", "np_min", "array_methods")
def method_reductions(X, a):
    return X.sum() + X.max() * a.min() + X.mean(axis=0).sum() + a.prod()


@covers("np_mean", "keepdims", "reduce_axis", "np_sqrt")
def layer_norm(X, w):
    mu = np.mean(X, axis=-1, keepdims=True)
    var = np.mean((X - mu) ** 2, axis=-1, keepdims=True)
    normed = (X - mu) / np.sqrt(var + 1e-5)
    return np.sum(np.tanh(normed * w))


@covers("reduce_axis", "tuple_axis", "np_sum")
def tuple_axis_sum(X, a):
    T = np.reshape(X[:4, :], (2, 2, 3))
    return np.sum(np.sum(T, axis=(0, 2)) ** 2) + np.sum(np.mean(T * a[0], axis=(1,)))


# ---------------------------------------------------------------------------
# dot, matmul, einsum, outer
# ---------------------------------------------------------------------------


@covers("dot", "np_matmul")
def dot_and_matmul(A, w, X):
    return np.dot(w, np.dot(A, w)) + np.sum(np.matmul(X, A) ** 2)


@covers("einsum", "np_tanh")
def einsum_contractions(X, W, w):
    H = np.tanh(np.einsum("ij,jk->ik", X, W))
    return np.einsum("ij,j->", H, w) + np.einsum("i,i->", w, w)


@float32_safe
@covers("einsum", "transpose")
def einsum_bilinear(A, B, w):
    return np.einsum("i,ij,jk,k->", w, A, np.transpose(B), w)


@covers("outer", "np_sum")
def outer_product(a, b):
    P = np.outer(a, b)
    return np.sum(np.sin(P)) + np.sum(np.outer(a, a) * P)


@covers("outer", "for_array", "augassign_array")
def covariance_by_outer(X):
    C = np.zeros((3, 3))
    mu = np.mean(X, axis=0)
    for row in X:
        C += np.outer(row - mu, row - mu)
    return np.sum(C * C)


@covers("matmul_op", "np_matmul", "attr_T")
def quadratic_forms(A, M, w):
    S = A @ A.T + M
    return w @ S @ w + np.matmul(w, np.matmul(M, w))


# ---------------------------------------------------------------------------
# Shape operations
# ---------------------------------------------------------------------------


@float32_safe
@covers("reshape", "array_methods", "transpose")
def reshape_and_transpose(X, a):
    Y = np.reshape(X[:4], (3, 4))
    Z = Y.reshape(4, 3)
    return np.sum(np.transpose(Y) * Z) + np.sum(Y.T @ a[:3])


@covers("expand_dims", "squeeze")
def expand_and_squeeze(a, w):
    col = np.expand_dims(a, axis=1)
    row = np.expand_dims(w, 0)
    table = col * row
    return np.sum(np.squeeze(table[:, :1]) ** 2) + np.sum(np.squeeze(row) * w)


@covers("concatenate", "slice")
def concatenate_parts(a, b, w):
    joined = np.concatenate([a, b * 2.0, w])
    return np.sum(joined[3:7] ** 2) + np.sum(np.concatenate((a[:2], w), axis=0) ** 3)


@covers("concatenate", "reduce_axis", "tuple_unpack")
def concatenate_matrices(A, B):
    wide = np.concatenate([A, B], axis=1)
    tall = np.concatenate([A, B])
    r, c = wide.shape
    return np.sum(wide ** 2) / (r * c) + np.sum(np.mean(tall, axis=0) * A[0])


@covers("stack", "list_literal")
def stack_vectors(a, b, c):
    S = np.stack([a, b, c])
    T = np.stack([a * b, b * c], axis=1)
    return np.sum(S[1] * S[2]) + np.sum(T ** 2)


@covers("broadcast_to", "np_sum")
def broadcast_bias(w, X):
    bias = np.broadcast_to(w, (5, 3))
    return np.sum(np.tanh(X + bias) ** 2)


@covers("broadcast_to", "expand_dims", "reduce_axis")
def broadcast_column(a, x):
    col = np.broadcast_to(np.expand_dims(a, 1), (4, 3))
    return np.sum(np.sum(col * x, axis=1) ** 2)


@covers("transpose", "einsum", "reshape")
def transpose_axes(X):
    T = np.reshape(X[:4], (2, 2, 3))
    U = np.transpose(T, (2, 0, 1))
    return np.sum(U[0] * U[1]) + np.einsum("ijk->", U ** 2)


# ---------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------


@covers("linalg_solve", "dot")
def solve_quadratic(M, w):
    s = np.linalg.solve(M, w)
    return np.dot(s, w)


@covers("linalg_solve", "matmul_op")
def solve_matrix_rhs(M, A):
    S = np.linalg.solve(M, A)
    return np.sum(S ** 2)


@covers("linalg_inv", "matmul_op", "attr_T")
def inverse_quadratic(M, w):
    Minv = np.linalg.inv(M)
    return w @ Minv @ w + np.sum(Minv @ Minv.T)


@covers("linalg_inv", "linalg_det", "einsum")
def inverse_and_det(M):
    return np.linalg.det(M) * np.einsum("ii->", np.linalg.inv(M))


@covers("linalg_det", "np_log")
def logdet_spd(A):
    S = A @ A.T + np.eye(3)
    return np.log(np.linalg.det(S))


@covers("linalg_norm", "np_sum")
def norms(a, A):
    return np.linalg.norm(a) + np.linalg.norm(A) + np.sum(np.linalg.norm(A, axis=0))


@covers("linalg_norm", "call_kwargs", "keepdims")
def normalize_rows(X, w):
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    return np.sum(unit @ w)


@no_second_order("piecewise linear: the Hessian of the 1- and inf-norms is zero wherever it exists")
@covers("linalg_norm", "call_kwargs")
def linear_norms(a, b):
    return np.linalg.norm(a, ord=1) + np.linalg.norm(b, ord=np.inf)


@covers("linalg_solve", "linalg_norm", "for_range1")
def power_iteration_inverse(M, a):
    """Three steps of inverse iteration; the Rayleigh quotient of the result."""
    v = a[:3] / np.linalg.norm(a[:3])
    for _ in range(3):
        v = np.linalg.solve(M, v)
        v = v / np.linalg.norm(v)
    return v @ M @ v


# ---------------------------------------------------------------------------
# logaddexp, math module, Python builtins
# ---------------------------------------------------------------------------


@covers("logaddexp", "reduce_axis")
def logaddexp_pairs(a, b):
    return np.sum(np.logaddexp(a, b)) + np.sum(np.logaddexp(a, 0.0))


@covers("logaddexp", "np_log", "np_exp")
def log_mixture_density(a, x):
    """log of a two-component Gaussian mixture at the points a."""
    log_c1 = -0.5 * (a - x) ** 2
    log_c2 = -0.5 * ((a + x) / 2.0) ** 2 - np.log(2.0)
    return np.sum(np.logaddexp(np.log(0.3) + log_c1, np.log(0.7) + log_c2))


@covers("math_fn", "power_op")
def math_functions(x, y):
    return (math.exp(x) * math.log(y + 1.0) + math.sqrt(x * y) + math.tanh(x - y)
            + math.atan(x) + math.log1p(y) + math.pow(x, 1.5) + math.cos(x) * math.pi)


@covers("math_fn", "for_range2")
def math_series(x, p):
    total = 0.0
    for k in range(1, 6):
        total = total + math.sin(k * x) * math.exp(-k / p) + math.hypot(x, k)
    return total


@covers("builtin_abs", "builtin_sum", "builtin_minmax")
def builtins_mix(x, y, z):
    lo = min(x, 2.0)
    hi = max(y, 0.0)
    return abs(x - 3.0) * lo + sum([x, y, z]) * hi + abs(-z) ** 2


@no_second_order("piecewise linear: sum of absolute values, the Hessian is zero wherever it exists")
@covers("builtin_abs", "builtin_sum", "np_abs", "listcomp")
def l1_penalty(a, b):
    return sum([abs(ai) for ai in a]) + np.sum(np.abs(b))


@covers("builtin_minmax", "builtin_sum", "genexp_sum")
def builtin_over_arrays(a, b):
    return max(np.sum(a * a), 0.5) + min(np.sum(b ** 2), 1e6) + sum(a * b)


@covers("builtin_minmax", "for_array", "builtin_abs")
def builtin_max_tracking(a, x):
    best = -1e9
    for ai in a:
        best = max(best, x * ai * ai)
    return best + abs(x)
