"""Builders for control flow: branches, loops, loops over rebound names, early returns."""
from .core import accumulator, simple, update
from .scope import Var


def if_else(ctx):
    """``if/elif/else`` assigning one name in every arm."""
    rng = ctx.rng
    ctx.use("branches")
    shape = ctx.pick_shape()
    existing = ctx.pick(lambda n, v: v.shape == shape and ctx.changeable(n, Var(shape)))
    name = existing[0] if existing and rng.random() < 0.5 else ctx.fresh_name()
    headers = [f"if {ctx.exprs.cond()}:"]
    if rng.random() < 0.3:
        headers.append(f"elif {ctx.exprs.cond()}:")
    if existing is None or name != existing[0] or rng.random() < 0.7:
        headers.append("else:")  # a new name must be bound on every path
    for header in headers:
        with ctx.block(header):
            if rng.random() < 0.3:
                simple(ctx)
            e = ctx.fresh_expr(shape)
            ctx.emit(f"{name} = {e.code}")
            ctx.bind(name, e)
    if ctx.scope.lookup(name) is None:
        ctx.bind(name, Var(shape))
    ctx.want(name)
    return True


def _loop_body(ctx, acc, shape, reads):
    rng = ctx.rng
    if rng.random() < 0.3:
        simple(ctx)
    if rng.random() < 0.25:
        with ctx.block(f"if {ctx.exprs.cond()}:"):
            ctx.emit(rng.choice(["break", "continue"]))
    update(ctx, acc, shape, reads)
    if rng.random() < 0.15:
        with ctx.block(f"if {ctx.exprs.cond()}:"):
            ctx.emit("break")


def for_loop(ctx):
    """``for`` over range, an array, zip or enumerate, folding into an accumulator."""
    rng = ctx.rng
    arrays = [(n, v) for n, v in ctx.scope.visible().items() if v.shape]
    kind = rng.choice(["range", "rows", "zip", "enumerate"] if arrays else ["range"])
    ctx.use("loops")
    acc, shape = accumulator(ctx)
    if kind == "range":
        i = ctx.fresh_counter()
        n = rng.randint(2, 4)
        header = f"for {i} in {rng.choice([f'range({n})', f'range(1, {n})', f'range({n} - 1, -1, -1)'])}:"
        rows = []
    else:
        src, var = ctx.pick(lambda n, v: len(v.shape) >= 1 and n != acc) or arrays[-1]
        r = ctx.fresh_name()
        rows = [(r, src, var)]
        target, iterable = r, ctx.read(src)
        if kind == "zip":
            src2, var2 = ctx.pick(lambda n, v: len(v.shape) >= 1 and n != acc) or arrays[-1]
            r2 = ctx.fresh_name()
            rows.append((r2, src2, var2))
            target, iterable = f"{r}, {r2}", f"zip({src}, {ctx.read(src2)})"
        elif kind == "enumerate":
            target, iterable = f"{ctx.fresh_counter()}, {r}", f"enumerate({src})"
        header = f"for {target} in {iterable}:"
    frozen = set(ctx.frozen)
    with ctx.block(header):
        for r, src, var in rows:
            ctx.scope.mark_shared(src)
            ctx.frozen.add(src)
            ctx.bind(r, Var(var.shape[1:], var.owned, var.writable, shared=True))
        reads = [r for r, _, _ in rows]
        if kind == "range" and rng.random() < 0.5:
            indexed = ctx.pick(lambda n, v: len(v.shape) >= 1 and v.shape[0] >= 4)
            if indexed is not None:
                row = ctx.fresh_name()
                ctx.emit(f"{row} = {ctx.read(indexed[0])}[{i}]")
                ctx.bind(row, Var(indexed[1].shape[1:], shared=True, owned=False))
                reads.append(row)
        _loop_body(ctx, acc, shape, reads[:1])
    ctx.frozen = frozen
    _loop_else(ctx, acc, shape)
    return True


def _loop_else(ctx, acc, shape):
    """Sometimes an ``else`` after the loop: run when it ends without ``break``."""
    if ctx.rng.random() < 0.2:
        with ctx.block("else:"):
            update(ctx, acc, shape)


