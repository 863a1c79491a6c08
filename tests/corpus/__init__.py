"""A corpus of plain-Python + NumPy functions for srcgrad's tests.

Modelled on Tangent's ``tests/functions.py``: tests ask for a parameter named
``corpus_func`` and ``tests/conftest.py`` runs them once per function. The
functions live in ``functions.py`` (language constructs) and ``programs.py``
(numerical programs, user classes, primitives); ``helpers_mod.py`` and
``classes.py`` hold the user code they call in other modules.

Public names:

- ``FUNCTIONS``: every corpus function, in source order.
- ``CONSTRUCTS``: the checked-in list of what the corpus must exercise; each
  entry must be named by ``@covers(...)`` on at least two functions.
- ``make_args(func, seed=0)``: arguments for ``func`` from its parameter names
  (the convention is documented in ``functions.py`` and in ``GENERATORS``).
- ``float_argnums(args)``: indices of the float-valued arguments, the ones
  gradients are checked against.
- ``covers``, ``no_second_order``, ``float32_safe``: the marking decorators.
"""
import inspect
import zlib

import numpy as np

from . import classes, functions, programs
from .marks import covers, float32_safe, no_second_order

__all__ = [
    "CONSTRUCTS", "FUNCTIONS", "GENERATORS", "MODULES", "covers", "float32_safe",
    "float_argnums", "is_float_arg", "make_args", "no_second_order",
]

# What the corpus exercises. Grouped as in SPEC section 4.
CONSTRUCTS = [
    # statements
    "tuple_unpack", "augassign_scalar", "augassign_array",
    "if_value", "if_shape", "elif", "ifexp", "bool_ops", "compare",
    "for_range1", "for_range2", "for_range3", "for_array", "for_list", "for_zip",
    "for_enumerate", "nested_loops", "while", "break", "continue",
    "early_return", "multiple_return", "return_tuple",
    "assert_stmt", "pass_stmt", "docstring",
    # expressions
    "listcomp", "nested_comp", "genexp_sum", "comp_stack", "comp_array",
    "np_array_literal", "list_literal", "dict_literal",
    "index_int", "index_negative", "index_str", "slice", "step_slice", "index_2d",
    "fancy_index", "bool_mask", "expand_dims_none", "setitem", "setitem_aug",
    "attr_T", "attr_shape", "attr_ndim", "attr_self", "array_methods",
    "power_op", "unary_neg", "matmul_op",
    # functions, closures, calls
    "nested_def", "closure_local", "closure_param", "nested_call_repeated",
    "call_kwargs", "call_defaults", "other_module", "import_from", "transitive_call",
    "method", "dunder_call",
    # numerical programs
    "rosenbrock", "logistic_loss", "softmax_xent", "mlp_tanh", "rnn_stack", "rk4",
    "horner", "newton", "running_mean", "gram", "logsumexp",
    "huber", "cumprod_loop",
    # primitives
    "elementwise", "np_exp", "np_log", "np_sin", "np_sqrt", "np_tanh", "np_abs",
    "np_where", "np_maximum", "np_minimum", "np_clip",
    "np_sum", "np_mean", "np_prod", "np_max", "np_min", "reduce_axis", "tuple_axis",
    "keepdims",
    "dot", "np_matmul", "einsum", "outer",
    "reshape", "transpose", "expand_dims", "squeeze", "concatenate", "stack",
    "broadcast_to",
    "linalg_solve", "linalg_inv", "linalg_det", "linalg_norm", "logaddexp",
    "math_fn", "builtin_abs", "builtin_sum", "builtin_minmax",
]

MODULES = (functions, programs)


def _discover(module):
    """The public functions defined in ``module`` (not imported into it), in source order."""
    found = [
        obj for name, obj in vars(module).items()
        if inspect.isfunction(obj) and obj.__module__ == module.__name__
        and not name.startswith("_")
    ]
    return sorted(found, key=lambda f: f.__code__.co_firstlineno)


