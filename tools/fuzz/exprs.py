"""Random expressions of a requested shape.

``Exprs.expr(shape, depth)`` returns an expression whose value has exactly
``shape``. Leaves are variables in scope (newest preferred, so that data
flows through the statements) or literals; inner nodes are arithmetic,
elementwise math, and shape-changing operations (reductions, indexing,
reshapes, products), each from the feature family that owns it. A family
that is not active for the program is never used; one that is used is
recorded with ``ctx.use`` so that ``Program.features`` is exact.

Values stay finite and away from domain edges by construction: ``log``,
``sqrt``, divisors and fractional powers only see ``positive(e)`` forms
(``e * e + 0.5``, ``np.cosh(e)`` ...), ``exp`` only sees bounded arguments.
"""
from dataclasses import dataclass

from .scope import broadcast_operand_shapes, broadcast_pair, broadcasts_to, size

# Precedence levels as in Python's grammar: an operand is parenthesised when
# its level is below the one its position needs.
IFEXP, CMP, ADD, MUL, UNARY, POWER, ATOM = range(7)

CONSTANTS = (0.5, 1.5, 2.0, 0.3, 0.7, 1.2, 0.25, 0.8)


@dataclass(frozen=True)
class E:
    code: str
    shape: tuple
    prec: int = ATOM
    owned: bool = True     # see scope.Var
    writable: bool = True
    base: tuple = ()       # the variables whose memory the value may share


def par(e, level):
    return e.code if e.prec >= level else f"({e.code})"


def fresh(code, shape, prec=ATOM):
    """A newly computed value."""
    return E(code, shape, prec)


def view(code, shape, src, writable=True):
    """A value that may share memory with ``src`` (a scalar result never does)."""
    if shape == ():
        return E(code, shape)
    return E(code, shape, ATOM, src.owned, src.writable and writable, src.base)


def dims(shape):
    """``shape`` as call arguments: ``(2, 3)`` or ``(3,)``."""
    return f"({shape[0]},)" if len(shape) == 1 else repr(tuple(shape))


