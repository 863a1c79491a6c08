"""Builders for values in structures: tuple unpacking and swaps, containers, scalars."""
from .exprs import MUL, par
from .scope import Var


def tuple_assign(ctx):
    """``p, q = e1, e2`` (sometimes nested, or from a tuple-valued name)."""
    rng = ctx.rng
    ctx.use("unpack")
    shapes = [ctx.pick_shape() for _ in range(rng.randint(2, 3))]
    values = [ctx.expr(s) for s in shapes]
    names = [ctx.fresh_name() for _ in shapes]
    if len(names) == 3 and rng.random() < 0.5:
        ctx.emit(f"({names[0]}, {names[1]}), {names[2]} = "
                 f"({values[0].code}, {values[1].code}), {values[2].code}")
    elif rng.random() < 0.3:
        t = ctx.fresh_name()
        ctx.emit(f"{t} = ({', '.join(v.code for v in values)})")
        ctx.emit(f"{', '.join(names)} = {t}")
    else:
        ctx.emit(f"{', '.join(names)} = {', '.join(v.code for v in values)}")
    for n, v in zip(names, values):
        ctx.bind(n, v)
    ctx.want(names[-1])
    return True


def swap(ctx):
    """``a, b = b, a`` (or ``a, b = b, a + b``)."""
    rng = ctx.rng
    visible = ctx.scope.visible()
    top = ctx.scope.function
    pairs = [(a, b) for a in visible for b in visible if a < b
             and a.isidentifier() and b.isidentifier()
             and (visible[a].shape == visible[b].shape
                  or top and a in ctx.scope.vars and b in ctx.scope.vars
                  and not {a, b} & ctx.captured)
             and ctx.changeable(a, visible[b]) and ctx.changeable(b, visible[a])]
    if not pairs:
        return False
    ctx.use("unpack")
    a, b = rng.choice(pairs)
    va, vb = visible[a], visible[b]
    ctx.read(a), ctx.read(b)
    if va.shape == vb.shape and rng.random() < 0.4 and ctx.changeable(b, Var(va.shape)):
        ctx.emit(f"{a}, {b} = {b}, {a} + {b}")
        ctx.bind(a, vb)
        ctx.bind(b, Var(va.shape))
    else:
        ctx.emit(f"{a}, {b} = {b}, {a}")
        ctx.bind(a, vb)
        ctx.bind(b, va)
    ctx.want(a)
    ctx.want(b)
    return True


def container(ctx):
    """A dict, list or tuple of arrays; its entries become readable leaves."""
    rng = ctx.rng
    ctx.use("containers")
    name = ctx.fresh_name()
    kind = rng.choice(["dict", "list", "tuple"])
    shape = ctx.pick_shape()
    n = rng.randint(2, 3)
    values = [ctx.expr(shape if kind == "list" else ctx.pick_shape(), 1) for _ in range(n)]
    for v in values:
        for base in v.base:
            ctx.scope.mark_shared(base)
    if kind == "dict":
        keys = ["w", "b", "s"][:n]
        ctx.emit(f"{name} = {{{', '.join(f'{k!r}: {v.code}' for k, v in zip(keys, values))}}}")
        # The compiler reads a dict's items as the names they were built from unless
        # the dict may change: read it through a copy of its name, and write an item.
        names = [name]
        if rng.random() < 0.3:
            alias = ctx.fresh_name()
            ctx.emit(f"{alias} = {ctx.read(name)}")
            names.append(alias)
        if rng.random() < 0.3:
            k = rng.randrange(n)
            values[k] = ctx.expr(ctx.pick_shape(), 1)
            for base in values[k].base:
                ctx.scope.mark_shared(base)
            ctx.emit(f"{ctx.read(rng.choice(names))}[{keys[k]!r}] = {values[k].code}")
        entries = [f"{rng.choice(names)}[{k!r}]" for k in keys]
    else:
        body = ", ".join(v.code for v in values)
        ctx.emit(f"{name} = [{body}]" if kind == "list" else f"{name} = ({body},)")
        entries = [f"{name}[{rng.choice([i, i - n])}]" for i in range(n)]
    for entry, v in zip(entries, values):
        ctx.scope.add_item(entry, Var(v.shape, owned=False, shared=True, item=True))
    out = ctx.fresh_name()
    if kind == "list" and rng.random() < 0.5:
        combine = rng.choice(["sum", "np.stack"])
        ctx.emit(f"{out} = {combine}({ctx.read(name)})")
        ctx.bind(out, Var(shape if combine == "sum" else (n,) + shape))
    elif kind == "list" and rng.random() < 0.5:
        item = ctx.fresh_name()
        ctx.emit(f"{out} = 0.0")
        with ctx.block(f"for {item} in {ctx.read(name)}:"):
            ctx.emit(f"{out} = {out} + np.sum({item} * {item})")
        ctx.bind(out, Var(()))
    else:
        e = ctx.expr(ctx.pick_shape(), 2)
        ctx.emit(f"{out} = {e.code}")
        ctx.bind(out, e)
    ctx.want(out)
    return True


def scalar_accumulate(ctx):
    """Python float accumulators and 0-d arrays mixed with NumPy scalars."""
    rng = ctx.rng
    ctx.use("scalars")
    name = ctx.fresh_name()
    if rng.random() < 0.5:
        ctx.emit(f"{name} = 0.0")
        ctx.bind(name, Var(()))
        ctx.emit(f"{name} += {ctx.expr((), 2).code}")
    else:
        ctx.emit(f"{name} = np.array({ctx.fresh_expr((), 1).code})")
        ctx.bind(name, Var(()))
        ctx.emit(f"{name} = {ctx.read(name)} * {par(ctx.expr((), 1), MUL + 1)} + 0.5")
    ctx.want(name)
    return True
