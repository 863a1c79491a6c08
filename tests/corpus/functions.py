"""The corpus, part 1: the language constructs of SPEC section 4.

Small plain-Python + NumPy functions, written the way a scientist would write
them. Tests receive them through a parameter named ``corpus_func``
(``tests/conftest.py``); ``programs.py`` holds part 2 (numerical programs,
user classes, the primitive table).

Input convention
================
Arguments are generated from PARAMETER NAMES by ``make_args(func, seed)``
(``tests/corpus/__init__.py``), with a NumPy generator seeded by ``seed`` and
the function's name, drawing in parameter order:

====================  =====================================================
name                  value
====================  =====================================================
``x y z t``           Python float, uniform in [0.5, 1.5]
``p q``               positive Python float, uniform in [1.0, 2.0]
``a b c v``           float64 vector, shape (4,), standard normal
``pa``                positive float64 vector, shape (4,), uniform [0.5, 1.5]
``w``                 float64 vector, shape (3,), standard normal
``ys``                float64 vector, shape (5,), standard normal (targets)
``A B``               float64 matrix, shape (3, 3), standard normal
``M``                 float64 matrix (3, 3), normal + 3 * eye: well conditioned
``W``                 float64 matrix (3, 3), normal * 0.5 (a weight matrix)
``X``                 float64 matrix (5, 3), standard normal (a data batch)
``xs``                list of 4 float64 vectors of shape (3,) (data, not
                      differentiated: a list is not a float array)
``labels``            int64 vector (5,), classes in {0, 1, 2}
``n``                 int 3          ``k``  int 2
``layer``             ``classes.Dense`` 3 -> 3, tanh
``model``             ``classes.MLP``: Dense 3 -> 4 tanh, Dense 4 -> 2 linear
``poly``              ``classes.Polynomial`` of degree 3
``kernel``            ``classes.RBFKernel``
``ode``               ``classes.DampedOscillator``
====================  =====================================================

Parameters that have a default value are not generated: the default is used.
Gradients are checked with respect to every float-valued argument (Python
float or float ndarray); ints, int arrays, lists and objects are passed but not
differentiated.

Rules for every corpus function: it returns a scalar (Python float, NumPy
scalar or 0-d array), it does not mutate its arguments, it is smooth at the
generated inputs (no kink within reach of finite differences: see
``test_smooth_at_generated_inputs``), and it is not recursive. Each one is
decorated with ``@covers(...)`` naming what it exercises (``CONSTRUCTS``).
Helpers that are not corpus functions live in ``helpers_mod.py`` or start
with an underscore.
"""
import math

import numpy as np

from . import helpers_mod
from .helpers_mod import affine, moments, sigmoid, softplus, squared_norm
from .marks import covers, float32_safe

# ---------------------------------------------------------------------------
# Assignment, tuple unpacking, augmented assignment
# ---------------------------------------------------------------------------


@covers("tuple_unpack", "math_fn", "power_op")
def rotated_radius(x, y):
    """Length of the point (x, y) after rotating it and stretching one axis."""
    c, s = math.cos(0.3), math.sin(0.3)
    u, w = c * x - s * y, s * x + c * y
    return math.sqrt(2.0 * u ** 2 + w ** 2)


@covers("tuple_unpack", "attr_shape", "reduce_axis")
def column_spread(X):
    n, d = X.shape
    mu = np.sum(X, axis=0) / n
    centered = X - mu
    return np.sum(centered ** 2) / (n * d)


@covers("tuple_unpack", "return_tuple", "import_from")
def mean_over_spread(a):
    m, var = moments(a)
    return m / (1.0 + var)


@covers("tuple_unpack", "for_range1")
def coupled_recurrence(x, y):
    """Iterate a pair of coupled maps, swapping through tuple assignment."""
    for _ in range(4):
        x, y = y, 0.5 * x + 0.3 * y * y
    return x + y


@covers("tuple_unpack", "index_int", "np_array_literal")
def unpack_vector(a):
    first, second = a[0], a[1]
    third, fourth = a[2], a[3]
    v = np.array([first * second, third + fourth, first - fourth])
    return np.sum(v ** 2)


