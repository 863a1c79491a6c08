"""The benchmark rows: a workload, its size, its data and its hand-written gradient.

Data are made from fixed seeds, lazily (``Case.args``), so that a measuring
subprocess builds only the row it measures.
"""
import dataclasses
from collections.abc import Callable

import handwritten
import numpy as np
import workloads


@dataclasses.dataclass
class Case:
    id: str                      # row name, also accepted by --only
    group: str                   # workload name, accepted by --only
    size: str                    # printed in the table
    fn_name: str                 # the function in workloads.py
    make_args: Callable[[], tuple]
    wrt: tuple                   # indices of the differentiated arguments
    hand: Callable | None        # hand-written gradient (returns a tuple)
    static: tuple = ()           # non-array arguments (JAX jit: static_argnums)
    order: int = 1               # 2: second derivative of a scalar function
    kind: str = "grad"           # "grad", "tape" (training step), "nested-tape", "jacobian",
    #                              "hvp" (sg.hvp(f)(x, v)) or "hvp-tape" (nested tapes)
    large: bool = False          # measured for peak memory
    decorated: bool = False      # the tape training step inside ``@sg.function``
    _args: tuple | None = None

    @property
    def fn(self):
        return getattr(workloads, self.fn_name)

    @property
    def args(self):
        if self._args is None:
            self._args = self.make_args()
        return self._args

    def sg_wrt(self):
        """``wrt`` as a user passes it: an index, or a tuple for several."""
        return self.wrt[0] if len(self.wrt) == 1 else self.wrt


def _rosenbrock_args():
    return (np.random.default_rng(1).uniform(-1.5, 1.5, 100),)


def _logistic_args(n, features=100):
    def make():
        rng = np.random.default_rng(2)
        X = rng.standard_normal((n, features))
        true_w = rng.standard_normal(features)
        y = np.where(X @ true_w + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
        w = 0.01 * rng.standard_normal(features)
        return (w, 0.1, X, y)
    return make


def _mlp_args(batch, width, inputs=None, classes=10):
    inputs = inputs or width

    def make():
        rng = np.random.default_rng(3)
        W1 = rng.standard_normal((inputs, width)) / np.sqrt(inputs)
        b1 = 0.1 * rng.standard_normal(width)
        W2 = rng.standard_normal((width, classes)) / np.sqrt(width)
        b2 = 0.1 * rng.standard_normal(classes)
        X = rng.standard_normal((batch, inputs))
        labels = rng.integers(0, classes, batch)
        return (W1, b1, W2, b2, X, labels)
    return make


def _rnn_args(steps=50, hidden=32, batch=8, inputs=16):
    def make():
        rng = np.random.default_rng(4)
        Wx = 0.3 * rng.standard_normal((inputs, hidden))
        Wh = 0.9 * rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)
        b = 0.1 * rng.standard_normal(hidden)
        Wo = 0.3 * rng.standard_normal((hidden, 1))
        xs = rng.standard_normal((steps, batch, inputs))
        target = rng.standard_normal((batch, 1))
        return (Wx, Wh, b, Wo, xs, target)
    return make


def _as_dict(make_args):
    """The MLP's four parameters as one dict (the style ``mlp_loss_params`` takes)."""
    def make():
        W1, b1, W2, b2, X, labels = make_args()
        return ({"W1": W1, "b1": b1, "W2": W2, "b2": b2}, X, labels)
    return make


def _as_tuple(make_args):
    """The MLP's four parameters as one tuple (the style ``mlp_loss_tuple`` takes)."""
    def make():
        W1, b1, W2, b2, X, labels = make_args()
        return ((W1, b1, W2, b2), X, labels)
    return make


def _rk4_args(steps):
    def make():
        return (np.array([1.1, 0.4, 0.4, 0.1]), np.array([10.0, 5.0]), 0.01, steps)
    return make


def _tanh_net_args(n):
    def make():
        rng = np.random.default_rng(5)
        W1 = 0.1 * rng.standard_normal((n, n))
        W2 = 0.1 * rng.standard_normal((n, n))
        return (W1, W2, rng.standard_normal(n))
    return make


def _hvp_args(n):
    def make():
        rng = np.random.default_rng(6)
        return (np.linspace(0.1, 1.0, n), rng.standard_normal(n))
    return make


