"""Core builders: assignments and updates, used by every family and inside blocks."""
from .exprs import ADD, dims, par
from .scope import Var


def assign(ctx):
    """``name = expr``: a new name, or an existing one rebound to the same shape."""
    shape = ctx.pick_shape()
    e = ctx.expr(shape)
    target = ctx.pick(lambda n, v: v.shape == shape and n not in ctx.wanted
                      and ctx.changeable(n, Var(shape)))
    if target is not None and ctx.rng.random() < 0.3:
        name = target[0]
        if not ctx.scope.can_rebind(name, Var(shape, e.owned, e.writable)):
            e = ctx.fresh_expr(shape)
    else:
        name = ctx.fresh_name()
    if ctx.rng.random() < 0.1:  # an annotated assignment: the same binding
        ctx.emit(f"{name}: {'float' if shape == () else 'np.ndarray'} = {e.code}")
    else:
        ctx.emit(f"{name} = {e.code}")
    ctx.bind(name, e)
    return True


def augassign(ctx):
    """``v += expr`` on an array of f's own that nothing else shares."""
    target = ctx.pick(lambda n, v: v.updatable and not v.shared and n not in ctx.frozen)
    if target is None:
        return False
    name, var = target
    op = ctx.rng.choice(["+=", "-=", "*="])
    ctx.emit(f"{name} {op} {ctx.expr(ctx.operand_shape(var.shape)).code}")
    return True


def simple(ctx):
    """A statement for loop and branch bodies and helper functions."""
    return assign(ctx) if ctx.rng.random() < 0.7 else augassign(ctx) or assign(ctx)


def update(ctx, name, shape, reads=()):
    """Fold a new value, reading ``reads``, into the accumulator ``name`` (bound outside)."""
    rng = ctx.rng
    e = ctx.expr(ctx.operand_shape(shape))
    for r in reads:
        e = ctx.reading(e, r)
    var = ctx.scope.lookup(name)
    k = rng.randrange(3)
    if k == 0 and var.updatable and not var.shared:
        ctx.emit(f"{name} {rng.choice(['+=', '-='])} {e.code}")
        return
    if k == 1:
        ctx.emit(f"{name} = {name} * 0.9 + {par(e, ADD + 1)}")
    else:
        ctx.emit(f"{name} = {name} {rng.choice(['+', '-'])} {par(e, ADD + 1)}")
    ctx.bind(name, Var(shape))


def accumulator(ctx):
    """A fresh accumulator for a loop: its name and shape."""
    shape = ctx.pick_shape()
    name = ctx.fresh_name()
    if ctx.rng.random() < 0.5:
        init = "0.0" if shape == () else f"np.zeros({dims(shape)})"
        ctx.emit(f"{name} = {init}")
        ctx.bind(name, Var(shape))
    else:
        e = ctx.fresh_expr(shape)
        ctx.emit(f"{name} = {e.code}")
        ctx.bind(name, e)
    ctx.want(name)
    return name, shape


def operand(ctx, shape):
    """The shape of a value written into a selection of ``shape`` (or a scalar)."""
    return ctx.rng.choice([shape, shape, ()]) if shape else ()