@covers("augassign_scalar", "for_range2")
def exp_series(x):
    """exp(x) by its Taylor series, term by term."""
    total = 1.0
    term = 1.0
    for k in range(1, 12):
        term *= x / k
        total += term
    return total


@float32_safe
@covers("augassign_array", "augassign_scalar")
def shift_and_scale(a, x):
    out = np.zeros_like(a)
    out += a * x
    out *= 0.5
    out -= x
    s = np.sum(out * out)
    s /= 4.0
    return s


@covers("augassign_scalar", "for_array", "math_fn")
def product_of_cosines(a):
    prod = 1.0
    for ai in a:
        prod *= np.cos(0.5 * ai)
    return prod


@float32_safe
@covers("augassign_array", "for_range1", "matmul_op")
def matrix_power_sum(A):
    """sum of the entries of I + A/2 + (A/2)^2 + (A/2)^3."""
    term = np.eye(3, dtype=A.dtype)
    total = np.eye(3, dtype=A.dtype)
    for _ in range(3):
        term = term @ (0.5 * A)
        total += term
    return np.sum(total)


@covers("augassign_scalar", "augassign_array", "for_zip")
def weighted_residuals(a, b):
    r = a - b
    r *= np.array([1.0, 2.0, 3.0, 4.0])
    loss = 0.0
    for ri, bi in zip(r, b):
        loss += ri * ri
        loss -= 0.1 * bi
    return loss


@covers("augassign_scalar", "power_op", "unary_neg")
def damped_value(x, t):
    v = x
    v **= 2
    v *= -t
    v += 3.0
    return -v / (1.0 + t)


# ---------------------------------------------------------------------------
# if / elif / else, conditional expressions
# ---------------------------------------------------------------------------


@covers("if_value", "elif", "multiple_return")
def piecewise_smooth(x):
    """A function defined by cases on the value of x."""
    if x < 0.7:
        return x ** 2
    elif x < 1.2:
        return math.sin(x) + x
    else:
        return math.exp(x - 1.2) + math.sin(1.2) + 0.2


@covers("if_value", "elif", "genexp_sum")
def regime_energy(a, x):
    total = sum(ai * ai for ai in a)
    if total > 50.0:
        scale = 0.01
    elif total > 0.0:
        scale = x
    else:
        scale = 1.0
    return scale * total


@covers("if_shape", "attr_shape", "reduce_axis")
def shape_dispatch(X):
    """Normalise along the longer dimension."""
    if X.shape[0] > X.shape[1]:
        means = np.mean(X, axis=0)
    else:
        means = np.mean(X, axis=1)
    return np.sum(means ** 2)


@covers("if_shape", "attr_ndim", "early_return")
def energy_any_rank(a):
    if a.ndim == 1:
        return np.sum(a ** 2)
    return np.sum(np.sum(a ** 2, axis=-1))


@covers("if_shape", "elif", "reshape", "dot", "attr_ndim")
def flatten_then_dot(A, a):
    if A.ndim == 2 and A.shape[0] == A.shape[1]:
        flat = np.reshape(A, (-1,))
    elif A.ndim == 1:
        flat = A
    else:
        flat = A.reshape(-1)
    return np.dot(flat[:4], a)


@covers("ifexp", "if_value", "math_fn")
def safe_log_ratio(x, y):
    ratio = x / y if y > 0.0 else x
    return math.log(ratio) if ratio > 0.0 else ratio


@covers("ifexp", "listcomp", "np_array_literal")
def signed_squares(a):
    sq = [ai * ai if ai > 0 else -ai * ai for ai in a]
    return np.sum(np.array(sq) * np.array([1.0, 0.5, 0.25, 0.125]))


@covers("ifexp", "attr_shape", "np_mean")
def conditional_scale(X, x):
    scale = x if X.shape[0] > 3 else 1.0
    return np.mean(scale * X ** 2)


@covers("bool_ops", "if_value", "compare")
def banded_response(x, y):
    if x > 0.0 and y > 0.0:
        r = x * y
    else:
        r = x + y
    if not (r > 100.0 or r < -100.0):
        r = r + 0.5 * r * r
    return r