def build_cases(quick):
    rk4_steps = 100 if quick else 500
    jac_n = 20 if quick else 100
    cases = [
        Case("rosenbrock-loop", "rosenbrock", "n=100", "rosenbrock_loop", _rosenbrock_args,
             (0,), handwritten.rosenbrock_loop_grad),
        Case("logistic-small", "logistic", "X 1000x100", "logistic_loss", _logistic_args(1000),
             (0, 1), handwritten.logistic_loss_grad),
        Case("logistic-large", "logistic", "X 100000x100", "logistic_loss",
             _logistic_args(100_000), (0, 1), handwritten.logistic_loss_grad, large=True),
        Case("mlp-small", "mlp", "batch 32, width 64", "mlp_loss", _mlp_args(32, 64),
             (0, 1, 2, 3), handwritten.mlp_loss_grad),
        Case("mlp-small-dict", "mlp", "batch 32, width 64, parameters as one dict",
             "mlp_loss_params", _as_dict(_mlp_args(32, 64)), (0,), handwritten.mlp_loss_params_grad),
        Case("mlp-small-tuple", "mlp", "batch 32, width 64, parameters as one tuple, a helper",
             "mlp_loss_tuple", _as_tuple(_mlp_args(32, 64)), (0,), handwritten.mlp_loss_tuple_grad),
        Case("mlp-large", "mlp", "batch 4096, width 512", "mlp_loss", _mlp_args(4096, 512),
             (0, 1, 2, 3), handwritten.mlp_loss_grad, large=True),
        Case("rnn", "rnn", "50 steps, h32, b8", "rnn_loss", _rnn_args(),
             (0, 1, 2, 3), handwritten.rnn_loss_grad),
        Case("rk4-lotka-volterra", "rk4", f"{rk4_steps} steps", "rk4_loss", _rk4_args(rk4_steps),
             (0,), handwritten.rk4_loss_grad, static=(3,)),
        Case("rk4-lotka-volterra-floats", "rk4", f"{rk4_steps} steps, float state, tuple helper",
             "rk4_loss_floats", lambda: (1.1, 0.4, 0.4, 0.1, 10.0, 5.0, 0.01, rk4_steps),
             (0, 1, 2, 3), handwritten.rk4_loss_floats_grad, static=(7,)),
        Case("second-order", "second_order", "d2/da2, 100 steps", "scalar_recurrence",
             lambda: (0.7,), (0,), handwritten.scalar_recurrence_second, order=2),
        Case("second-order-tape", "second_order", "d2/da2, nested tapes", "scalar_recurrence",
             lambda: (0.7,), (0,), handwritten.scalar_recurrence_second, order=2,
             kind="nested-tape"),
        Case("jacobian-tape", "jacobian", f"{jac_n} -> {jac_n}, 2 tanh layers", "tanh_net",
             _tanh_net_args(jac_n), (2,), handwritten.tanh_net_jacobian, kind="jacobian"),
        Case("hvp", "hvp", "n=20, sg.hvp", "chain_energy", _hvp_args(20), (0,),
             handwritten.chain_energy_hvp, kind="hvp"),
        Case("hvp-nested-tapes", "hvp", "n=20, outer.gradient(sum(g * v))", "chain_energy",
             _hvp_args(20), (0,), handwritten.chain_energy_hvp, kind="hvp-tape"),
        Case("tape-mlp-step-small", "tape", "batch 32, width 64", "mlp_loss", _mlp_args(32, 64),
             (0, 1, 2, 3), handwritten.mlp_loss_grad, kind="tape"),
        Case("tape-mlp-step-large", "tape", "batch 4096, width 512", "mlp_loss",
             _mlp_args(4096, 512), (0, 1, 2, 3), handwritten.mlp_loss_grad, kind="tape",
             large=True),
        Case("tape-mlp-step-function", "tape", "@sg.function, batch 32, width 64", "mlp_loss",
             _mlp_args(32, 64), (0, 1, 2, 3), handwritten.mlp_loss_grad, kind="tape",
             decorated=True),
    ]
    if quick:
        # small sizes only; the "large" memory rows use the small sizes
        cases = [c for c in cases if c.id not in ("logistic-large", "mlp-large",
                                                  "tape-mlp-step-large")]
    return cases


def memory_cases(quick):
    """Rows measured for peak memory: the large sizes (small ones in --quick)."""
    wanted = ("logistic-small", "mlp-small") if quick else ("logistic-large", "mlp-large")
    return [c for c in build_cases(quick) if c.id in wanted]


LEARNING_RATE = 1e-4  # tape training-step rows: small, so repeated steps barely move


def find_case(case_id, quick):
    for case in build_cases(quick):
        if case.id == case_id:
            return case
    for case in build_cases(False):
        if case.id == case_id:
            return case
    raise KeyError(case_id)
