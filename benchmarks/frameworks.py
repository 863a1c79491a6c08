"""The columns of the benchmark: how each tool computes a workload's gradient.

A column's ``make(case)`` returns ``(gradient, timed)``: two zero-argument
callables, the first returning the gradient as a tuple (checked against the
hand-written one before anything is timed), the second the call that is timed
(the same call, except for the tape training step, which also updates the
parameters). ``NotApplicable`` marks a row a column has nothing to say about.
For the Jacobian row, "gradient" means the full Jacobian.

The optional columns (autograd, JAX, PyTorch, tangent) import their package
inside ``try``; a missing package makes a column unavailable, with a note.
None of them is a dependency of srcgrad.
"""
import sys

import cases as cases_mod
import handwritten
import numpy as np
import workloads


def _version(distribution):
    try:
        from importlib.metadata import version
        return version(distribution)
    except Exception:  # noqa: BLE001
        return "(version unknown)"


class NotApplicable(Exception):
    """This column does not compute this row (e.g. the tape training step for autograd)."""


def as_gradient_tuple(value, count):
    """A gradient result as a tuple of float64 ndarrays, whatever produced it."""
    if count == 1 and not isinstance(value, (tuple, list)):
        value = (value,)
    out = []
    for v in value:
        if hasattr(v, "detach"):  # torch
            v = v.detach().cpu().numpy()
        if isinstance(v, dict):  # a parameter tree's gradient: a tree of arrays
            out.append({k: as_gradient_tuple(v[k], 1)[0] for k in v})
            continue
        if isinstance(v, tuple):  # (a tuple of parameters' gradient)
            out.append(as_gradient_tuple(v, len(v)))
            continue
        out.append(np.asarray(v, dtype=np.float64))
    return tuple(out)


def load_workloads_with(np_module, tag):
    """The functions of workloads.py, executed again with ``np`` rebound.

    The source is the same file, so the autograd and JAX columns differentiate
    exactly the code srcgrad does; global names are looked up at call time,
    so rebinding ``np`` after execution takes effect everywhere.
    """
    path = workloads.__file__
    with open(path) as f:
        source = f.read()
    namespace = {"__name__": f"workloads_{tag}", "__file__": path}
    exec(compile(source, path, "exec"), namespace)  # noqa: S102
    namespace["np"] = np_module
    return namespace


class Column:
    name = "?"
    optional = True

    def __init__(self):
        self.available = True
        self.note = ""

    def make(self, case):
        raise NotImplementedError


class Forward(Column):
    name = "forward"
    optional = False

    def make(self, case):
        f, args = case.fn, case.args
        if case.kind in ("hvp", "hvp-tape"):
            args = args[:1]  # (the function of x; v is the product's direction)
        return None, lambda: f(*args)


class Hand(Column):
    name = "hand"
    optional = False

    def make(self, case):
        args = case.args
        hand = case.hand
        if case.kind == "tape":
            params = [np.array(a, copy=True) for a in args[:4]]
            X, labels = args[4], args[5]
            lr = cases_mod.LEARNING_RATE
            return (lambda: hand(*args)), (lambda: handwritten.mlp_train_step(params, X, labels, lr))
        thunk = lambda: hand(*args)
        return thunk, thunk


class Srcgrad(Column):
    name = "srcgrad"
    optional = False

    def __init__(self):
        super().__init__()
        import srcgrad
        self.note = f"srcgrad {srcgrad.__version__}"

    def make(self, case):
        timed = srcgrad_call(case)
        if case.kind != "tape":
            return timed, timed
        # The training step updates its model: check the gradients of another copy.
        import tape_workloads
        args = case.args
        check_model = tape_workloads.TwoLayerMLP(*[np.array(a, copy=True) for a in args[:4]])
        gradients = tape_workloads.tape_gradients_function if case.decorated \
            else tape_workloads.tape_gradients
        return (lambda: gradients(check_model, args[4], args[5])[1]), timed


def srcgrad_call(case):
    """The call a user makes for this row (``sg.grad(...)`` made once, compiled lazily)."""
    import srcgrad as sg
    args = case.args
    if case.kind == "grad":
        g = sg.grad(sg.grad(case.fn)) if case.order == 2 else sg.grad(case.fn, wrt=case.sg_wrt())
        return lambda: g(*args)
    import tape_workloads
    if case.kind == "tape":
        model = tape_workloads.TwoLayerMLP(*[np.array(a, copy=True) for a in args[:4]])
        step = tape_workloads.train_step_function if case.decorated else tape_workloads.train_step
        return lambda: step(model, args[4], args[5], cases_mod.LEARNING_RATE)
    if case.kind == "nested-tape":
        return lambda: tape_workloads.nested_tape_second_derivative(*args)
    if case.kind == "jacobian":
        return lambda: tape_workloads.tape_jacobian(*args)
    if case.kind == "hvp":
        product = sg.hvp(case.fn)
        return lambda: product(*args)
    if case.kind == "hvp-tape":
        return lambda: tape_workloads.nested_tape_hvp(*args)
    raise ValueError(case.kind)