@covers("if_value", "assert_stmt", "docstring")
def checked_ratio(p, q):
    """p / (p + q), with its precondition asserted."""
    assert p > 0.0 and q > 0.0, "positive inputs"
    return p / (p + q)


# ---------------------------------------------------------------------------
# for loops: over range (1, 2, 3 args), arrays, lists, zip, enumerate
# ---------------------------------------------------------------------------


@covers("for_range1", "index_int", "augassign_scalar")
def sum_of_cubes(a):
    s = 0.0
    for i in range(4):
        s += a[i] ** 3
    return s


@covers("for_range1", "attr_shape", "index_2d")
def trace_by_loop(M):
    tr = 0.0
    for i in range(M.shape[0]):
        tr = tr + M[i, i]
    return tr * tr


@covers("for_range2", "index_int", "index_negative")
def telescoping_differences(a):
    s = 0.0
    for i in range(1, len(a)):
        s = s + (a[i] - a[i - 1]) ** 2
    return s + a[-1] * a[0]


@covers("for_range3", "index_int")
def even_odd_mix(a):
    even = 0.0
    for i in range(0, len(a), 2):
        even = even + a[i] * a[i + 1]
    return even


@covers("for_range3", "augassign_scalar", "math_fn")
def countdown_weights(x):
    acc = 0.0
    for k in range(6, 0, -2):
        acc += math.exp(-k * x)
    return acc


@covers("for_array", "dot", "augassign_scalar")
def rows_projection(X, w):
    """Sum of squared projections of the rows of X onto w."""
    total = 0.0
    for row in X:
        total += np.dot(row, w) ** 2
    return total


@float32_safe
@covers("for_array", "np_max", "np_exp")
def rows_softmax_peak(X):
    best = 0.0
    for row in X:
        e = np.exp(row - np.max(row))
        best = best + np.max(e / np.sum(e))
    return best


@covers("for_list", "list_literal", "slice")
def chunk_energies(a):
    chunks = [a[:2], a[2:]]
    e = 0.0
    for chunk in chunks:
        e = e + np.sum(chunk) ** 2
    return e


@covers("for_list", "dot", "np_tanh")
def data_list_loss(xs, w):
    """Loss over a list of data vectors (the list itself is data)."""
    loss = 0.0
    for xi in xs:
        loss = loss + np.tanh(np.dot(xi, w)) ** 2
    return loss


@covers("for_zip", "dot", "augassign_scalar")
def paired_rows(X, ys, w):
    sse = 0.0
    for row, yi in zip(X, ys):
        sse += (np.dot(row, w) - yi) ** 2
    return sse / 5.0


@covers("for_zip", "for_list", "np_sin")
def zip_lists(a, b, x):
    weights = [x, 2.0 * x, x * x, 1.0]
    total = 0.0
    for wi, ai, bi in zip(weights, a, b):
        total = total + wi * np.sin(ai * bi)
    return total


@covers("for_enumerate", "augassign_scalar")
def discounted_sum(a, x):
    gamma = 1.0 / (1.0 + x)
    total = 0.0
    for i, ai in enumerate(a):
        total += gamma ** i * ai
    return total


@covers("for_enumerate", "for_array", "index_int")
def enumerate_rows(X, w):
    out = 0.0
    for i, row in enumerate(X):
        out = out + (i + 1) * row[1] * w[i % 3]
    return out


@covers("for_enumerate", "for_list", "np_exp")
def enumerate_list_of_arrays(a, b):
    parts = [a, b, a * b]
    s = 0.0
    for k, part in enumerate(parts):
        s = s + np.sum(np.exp(-part * part)) / (k + 1)
    return s


@covers("for_range1", "nested_loops", "index_2d")
def bilinear_form_loops(A, w):
    s = 0.0
    for i in range(3):
        for j in range(3):
            s = s + w[i] * A[i, j] * w[j]
    return s


# ---------------------------------------------------------------------------
# while, break, continue
# ---------------------------------------------------------------------------