class Exprs:
    def __init__(self, ctx):
        self.ctx = ctx
        self.rng = ctx.rng

    # ------------------------------------------------------------ entry points

    def expr(self, shape, depth=2):
        ctx, rng = self.ctx, self.rng
        options = [(3.0, self.leaf)]
        if depth > 0:
            options.append((3.0, self.arith))
            options.append((1.5, self.derive))
            if ctx.on("elementwise"):
                options += [(2.0, self.unary), (1.0, self.binary_math)]
            if ctx.on("branches"):
                options.append((0.4, self.ifexp))
            if ctx.on("scalars") and shape == ():
                options.append((1.0, self.math_call))
        weights, fns = zip(*options)
        return rng.choices(fns, weights)[0](shape, depth)

    def literal(self):
        c = self.rng.choice(CONSTANTS)
        if self.rng.random() < 0.2:
            return E(f"-{c}", (), UNARY)
        return E(repr(c), ())

    def cond(self):
        """A data-dependent condition: a scalar compared with a constant."""
        rng = self.rng
        lhs = self.scalar_summary()
        text = f"{par(lhs, ADD)} {rng.choice(['>', '<'])} {rng.choice([0.0, 0.2, -0.3, 0.5, 1.0])}"
        if rng.random() < 0.15:
            other = self.scalar_summary()
            text = f"{text} {rng.choice(['and', 'or'])} {par(other, ADD)} > -0.5"
        return text

    def scalar_summary(self):
        """A cheap scalar view of some variable, for conditions and return values."""
        name, var = self.pick_var()
        if var.shape == ():
            return E(self.ctx.read(name), ())
        return E(f"np.{self.rng.choice(['sum', 'mean'])}({self.ctx.read(name)})", ())

    def pick_var(self, pred=lambda name, var: True):
        """A visible (name, var) satisfying ``pred``, newer ones likelier; None if none."""
        pairs = [(n, v) for n, v in self.ctx.scope.visible().items() if pred(n, v)]
        if not pairs:
            return None
        return self.rng.choices(pairs, range(1, len(pairs) + 1))[0]

    # ------------------------------------------------------------ leaves

    def leaf(self, shape, depth=0):
        exact = self.pick_var(lambda n, v: v.shape == shape)
        if shape == () and self.rng.random() < 0.15:
            return self.literal()
        if exact is None or self.rng.random() < 0.15:
            return self.derive(shape, 0)
        return self.name(*exact)

    def name(self, name, var):
        return E(self.ctx.read(name), var.shape, ATOM, var.owned, var.writable, (name,))

    # ------------------------------------------------------------ arithmetic

    def arith(self, shape, depth):
        ctx, rng = self.ctx, self.rng
        op = rng.choice(["+", "-", "*"])
        sa, sb = shape, rng.choice([shape, ()])
        if ctx.on("broadcast") and shape and rng.random() < 0.6:
            if rng.random() < 0.5:
                sa, sb = broadcast_pair(shape, rng)
            else:
                sb = broadcast_operand_shapes(shape, rng)
        a = self.expr(sa, depth - 1)
        b = self.expr(sb, depth - 1)
        if sb == () and rng.random() < 0.4 and "np." in a.code + b.code:
            b = self.literal()  # a constant factor, but never constant op constant
        if {a.shape, b.shape} - {shape, ()}:
            ctx.use("broadcast")
        if rng.random() < 0.5:
            a, b = b, a
        level = ADD if op != "*" else MUL
        return fresh(f"{par(a, level)} {op} {par(b, level + 1)}", shape, level)

    # ------------------------------------------------------------ elementwise math

    def positive(self, e):
        """An expression of ``e`` that is >= 0.5 everywhere."""
        forms = [f"{par(e, MUL)} * {par(e, MUL + 1)} + 0.5", f"np.cosh({e.code})",
                 f"1.5 + np.sin({e.code})", f"np.exp(np.tanh({e.code}))"]
        k = self.rng.randrange(len(forms))
        return fresh(forms[k], e.shape, ADD if k in (0, 2) else ATOM)

    def unary(self, shape, depth):
        self.ctx.use("elementwise")
        e = self.expr(shape, depth - 1)
        c = e.code
        k = self.rng.randrange(15)
        if k < 4:
            return fresh(f"np.{['sin', 'cos', 'tanh', 'arctan'][k]}({c})", shape)
        if k == 4:
            return fresh(f"np.exp(np.tanh({c}))", shape)
        if k == 5:
            return fresh(f"np.exp(-{par(e, UNARY)} * {par(e, MUL + 1)})", shape, MUL)
        if k in (6, 7):
            return fresh(f"np.{['log', 'sqrt'][k - 6]}({self.positive(e).code})", shape)
        if k == 8:
            return fresh(f"np.log1p({par(e, MUL)} * {par(e, MUL + 1)})", shape)
        if k == 9:
            return fresh(f"{par(self.positive(e), ATOM)} ** 1.5", shape, POWER)
        if k == 10:
            return fresh(f"{par(e, ATOM)} ** {self.rng.choice([2, 3])}", shape, POWER)
        if k == 11:
            return fresh(f"np.{self.rng.choice(['square', 'abs'])}({c})", shape)
        if k == 12:
            return fresh(f"np.clip({c}, -0.8, 0.8)", shape)
        if k == 13:
            return fresh(f"-{par(e, UNARY)}", shape, UNARY)
        return fresh(f"1.0 / {par(self.positive(e), POWER)}", shape, MUL)

    def binary_math(self, shape, depth):
        ctx, rng = self.ctx, self.rng
        ctx.use("elementwise")
        a = self.expr(shape, depth - 1)
        sb = shape
        if ctx.on("broadcast") and shape and rng.random() < 0.5:
            sb = broadcast_operand_shapes(shape, rng)
            ctx.use("broadcast")
        b = self.expr(sb, depth - 1)
        k = rng.randrange(5)
        if k == 0:
            return fresh(f"{par(a, MUL)} / {par(self.positive(b), MUL + 1)}", shape, MUL)
        if k in (1, 2):
            if a.code == b.code:  # np.maximum(v, v) ties everywhere: a kink, not a test
                b = fresh(f"{par(b, MUL)} * 0.5", b.shape, MUL)
            return fresh(f"np.{['maximum', 'minimum'][k - 1]}({a.code}, {b.code})", shape)
        if k == 3:
            other = self.expr(shape, depth - 1)
            return fresh(f"np.where({par(a, ADD)} > {par(b, ADD)}, {other.code}, {b.code})",
                         shape)
        return fresh(f"np.logaddexp({a.code}, {b.code})", shape)

    def math_call(self, shape, depth):
        self.ctx.use("scalars")
        e = self.expr((), depth - 1)
        k = self.rng.randrange(6)
        if k < 3:
            return fresh(f"math.{['sin', 'cos', 'tanh'][k]}({e.code})", ())
        if k == 3:
            return fresh(f"math.sqrt({par(e, MUL)} * {par(e, MUL + 1)} + 1.0)", ())
        if k == 4:
            return fresh(f"math.exp(math.tanh({e.code}))", ())
        return fresh(f"float({e.code})", ())

    def ifexp(self, shape, depth):
        self.ctx.use("branches")
        a, b = self.expr(shape, depth - 1), self.expr(shape, depth - 1)
        return E(f"{par(a, CMP)} if {self.cond()} else {par(b, CMP)}", shape, IFEXP,
                 a.owned and b.owned, a.writable and b.writable, a.base + b.base)

    # ------------------------------------------------------------ shape changes

    def derive(self, shape, depth):
        """``shape`` from a variable (or an expression) of another shape."""
        ctx, rng = self.ctx, self.rng
        candidates = []
        for t in {v.shape for v in ctx.scope.visible().values()}:
            candidates += [(t, op) for op in self.shape_ops(t, shape)]
        if depth > 0:
            candidates += [(None, op) for op in self.combining_ops(shape, depth)]
        if not candidates:
            exact = self.pick_var(lambda n, v: v.shape == shape)
            return self.name(*exact) if exact else self.fallback(shape)
        t, (feature, op) = rng.choice(candidates)
        if feature:
            ctx.use(feature)
        if t is None:
            return op()
        if depth > 0 and rng.random() < 0.3:
            src = self.expr(t, depth - 1)
        else:
            src = self.name(*self.pick_var(lambda n, v: v.shape == t))
        return op(src)

    def fallback(self, shape):
        """Always possible: reduce or broadcast a variable (plain arithmetic only)."""
        if shape == ():
            return self.literal()
        name, var = self.pick_var()
        v = self.ctx.read(name)
        if broadcasts_to(var.shape, shape):
            return fresh(f"{v} * np.ones({dims(shape)})", shape, MUL)
        return fresh(f"np.mean({v}) * np.ones({dims(shape)})", shape, MUL)

    def shape_ops(self, t, s):
        """Ways to turn a value of shape ``t`` into one of shape ``s``: (feature, fn)."""
        ops = []
        if s == () and t != ():
            ops.append((None, lambda e: fresh(f"np.{self.rng.choice(['sum', 'mean'])}({e.code})",
                                              ())))
        if self.ctx.on("reduce"):
            ops += [("reduce", op) for op in self.reductions(t, s)]
        if self.ctx.on("index_read"):
            ops += [("index_read", op) for op in self.index_reads(t, s)]
        if self.ctx.on("shape_ops"):
            ops += [("shape_ops", op) for op in self.reshapes(t, s)]
        return ops

    def reductions(self, t, s):
        rng = self.rng
        fn = lambda: rng.choice(["sum", "mean", "prod", "max", "min"])  # noqa: E731
        ops = []
        if s == () and t != ():
            ops.append(lambda e: fresh(f"np.{fn()}({e.code})", ()))
            ops.append(lambda e: fresh(f"{par(e, ATOM)}.{rng.choice(['sum', 'mean', 'max'])}()",
                                       ()))
            if len(t) == 1:
                ops.append(lambda e: fresh(f"{rng.choice(['sum', 'max', 'min'])}({e.code})", ()))
        for k in range(len(t)):
            axis = rng.choice([k, k - len(t)])
            if t[:k] + t[k + 1:] == s:
                ops.append(lambda e, a=axis: fresh(f"np.{fn()}({e.code}, axis={a})", s))
                ops.append(lambda e, a=axis: fresh(f"{par(e, ATOM)}.{fn()}(axis={a})", s))
            if t[k] != 1 and t[:k] + (1,) + t[k + 1:] == s:
                ops.append(lambda e, a=axis: fresh(
                    f"np.{fn()}({e.code}, axis={a}, keepdims=True)", s))
        return ops

    def index_reads(self, t, s):
        rng = self.rng
        ops = []
        if not t:
            return ops
        n0 = t[0]
        if t[1:] == s:
            ops.append(lambda e: view(f"{par(e, ATOM)}[{rng.randint(-n0, n0 - 1)}]", s, e))
        if len(t) == 2 and s == (n0,):
            ops.append(lambda e: view(f"{par(e, ATOM)}[:, {rng.randint(-t[1], t[1] - 1)}]", s, e))
        if len(t) == 2 and s == ():
            ops.append(lambda e: fresh(
                f"{par(e, ATOM)}[{rng.randrange(n0)}, {rng.randint(-t[1], t[1] - 1)}]", ()))
        if s == ():
            ops.append(lambda e: fresh(
                f"np.sum({par(e, ATOM)}[{par(e, CMP + 1)} > {rng.choice([0.0, 0.3, -0.2])}])", ()))
        if len(s) == len(t) and s[1:] == t[1:]:
            ops += [lambda e, k=k: self.axis0_subset(e, s[0], k) for k in range(3)]
        if len(t) == 2 and len(s) == 2 and s[0] == n0:
            ops.append(lambda e: fresh(
                f"{par(e, ATOM)}[:, {[rng.randrange(t[1]) for _ in range(s[1])]}]", s))
        return ops

    def axis0_subset(self, e, n, how):
        """``e`` restricted to ``n`` entries along axis 0: a slice, fancy index or mask."""
        rng = self.rng
        m = e.shape[0]
        src = par(e, ATOM)
        if how == 0:
            slices = [f"{s}:{s + n}" for s in range(m - n + 1)]
            slices += [f":{n}"] if n <= m else []
            slices += [f"-{n}:"] if n < m else []
            slices += ["::2"] if (m + 1) // 2 == n else []
            slices += ["1::2"] if m // 2 == n else []
            slices += ["::-1"] if m == n else []
            if slices:
                return view(f"{src}[{rng.choice(slices)}]", (n,) + e.shape[1:], e)
        if how == 2 and n <= m:
            picked = set(rng.sample(range(m), n))
            mask = ", ".join(str(i in picked) for i in range(m))
            return fresh(f"{src}[np.array([{mask}])]", (n,) + e.shape[1:])
        index = [rng.randint(-m, m - 1) for _ in range(n)]
        if n >= 2 and rng.random() < 0.5:
            index[rng.randrange(1, n)] = index[0]  # repeated indices: adjoints must add up
        text = repr(index) if rng.random() < 0.5 else f"np.array({index})"
        return fresh(f"{src}[{text}]", (n,) + e.shape[1:])

    def reshapes(self, t, s):
        rng = self.rng
        ops = []
        if len(t) == 2 and s == t[::-1]:
            ops.append(lambda e: view(
                rng.choice([f"{par(e, ATOM)}.T", f"np.transpose({e.code})"]), s, e))
        if size(t) == size(s) and t != s and t and s:
            shape_text = ", ".join(map(str, s))
            ops.append(lambda e: view(rng.choice(
                [f"{par(e, ATOM)}.reshape({shape_text})", f"np.reshape({e.code}, {dims(s)})"]
                + ([f"{par(e, ATOM)}.ravel()", f"{par(e, ATOM)}.reshape(-1)"] if len(s) == 1
                   else [])), s, e))
        for k in range(len(t) + 1):
            if t[:k] + (1,) + t[k:] == s:
                ops.append(lambda e, k=k: view(f"np.expand_dims({e.code}, {k})", s, e))
        for k in range(len(t)):
            if t[k] == 1 and t[:k] + t[k + 1:] == s:
                ops.append(lambda e, k=k: view(f"np.squeeze({e.code}, axis={k})", s, e))
        if t != s and s and broadcasts_to(t, s):
            ops.append(lambda e: view(f"np.broadcast_to({e.code}, {dims(s)})", s, e,
                                      writable=False))
        if t == s and s:
            ops.append(lambda e: view(f"np.flip({e.code}, axis={rng.randrange(len(s))})", s, e))
        return ops

    def combining_ops(self, s, depth):
        """Shape changes that combine several sub-expressions: (feature, thunk)."""
        ops = []
        if self.ctx.on("shape_ops") and s:
            if s[0] >= 2:
                ops.append(("shape_ops", lambda: self.concatenate(s, depth)))
            if s[0] <= 4:
                ops.append(("shape_ops", lambda: self.stack(s, depth)))
        if self.ctx.on("matmul") and len(s) <= 2:
            ops.append(("matmul", lambda: self.product(s, depth)))
        return ops

    def concatenate(self, s, depth):
        # split where a variable has the shape of one part, if one does
        shapes = {v.shape for v in self.ctx.scope.visible().values()}
        splits = [k for k in range(1, s[0]) if (k,) + s[1:] in shapes] or range(1, s[0])
        k = self.rng.choice(splits)
        a, b = self.expr((k,) + s[1:], depth - 1), self.expr((s[0] - k,) + s[1:], depth - 1)
        return fresh(f"np.concatenate([{a.code}, {b.code}])", s)

    def stack(self, s, depth):
        parts = ", ".join(self.expr(s[1:], depth - 1).code for _ in range(s[0]))
        if s[1:] == () and self.rng.random() < 0.5:
            return fresh(f"np.array([{parts}])", s)
        return fresh(f"np.stack([{parts}])", s)

    def product(self, s, depth):
        rng = self.rng
        # an inner dimension that some vector in scope has, if one does
        sizes = [v.shape[0] for v in self.ctx.scope.visible().values() if len(v.shape) == 1]
        n = rng.choice(sizes or [2, 3])
        sub = lambda shape: self.expr(shape, depth - 1)  # noqa: E731
        if s == ():
            a, b = sub((n,)), sub((n,))
            return rng.choice([fresh(f"{par(a, MUL)} @ {par(b, MUL + 1)}", s, MUL),
                               fresh(f"np.dot({a.code}, {b.code})", s)])
        if len(s) == 1:
            if rng.random() < 0.5:
                a, b = sub(s + (n,)), sub((n,))
                return rng.choice([fresh(f"{par(a, MUL)} @ {par(b, MUL + 1)}", s, MUL),
                                   fresh(f"np.einsum('ij,j->i', {a.code}, {b.code})", s)])
            a, b = sub((n,)), sub((n,) + s)
            return fresh(f"{par(a, MUL)} @ {par(b, MUL + 1)}", s, MUL)
        if rng.random() < 0.3:
            return fresh(f"np.outer({sub(s[:1]).code}, {sub(s[1:]).code})", s)
        a, b = sub((s[0], n)), sub((n, s[1]))
        return rng.choice([fresh(f"{par(a, MUL)} @ {par(b, MUL + 1)}", s, MUL),
                           fresh(f"np.einsum('ij,jk->ik', {a.code}, {b.code})", s)])