class SrcgradLoop(Column):
    """srcgrad's Jacobian one row at a time: what ``tape.jacobian`` is measured against.

    Not a table column: run.py prints its time in a note under the tables.
    """
    name = "srcgrad-loop"
    optional = False

    def make(self, case):
        if case.kind != "jacobian":
            raise NotApplicable
        import tape_workloads
        args = case.args
        thunk = lambda: tape_workloads.tape_jacobian_loop(*args)
        return thunk, thunk


class SrcgradNumba(Column):
    """``sg.grad(f, backend="numba")`` on the rows of first-order gradients; a row whose
    code the backend refuses (``CompileError``) is not applicable, with the reason."""
    name = "srcgrad-numba"

    def __init__(self):
        super().__init__()
        try:
            import numba
        except ImportError as e:
            self.available, self.note = False, f"numba not installed ({e})"
            return
        self.note = f"srcgrad backend='numba' on numba {numba.__version__}"
        self.refused = {}

    def make(self, case):
        import srcgrad as sg
        if case.kind != "grad" or case.order != 1:
            raise NotApplicable
        g = sg.grad(case.fn, wrt=case.sg_wrt(), backend="numba")
        args = case.args
        try:
            g(*args)  # (compiles; a refusal is a CompileError here)
        except sg.CompileError as e:
            self.refused[case.id] = str(e).split(" (")[0]
            raise NotApplicable from None
        thunk = lambda: g(*args)
        return thunk, thunk


class Autograd(Column):
    name = "autograd"

    def __init__(self):
        super().__init__()
        try:
            import autograd
            import autograd.numpy as anp
        except ImportError as e:
            self.available, self.note = False, f"autograd not installed ({e})"
            return
        self.autograd = autograd
        self.ns = load_workloads_with(anp, "autograd")
        self.note = f"autograd {_version('autograd')}"

    def make(self, case):
        f = self.ns[case.fn_name]
        grad = self.autograd.grad
        if case.kind == "jacobian":
            g = self.autograd.jacobian(f, case.sg_wrt())
        elif case.kind != "grad":
            raise NotApplicable
        elif case.order == 2:
            g = grad(grad(f))
        else:
            g = grad(f, case.sg_wrt())
        args = case.args
        thunk = lambda: g(*args)
        return thunk, thunk


def _jax():
    import jax
    jax.config.update("jax_enable_x64", True)  # the workloads are float64
    import jax.numpy as jnp
    return jax, jnp


class _JaxBase(Column):
    jit = False

    def __init__(self):
        super().__init__()
        try:
            self.jax, jnp = _jax()
        except Exception as e:  # noqa: BLE001 - ImportError, or a broken install
            self.available, self.note = False, f"jax not installed ({type(e).__name__}: {e})"
            return
        self.jnp = jnp
        self.ns = load_workloads_with(jnp, "jax")
        self.note = f"jax {self.jax.__version__} (x64, CPU)"

    def make(self, case):
        jax, jnp = self.jax, self.jnp
        f = self.ns[case.fn_name]
        if case.kind == "jacobian":
            g = jax.jacrev(f, argnums=case.sg_wrt())
        elif case.kind != "grad":
            raise NotApplicable
        elif case.order == 2:
            g = jax.grad(jax.grad(f))
        else:
            g = jax.grad(f, argnums=case.sg_wrt())
        if self.jit:
            g = jax.jit(g, static_argnums=case.static)
        # arrays live on the device before timing starts; Python scalars stay
        args = tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in case.args)
        block = jax.block_until_ready
        thunk = lambda: block(g(*args))
        return thunk, thunk


class JaxGrad(_JaxBase):
    name = "jax.grad"


class JaxJit(_JaxBase):
    name = "jax.jit"
    jit = True