@covers("while", "augassign_scalar")
def while_counter(x):
    i = 0
    acc = x
    while i < 5:
        acc = acc * 0.9 + 0.1 * math.sin(acc)
        i += 1
    return acc


@covers("while", "if_value")
def grow_until_large(x):
    """Double until past a threshold; the iteration count depends on x."""
    v = x
    steps = 0
    while v < 20.0:
        v = 2.0 * v + 0.1 * x
        steps += 1
    return v / (steps + 1)


@covers("while", "index_int", "bool_ops")
def while_scan(a):
    i = 0
    s = 0.0
    while i < len(a) and s < 1e6:
        s = s + a[i] * a[i] * (i + 1)
        i = i + 1
    return s


@covers("break", "for_range1", "if_value")
def partial_sum_until(a):
    s = 0.0
    for i in range(100):
        if i >= len(a):
            break
        s = s + a[i] ** 2
    return s


@covers("break", "while", "math_fn")
def series_until_small(x):
    total = 0.0
    term = 1.0
    k = 0
    while True:
        total = total + term
        k += 1
        term = term * x / k
        if k > 14:
            break
    return total


@covers("break", "for_array", "augassign_scalar")
def break_on_budget(a, x):
    spent = 0.0
    for ai in a:
        spent += x * ai * ai
        if spent > 1e3:
            break
    return spent


@covers("continue", "for_range1", "index_int")
def skip_odd_indices(a):
    s = 0.0
    for i in range(len(a)):
        if i % 2 == 1:
            continue
        s = s + np.exp(a[i])
    return s


@covers("continue", "for_array", "if_value")
def sum_positive_squares(a, x):
    s = 0.0
    for ai in a:
        if ai < 0.0:
            continue
        s = s + (x * ai) ** 2
    return s


@covers("continue", "break", "for_enumerate")
def continue_and_break(a, b):
    s = 0.0
    for i, ai in enumerate(a):
        if i == 0:
            continue
        if i == 3:
            break
        s = s + ai * b[i]
    return s


# ---------------------------------------------------------------------------
# Early and multiple returns
# ---------------------------------------------------------------------------


@covers("early_return", "for_range1", "if_value")
def first_large_term(x):
    term = x
    for k in range(10):
        term = term * (1.0 + x)
        if term > 20.0:
            return term
    return term + x


@covers("early_return", "if_shape")
def early_exit_on_shape(a, b):
    if a.shape != b.shape:
        return np.sum(a)
    return np.dot(a, b)


@covers("multiple_return", "if_value", "elif")
def regime_response(x, y):
    """A response curve with three regimes of the ratio x / y."""
    r = x / y
    if r < 0.8:
        return r ** 2
    elif r > 1.25:
        return 0.64 + math.log(r)
    return r * x


@covers("multiple_return", "for_enumerate", "early_return")
def return_from_loop(a, x):
    for i, ai in enumerate(a):
        if i == 2:
            return ai * x + a[0]
    return x


# ---------------------------------------------------------------------------
# Comprehensions and generator expressions
# ---------------------------------------------------------------------------


@covers("listcomp", "builtin_sum")
def listcomp_sum(a):
    squares = [ai ** 2 for ai in a]
    return sum(squares)


@covers("genexp_sum", "for_zip")
def genexp_dot(a, b):
    return sum(ai * bi for ai, bi in zip(a, b))


@covers("genexp_sum", "math_fn")
def genexp_range(x):
    return sum(math.sin(k * x) / k for k in range(1, 6))


@covers("comp_stack", "stack", "for_array")
def stacked_features(X, w):
    feats = np.stack([np.tanh(row * w) for row in X])
    return np.sum(feats ** 2)


@covers("comp_stack", "stack", "index_int")
def stack_shifted(a):
    rows = np.stack([a * k for k in range(3)], axis=1)
    return np.sum(rows[1] * rows[2])


@covers("comp_array", "np_array_literal", "dot")
def array_from_comp(X, w):
    scores = np.array([np.dot(row, w) for row in X])
    return np.sum(np.exp(-scores ** 2))


