"""Random valid Python + NumPy programs ``f(x, ...)`` returning a float64 scalar.

``generate(name, enabled)`` is deterministic in ``name``. Each program draws
one to four of the ``enabled`` families (see features.py) and builds 4-14
statements of f from their builders (statements.py) and the core
assignments, then a ``return`` that reads the values the constructs
produced. Inputs are arrays of a few shapes (1-sized axes with
``broadcast``), Python floats and 0-d arrays (with ``scalars``), with three
decimals so that reproducers print them exactly.
"""
import random

import numpy as np

from .context import Ctx
from .program import Program
from .scope import Var
from .statements import BUILDERS

PARAMS = ("x", "y", "z")
ARRAY_SHAPES = ((3,), (4,), (2, 3), (3, 2), (2,))
BROADCAST_SHAPES = ((1, 3), (2, 1), (3, 1))


def generate(name, enabled):
    rng = random.Random(name)
    pool = sorted(enabled)
    ctx = Ctx(rng, rng.sample(pool, rng.randint(1, min(4, len(pool)))))
    args = [_parameter(ctx, p) for p in PARAMS[:rng.choices((1, 2, 3), (4, 4, 2))[0]]]
    families = ["core"] + [f for f in sorted(ctx.active) if f in BUILDERS]
    target = rng.randint(4, 14)
    for _ in range(60):
        if ctx.count >= target:
            break
        family = rng.choice(families)
        rng.choice(BUILDERS[family])(ctx)
    _finish(ctx)
    params = ", ".join(PARAMS[:len(args)])
    source = "\n\n\n".join(ctx.helpers + [f"def f({params}):\n" + "\n".join(ctx.lines)])
    return Program(name, source + "\n", tuple(args), frozenset(ctx.used))


def _parameter(ctx, name):
    rng = ctx.rng
    shapes = list(ARRAY_SHAPES)
    if ctx.on("broadcast"):
        shapes += BROADCAST_SHAPES
    if ctx.on("scalars"):
        shapes += [(), ()]
    shape = rng.choice(shapes)
    ctx.scope.bind(name, Var(shape, owned=False, shared=True))
    ctx.params.add(name)
    values = [_number(rng) for _ in range(int(np.prod(shape)))]
    if shape == ():
        ctx.use("scalars")
        return values[0] if rng.random() < 0.5 else np.array(values[0])
    return np.array(values).reshape(shape)


def _number(rng):
    # away from 0, where abs and friends have their kinks
    return round(rng.choice((-1, 1)) * rng.uniform(0.1, 1.5), 3)


def _finish(ctx):
    """The final return; with early_return, sometimes an if/else of two returns."""
    if ctx.on("early_return") and ctx.rng.random() < 0.3:
        ctx.use("early_return")
        with ctx.block(f"if {ctx.exprs.cond()}:"):
            ctx.emit(f"return {ctx.return_value()}")
        with ctx.block("else:"):
            ctx.emit(f"return {ctx.return_value()}")
        return
    ctx.emit(f"return {ctx.return_value()}")