# PyTorch is not NumPy-compatible in its names, so its versions of the
# workloads are written here, line for line the same computations.
def _torch_workloads(torch):
    def rosenbrock_loop(x):
        s = 0.0
        for i in range(len(x) - 1):
            s = s + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
        return s

    def logistic_loss(w, b, X, y):
        margins = y * (X @ w + b)
        return torch.mean(torch.logaddexp(torch.zeros_like(margins), -margins))

    def mlp_loss(W1, b1, W2, b2, X, labels):
        h = torch.tanh(X @ W1 + b1)
        logits = h @ W2 + b2
        shifted = logits - torch.max(logits, dim=1, keepdim=True).values
        log_probs = shifted - torch.log(torch.sum(torch.exp(shifted), dim=1, keepdim=True))
        return -torch.mean(log_probs[torch.arange(X.shape[0]), labels])

    def rnn_loss(Wx, Wh, b, Wo, xs, target):
        h = torch.zeros((xs.shape[1], Wh.shape[0]), dtype=xs.dtype)
        for t in range(xs.shape[0]):
            h = torch.tanh(xs[t] @ Wx + h @ Wh + b)
        prediction = h @ Wo
        return torch.mean((prediction - target) ** 2)

    def lotka_volterra(state, p):
        prey, predator = state[0], state[1]
        alpha, beta, gamma, delta = p[0], p[1], p[2], p[3]
        return torch.stack([alpha * prey - beta * prey * predator,
                            delta * prey * predator - gamma * predator])

    def rk4_loss(p, y0, dt, steps):
        y = y0
        for _ in range(steps):
            k1 = lotka_volterra(y, p)
            k2 = lotka_volterra(y + 0.5 * dt * k1, p)
            k3 = lotka_volterra(y + 0.5 * dt * k2, p)
            k4 = lotka_volterra(y + dt * k3, p)
            y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        return torch.sum((y - 1.0) ** 2)

    def scalar_recurrence(a):
        s = a
        for _ in range(100):
            s = torch.sin(s) * a + 0.5 * s
        return s

    def tanh_net(W1, W2, x):
        return torch.tanh(W2 @ torch.tanh(W1 @ x))

    return {"rosenbrock_loop": rosenbrock_loop, "logistic_loss": logistic_loss,
            "mlp_loss": mlp_loss, "rnn_loss": rnn_loss, "rk4_loss": rk4_loss,
            "scalar_recurrence": scalar_recurrence, "tanh_net": tanh_net}


class Torch(Column):
    name = "torch"

    def __init__(self):
        super().__init__()
        try:
            import torch
        except Exception as e:  # noqa: BLE001
            self.available, self.note = False, f"torch not installed ({type(e).__name__}: {e})"
            return
        self.torch = torch
        self.fns = _torch_workloads(torch)
        self.note = f"torch {torch.__version__} (eager, CPU, {torch.get_num_threads()} threads)"

    def _tensor(self, value, requires_grad):
        torch = self.torch
        if isinstance(value, np.ndarray):
            if np.issubdtype(value.dtype, np.floating):
                return torch.tensor(value, dtype=torch.float64, requires_grad=requires_grad)
            return torch.from_numpy(value)
        if isinstance(value, float):
            return torch.tensor(value, dtype=torch.float64, requires_grad=requires_grad)
        return value  # ints: step counts

    def make(self, case):
        if case.kind not in ("grad", "jacobian"):
            raise NotApplicable
        torch = self.torch
        f = self.fns.get(case.fn_name)
        if f is None:  # a style written for NumPy users only (float state, parameter dicts)
            raise NotApplicable
        if case.kind == "jacobian":
            # the functional API differentiates its own copy of the inputs
            args = [self._tensor(a, False) for a in case.args]
            (i,) = case.wrt
            jacobian = torch.autograd.functional.jacobian

            def thunk():
                return jacobian(lambda v: f(*args[:i], v, *args[i + 1:]), args[i],
                                vectorize=True)
            return thunk, thunk
        args = [self._tensor(a, i in case.wrt) for i, a in enumerate(case.args)]
        if case.order == 2:
            a = args[0]

            def thunk():
                (g,) = torch.autograd.grad(f(a), a, create_graph=True)
                return torch.autograd.grad(g, a)
            return thunk, thunk
        sources = [args[i] for i in case.wrt]

        def thunk():
            return torch.autograd.grad(f(*args), sources)
        return thunk, thunk


class Tangent(Column):
    name = "tangent"

    def __init__(self):
        super().__init__()
        try:
            import tangent
        except Exception as e:  # noqa: BLE001
            self.available, self.note = False, f"tangent not installed ({type(e).__name__}: {e})"
            return
        self.tangent = tangent
        self.note = f"tangent {_version('tangent')}"

    def make(self, case):
        if case.kind != "grad":
            raise NotApplicable
        tangent = self.tangent
        if case.order == 2:
            g = tangent.grad(tangent.grad(case.fn))
        else:
            g = tangent.grad(case.fn, wrt=case.wrt)
        args = case.args
        thunk = lambda: g(*args)
        return thunk, thunk


OPTIONAL = [SrcgradNumba, Autograd, JaxGrad, JaxJit, Torch, Tangent]


def all_columns():
    """The core columns, then every optional one (available or not)."""
    columns = [Forward(), Hand(), Srcgrad(), SrcgradLoop()]
    for cls in OPTIONAL:
        try:
            columns.append(cls())
        except Exception as e:  # noqa: BLE001 - a column must never take the run down
            col = Column.__new__(cls)
            Column.__init__(col)
            col.available, col.note = False, f"{cls.name} failed to load: {type(e).__name__}: {e}"
            columns.append(col)
    return columns


if __name__ == "__main__":  # pragma: no cover - a quick look at what is available
    for col in all_columns():
        print(f"{col.name:10s} {'yes' if col.available else 'no ':3s} {col.note}", file=sys.stdout)