@covers("comp_array", "for_range1", "math_fn")
def array_from_scalars_comp(x):
    v = np.array([math.cos(k * x) for k in range(4)])
    return np.sum(v * v * np.arange(4.0))


@covers("listcomp", "nested_comp", "index_2d")
def nested_listcomp(A):
    pairs = [A[i, j] * A[j, i] for i in range(3) for j in range(3) if i < j]
    return sum(pairs)


@covers("genexp_sum", "builtin_minmax", "builtin_abs")
def largest_magnitude(a, x):
    return x * max(abs(ai) for ai in a)


# ---------------------------------------------------------------------------
# np.array from differentiable scalars, subscripts, slices
# ---------------------------------------------------------------------------


@covers("np_array_literal", "math_fn", "dot")
def feature_vector(x, y):
    phi = np.array([1.0, x, y, x * y, math.sin(x)])
    weights = np.array([0.5, -1.0, 2.0, 0.3, 1.5])
    return np.dot(phi, weights) ** 2


@covers("np_array_literal", "index_2d", "linalg_det")
def det_of_built_matrix(x, y):
    R = np.array([[x, -y, 0.0], [y, x, 0.0], [0.0, 0.0, x + y]])
    return np.linalg.det(R)


@covers("index_negative", "slice")
def tail_minus_head(a):
    return a[-1] * a[-2] - np.sum(a[:-2] ** 2)


@covers("slice", "step_slice")
def strided_slices(a, b):
    return np.sum(a[::2] * b[1::2]) + np.sum(a[::-1] * b)


@covers("index_2d", "slice", "attr_T")
def block_product(A, B):
    top = A[:2, :]
    left = B[:, :2]
    return np.sum(top @ left) + np.sum(A[1:, 1:] * B[1:, 1:].T)


@covers("fancy_index", "np_sum")
def fancy_gather(a):
    idx = np.array([3, 0, 0, 2])
    return np.sum(a[idx] * np.arange(1.0, 5.0))


@covers("fancy_index", "index_2d", "np_log")
def pick_labels(X, labels):
    """Log-probabilities of the labelled column of each row."""
    logits = X - np.max(X, axis=1, keepdims=True)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(5), labels])


@covers("fancy_index", "bool_mask")
def masked_mean(a, b):
    mask = b > 0.0
    return np.sum(a[mask] ** 2) + np.sum(a[~mask])


@covers("index_2d", "index_negative", "slice")
def corner_terms(M):
    return M[0, 0] * M[-1, -1] + np.sum(M[-1, :] * M[:, 0])


@covers("index_2d", "expand_dims_none", "reduce_axis")
def column_broadcast(X, w):
    col = X[:, 0][:, None]
    return np.sum(np.sum(col * w[None, :], axis=0) ** 2)


# ---------------------------------------------------------------------------
# Writes into fresh arrays: a[i] = v, a[i] += v
# ---------------------------------------------------------------------------


@covers("setitem", "for_range1", "index_int")
def fill_fresh_array(a, x):
    out = np.zeros(4)
    for i in range(4):
        out[i] = a[i] * x + i
    return np.sum(out ** 2)


@covers("setitem_aug", "for_range1", "attr_shape")
def histogram_like(X):
    acc = np.zeros(X.shape[1])
    for i in range(X.shape[0]):
        acc[i % 3] += np.sum(X[i] ** 2)
    return np.sum(np.sqrt(acc + 1.0))


@covers("setitem", "index_2d", "for_range2", "nested_loops")
def outer_by_hand(a, b, n):
    G = np.zeros((n, n))
    for i in range(0, n):
        for j in range(n):
            G[i, j] = a[i] * b[j]
    return np.sum(G * G)


@covers("setitem", "setitem_aug", "slice")
def write_slices(a, x):
    out = np.zeros(6)
    out[:4] = a
    out[4] = x
    out[1:3] += x * a[1:3]
    out[-1] = out[0] * out[4]
    return np.sum(out ** 2)