FUNCTIONS = [func for module in MODULES for func in _discover(module)]


# ---------------------------------------------------------------------------
# Arguments from parameter names
# ---------------------------------------------------------------------------


def _uniform(lo, hi, shape=None):
    if shape is None:
        return lambda rng: float(rng.uniform(lo, hi))
    return lambda rng: rng.uniform(lo, hi, size=shape)


def _normal(shape, scale=1.0, shift=None):
    def gen(rng):
        value = scale * rng.standard_normal(shape)
        return value if shift is None else value + shift
    return gen


def _dense(rng, n_in, n_out, activation):
    return classes.Dense(0.5 * rng.standard_normal((n_in, n_out)),
                         0.1 * rng.standard_normal(n_out), activation)


def _polynomial(rng):
    # c0 z^3 + c1 z^2 + c2 z + c3 with 4 c1^2 < 12 c0 c2: strictly increasing,
    # so the derivative never vanishes (Newton steps are safe) and one real root.
    coeffs = np.array([rng.uniform(0.1, 0.3), rng.uniform(-0.3, 0.3),
                       rng.uniform(0.8, 1.2), rng.standard_normal()])
    return classes.Polynomial(coeffs)


GENERATORS = {
    # Python floats
    "x": _uniform(0.5, 1.5), "y": _uniform(0.5, 1.5),
    "z": _uniform(0.5, 1.5), "t": _uniform(0.5, 1.5),
    "p": _uniform(1.0, 2.0), "q": _uniform(1.0, 2.0),
    # vectors
    "a": _normal(4), "b": _normal(4), "c": _normal(4), "v": _normal(4),
    "pa": _uniform(0.5, 1.5, 4),
    "w": _normal(3),
    "ys": _normal(5),
    # matrices
    "A": _normal((3, 3)), "B": _normal((3, 3)),
    "M": _normal((3, 3), shift=3.0 * np.eye(3)),
    "W": _normal((3, 3), scale=0.5),
    "X": _normal((5, 3)),
    # data that is not differentiated
    "xs": lambda rng: [rng.standard_normal(3) for _ in range(4)],
    "labels": lambda rng: rng.integers(0, 3, size=5),
    "n": lambda rng: 3,
    "k": lambda rng: 2,
    # user objects (never differentiated)
    "layer": lambda rng: _dense(rng, 3, 3, "tanh"),
    "model": lambda rng: classes.MLP([_dense(rng, 3, 4, "tanh"), _dense(rng, 4, 2, "linear")]),
    "poly": _polynomial,
    "kernel": lambda rng: classes.RBFKernel(rng.uniform(0.8, 1.5), rng.uniform(0.5, 1.5)),
    "ode": lambda rng: classes.DampedOscillator(rng.uniform(1.0, 2.0), rng.uniform(0.1, 0.3),
                                                rng.uniform(0.2, 0.5)),
}


def make_args(func, seed=0):
    """Positional arguments for ``func``, generated from its parameter names.

    Deterministic in ``(seed, func.__name__)``. Parameters with a default value
    are left out, so the default applies.
    """
    rng = np.random.default_rng([seed, zlib.crc32(func.__name__.encode())])
    args = []
    for param in inspect.signature(func).parameters.values():
        if param.default is not inspect.Parameter.empty:
            continue
        try:
            gen = GENERATORS[param.name]
        except KeyError:
            raise KeyError(
                f"{func.__name__}: no input convention for parameter {param.name!r}; "
                f"use one of {sorted(GENERATORS)} (see tests/corpus/functions.py)"
            ) from None
        args.append(gen(rng))
    return args


def is_float_arg(value):
    """True for a Python/NumPy float or a float ndarray: the values gradients are taken for."""
    if isinstance(value, np.ndarray):
        return np.issubdtype(value.dtype, np.floating)
    return isinstance(value, (float, np.floating))


def float_argnums(args):
    """Indices of the float-valued arguments in ``args``."""
    return tuple(i for i, value in enumerate(args) if is_float_arg(value))