def while_loop(ctx):
    """A counted ``while`` (sometimes also data-dependent) with continue/break."""
    rng = ctx.rng
    ctx.use("loops")
    acc, shape = accumulator(ctx)
    k = ctx.fresh_counter()
    n = rng.randint(2, 4)
    ctx.emit(f"{k} = 0")
    test = f"{k} < {n}"
    if rng.random() < 0.3:
        test += f" and {ctx.summary(acc, Var(shape))} < 3.0"
    with ctx.block(f"while {test}:"):
        ctx.emit(f"{k} += 1")
        if rng.random() < 0.4:
            with ctx.block(f"if {k} == 2:"):
                ctx.emit("continue")
        _loop_body(ctx, acc, shape, ())
    _loop_else(ctx, acc, shape)
    return True


def rebind_loop(ctx):
    """``for p in a: a = a + p``: the loop iterates the old value of a rebound name."""
    rng = ctx.rng
    found = ctx.pick(lambda n, v: len(v.shape) >= 1 and ctx.changeable(n, Var(v.shape)))
    if found is None:
        return False
    ctx.use("rebind_loop")
    name, var = found
    p = ctx.fresh_name()
    if rng.random() < 0.3:
        header = f"for {ctx.fresh_counter()}, {p} in enumerate({ctx.read(name)}):"
    else:
        header = f"for {p} in {ctx.read(name)}:"
    with ctx.block(header):
        ctx.bind(p, Var(var.shape[1:], var.owned, var.writable, shared=True))
        ctx.emit(rng.choice([f"{name} = {name} + {p}", f"{name} = 0.5 * {name} + {p} * {p}",
                             f"{name} = {name} - 0.3 * {p}"]))
        ctx.bind(name, Var(var.shape))
        if rng.random() < 0.3:
            update(ctx, name, var.shape)
    ctx.want(name)
    return True


def early_return(ctx):
    """``if cond: return ...`` in the middle of f, or inside a loop over rows."""
    rng = ctx.rng
    ctx.use("early_return")
    arrays = ctx.pick(lambda n, v: len(v.shape) >= 1)
    if arrays is not None and rng.random() < 0.4:
        r = ctx.fresh_name()
        with ctx.block(f"for {r} in {ctx.read(arrays[0])}:"):
            ctx.bind(r, Var(arrays[1].shape[1:], False, shared=True))
            with ctx.block(f"if {ctx.exprs.cond()}:"):
                ctx.emit(f"return {ctx.return_value()}")
        return True
    with ctx.block(f"if {ctx.exprs.cond()}:"):
        if rng.random() < 0.4:
            simple(ctx)
        ctx.emit(f"return {ctx.return_value()}")
    return True


def try_except(ctx):
    """``try``/``except`` (sometimes ``as err``, an ``else``, inside a loop): the body
    raises on a data-dependent condition before its last statement, which binds a name
    the handler binds too; a value the body binds first is read by its last one, and
    sometimes by the handler and the code after the ``try`` (bound before the raise, as
    Python leaves it)."""
    rng = ctx.rng
    ctx.use("exceptions")
    exc = rng.choice(["ValueError", "ZeroDivisionError", "KeyError", "(ValueError, KeyError)"])
    if rng.random() < 0.4:
        acc, acc_shape = accumulator(ctx)
        with ctx.block(f"for {ctx.fresh_counter()} in range({rng.randint(2, 4)}):"):
            name = _try_statement(ctx, exc)
            update(ctx, acc, acc_shape, [name])
        return True
    ctx.want(_try_statement(ctx, exc))
    return True


def _try_statement(ctx, exc):
    rng = ctx.rng
    shape = ctx.pick_shape()
    name = ctx.fresh_name()
    first = None
    seen = rng.random() < 0.5  # (``first`` read by the handler and after the try too)
    with ctx.block("try:"):
        if rng.random() < 0.5:
            first = ctx.fresh_name()
            ctx.emit(f"{first} = {ctx.fresh_expr(shape).code}")
        with ctx.block(f"if {ctx.exprs.cond()}:"):
            ctx.emit(f"raise {exc.strip('()').split(',')[0]}('x')")
        e = ctx.fresh_expr(shape)
        ctx.emit(f"{name} = {e.code}" if first is None else f"{name} = {first} * 0.5 + {e.code}")
    with ctx.block(f"except {exc}{' as err' if rng.random() < 0.3 else ''}:"):
        if rng.random() < 0.3:
            simple(ctx)
        e = ctx.fresh_expr(shape)
        ctx.emit(f"{name} = {e.code}" if first is None or not seen
                 else f"{name} = {e.code} - {first} * 0.25")
    ctx.bind(name, Var(shape))
    if first is not None and seen:
        ctx.bind(first, Var(shape))
    if rng.random() < 0.25:
        with ctx.block("else:"):
            ctx.emit(f"{name} = {name} * 1.5")
    return name