@covers("setitem", "math_fn", "index_int")
def state_vector_writes(x, y):
    s = np.zeros(3)
    s[0] = x
    s[1] = math.exp(-y)
    s[2] = x * y
    s[0] += s[2]
    return np.sum(s * s)


@covers("setitem_aug", "for_enumerate", "augassign_array")
def scatter_add(a):
    out = np.zeros(2)
    for i, ai in enumerate(a):
        out[i % 2] += np.sin(ai)
    out *= 2.0
    return out[0] * out[1]


# ---------------------------------------------------------------------------
# Attribute reads
# ---------------------------------------------------------------------------


@covers("attr_T", "matmul_op", "einsum")
def gram_trace(X):
    G = X.T @ X
    return np.einsum("ii->", G)


@float32_safe
@covers("attr_T", "attr_shape", "matmul_op")
def covariance_fro(X):
    n = X.shape[0]
    Xc = X - np.mean(X, axis=0)
    C = Xc.T @ Xc / (n - 1)
    return np.sum(C * C)


@covers("attr_shape", "reshape", "tuple_unpack")
def reshape_by_shape(A, x):
    rows, cols = A.shape
    flat = np.reshape(A, (rows * cols,))
    return np.sum(np.tanh(flat * x))


# ---------------------------------------------------------------------------
# Nested functions and closures
# ---------------------------------------------------------------------------


@covers("nested_def", "closure_param", "nested_call_repeated")
def closure_over_param(x, y):
    def scaled(u):
        return x * u * u

    return scaled(y) + scaled(2.0) + scaled(x)


@covers("nested_def", "closure_local", "math_fn")
def closure_over_local(x):
    k = math.exp(-x)

    def decay(s):
        return k * s + math.sin(s)

    return decay(x) * decay(1.0)


@covers("nested_def", "nested_call_repeated", "for_range1")
def nested_in_loop(a, x):
    def step(v):
        return v - 0.1 * (v - x) ** 3

    v = a
    for _ in range(5):
        v = step(v)
    return np.sum(v)


@covers("nested_def", "closure_param", "call_defaults")
def nested_with_default(a, t):
    def smooth(u, eps=0.1):
        return np.sqrt(u * u + eps) * t

    return np.sum(smooth(a)) + np.sum(smooth(a, eps=1.0))


@covers("nested_def", "closure_local", "nested_call_repeated", "dot")
def nested_calls_nested(a, b):
    center = 0.5 * (a + b)

    def dist2(u):
        d = u - center
        return np.dot(d, d)

    def energy(u):
        return dist2(u) + 0.1 * dist2(2.0 * u)

    return energy(a) + energy(b)


@covers("nested_def", "closure_param", "comp_array")
def nested_in_comprehension(a, x):
    def feature(u):
        return np.tanh(x * u)

    feats = np.array([feature(ai) for ai in a])
    return np.sum(feats)


# ---------------------------------------------------------------------------
# Calls with keyword and default arguments; other modules
# ---------------------------------------------------------------------------


@covers("call_kwargs", "call_defaults", "other_module")
def affine_with_keywords(X, W, w):
    h = helpers_mod.affine(X, W, b=w, scale=0.5)
    h2 = helpers_mod.affine(X, W)
    return np.sum(h * h2)


@covers("call_kwargs", "reduce_axis", "keepdims")
def keyword_reductions(X):
    mu = np.mean(X, axis=0, keepdims=True)
    sd = np.sqrt(np.mean((X - mu) ** 2, axis=0, keepdims=True) + 1e-3)
    return np.sum(((X - mu) / sd)[:, 0] ** 3)


@covers("call_defaults", "other_module", "import_from")
def helpers_defaults(a):
    return helpers_mod.logsumexp(a) + np.sum(softplus(a)) + helpers_mod.huber(a[0])


@covers("import_from", "other_module", "np_exp")
def sigmoid_pair(a, b):
    return np.sum(sigmoid(a) * helpers_mod.sigmoid(-b))


@covers("other_module", "call_kwargs", "logsumexp")
def logsumexp_rows(X):
    return np.sum(helpers_mod.logsumexp(X, axis=1))


@covers("other_module", "call_defaults", "math_fn")
def density_sum(x, y):
    return helpers_mod.gaussian_pdf(x) + helpers_mod.gaussian_pdf(y, mu=1.0, sigma=0.5)


@covers("import_from", "other_module", "transitive_call")
def normalized_projection(a, b):
    u = helpers_mod.normalized(a)
    return np.dot(u, b) + squared_norm(u - b)


@covers("call_kwargs", "np_clip")
def clipped_with_keywords(a):
    return np.sum(np.clip(a, a_min=-1.5, a_max=1.5) ** 2)


# ---------------------------------------------------------------------------
# Dict and list literals, operators
# ---------------------------------------------------------------------------


@covers("dict_literal", "index_str")
def dict_parameters(x, y):
    params = {"scale": x, "shift": y, "power": 3}
    return params["scale"] * (params["shift"] + 1.0) ** params["power"]


@covers("dict_literal", "list_literal", "for_list", "index_str")
def dict_of_arrays(a, b):
    layers = {"first": a, "second": b}
    total = 0.0
    for key in ["first", "second"]:
        total = total + np.sum(np.sin(layers[key]))
    return total


@covers("unary_neg", "power_op", "compare")
def operator_mix(x, y):
    u = -x + (+y)
    v = (x - y) ** 2 + x / y - (x * y) ** 0.5
    return u * v if x >= 0 else v


@covers("matmul_op", "attr_T", "linalg_solve")
def normal_equations(X, ys):
    G = X.T @ X + 0.1 * np.eye(3)
    beta = np.linalg.solve(G, X.T @ ys)
    return np.sum((X @ beta - ys) ** 2)


@covers("pass_stmt", "if_value", "docstring")
def with_pass(x):
    """A branch that does nothing on purpose."""
    y = x * x
    if y > 1e9:
        pass
    else:
        y = y + x
    return y


# ---------------------------------------------------------------------------
# More mixtures
# ---------------------------------------------------------------------------


@covers("return_tuple", "nested_def", "tuple_unpack", "closure_param")
def nested_returns_tuple(a, b, x):
    def center_and_scale(u):
        mu = np.mean(u)
        return u - mu, np.sqrt(np.mean((u - mu) ** 2) + x)

    ca, sa = center_and_scale(a)
    cb, sb = center_and_scale(b)
    return np.dot(ca, cb) / (sa * sb)


@covers("pass_stmt", "for_enumerate", "if_value")
def placeholder_branch(a, x):
    total = 0.0
    for i, ai in enumerate(a):
        if i == 0:
            pass
        else:
            total = total + x * ai ** 2
    return total + a[0] * x


@covers("nested_comp", "comp_array", "gram", "for_array")
def gram_nested_comprehension(X, x):
    G = np.array([[np.dot(r1, r2) for r2 in X] for r1 in X])
    return np.sum(np.exp(-G * G / x))


@covers("step_slice", "index_negative", "slice")
def alternating_differences(a, b):
    evens = a[::2]
    odds = a[1::2]
    return np.sum((evens - odds) ** 2) + np.sum(b[-1::-2] * evens)


@covers("bool_mask", "fancy_index", "np_abs")
def trimmed_energy(a, x):
    keep = np.abs(a) < 2.5
    return np.sum((a[keep] * x) ** 2) + x


@covers("import_from", "call_kwargs", "np_tanh")
def affine_imported(X, W, w, t):
    h = np.tanh(affine(X, W, b=w, scale=t))
    return np.sum(h[:, 0] * h[:, 2])


@covers("for_zip", "other_module", "import_from", "genexp_sum")
def cosine_similarity(a, v):
    u = helpers_mod.normalized(a)
    return sum(ui * vi for ui, vi in zip(u, v)) / np.sqrt(squared_norm(v))


@covers("for_range1", "augassign_scalar", "while")
def repeated_squaring(x, k):
    """k squarings of x, then k damped square roots back down (k is an int argument)."""
    r = x
    for _ in range(k):
        r *= r
    steps = 0
    while steps < k:
        r = math.sqrt(r) + 0.1 * r
        steps += 1
    return r
