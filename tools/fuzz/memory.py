"""Builders that write memory or rebind names: index writes, aliases and views, parameters."""
from .core import operand
from .exprs import dims
from .scope import Var, size


def index_write(ctx):
    """A copy (or zeros) written through ints, slices, repeated fancy indices and masks."""
    rng = ctx.rng
    source = ctx.pick_array()
    if source is None:
        return False
    ctx.use("index_write")
    src, var = source
    shape = var.shape
    name = ctx.fresh_name()
    init = rng.choice(["{}.copy()", "np.copy({})", "np.zeros_like({})", "np.zeros"])
    if init == "np.zeros":
        ctx.emit(f"{name} = np.zeros({dims(shape)})")
    else:
        ctx.emit(f"{name} = {init.format(ctx.read(src))}")
    ctx.bind(name, Var(shape))
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.25:
            _write_call(ctx, name, shape)
            continue
        index, value_shape = _write_index(ctx, shape)
        if value_shape and rng.random() < 0.25:  # a value broadcast against the slots
            value_shape = value_shape[rng.randint(1, len(value_shape)):]
        op = rng.choice(["=", "+=", "=", "-=", "*="])
        ctx.emit(f"{name}[{index}] {op} {ctx.expr(operand(ctx, value_shape), 1).code}")
    ctx.want(name)
    return True


def _write_call(ctx, name, shape):
    """A call writing into the whole array: np.copyto, a ufunc's out=, .sort(), .fill()."""
    rng = ctx.rng
    k = rng.randrange(4)
    if k == 0:
        ctx.emit(f"np.copyto({name}, {ctx.expr(operand(ctx, shape), 1).code})")
    elif k == 1:
        ufunc = rng.choice(["np.multiply", "np.add", "np.subtract"])
        a = ctx.expr(operand(ctx, shape), 1).code
        b = ctx.read(name) if rng.random() < 0.5 else ctx.expr(operand(ctx, shape), 1).code
        ctx.emit(f"{ufunc}({a}, {b}, out={name})")
    elif k == 2:
        ctx.emit(f"{name}.sort(axis={rng.randrange(-len(shape), len(shape))})")
    else:
        ctx.emit(f"{name}.fill({ctx.expr(operand(ctx, ()), 1).code})")


def _write_index(ctx, shape):
    """A subscript of an array of ``shape`` and the shape it selects."""
    rng = ctx.rng
    m, rest = shape[0], shape[1:]
    k = rng.randrange(6)
    if k == 0:
        return str(rng.randint(-m, m - 1)), rest
    if k == 1 and m >= 2:
        start = rng.randrange(m - 1)
        return f"{start}:", (m - start,) + rest
    if k == 2:
        index = _repeated(rng, m)
        text = repr(index)
        if rng.random() < 0.4:
            idx = ctx.fresh_counter()
            ctx.emit(f"{idx} = np.array({index})")
            text = idx
        return text, (len(index),) + rest
    if k == 5 and len(shape) == 2:
        return _fancy_2d(rng, shape)
    if k == 5 and rng.random() < 0.5:  # an index array of two axes
        rows = [_repeated(rng, m, n=2), _repeated(rng, m, n=2)]
        return f"np.array({rows})", (2, 2) + rest
    if k == 3:
        picked = sorted(rng.sample(range(m), rng.randint(1, m)))
        mask = ", ".join(str(i in picked) for i in range(m))
        return f"np.array([{mask}])", (len(picked),) + rest
    if k == 4 and len(shape) == 2:
        if rng.random() < 0.5:
            return f":, {rng.randint(-shape[1], shape[1] - 1)}", (m,)
        return f"{rng.randrange(m)}, {rng.randrange(shape[1])}", ()
    return str(rng.randrange(m)), rest


def _repeated(rng, m, n=None):
    """2 to 4 ints below ``m``, one repeated, some written from the end (``-1``)."""
    n = n or rng.randint(2, 4)
    index = [rng.randrange(m) for _ in range(n)]
    index[rng.randrange(1, n)] = index[0]
    return [_from_end(rng, i, m) for i in index]


def _from_end(rng, i, m):
    return i - m if rng.random() < 0.3 else i


def _fancy_2d(rng, shape):
    """Repeated fancy indices into a matrix: a pair of index arrays, or one beside a slice."""
    m, n = shape
    kind = rng.randrange(3)
    if kind == 0:
        count = rng.randint(2, 4)
        slots = [(rng.randrange(m), rng.randrange(n)) for _ in range(count)]
        slots[rng.randrange(1, count)] = slots[0]
        rows = [_from_end(rng, i, m) for i, _ in slots]
        cols = [_from_end(rng, j, n) for _, j in slots]
        return f"{rows}, {cols}", (count,)
    if kind == 1:
        cols = _repeated(rng, n)
        return f":, {cols}", (m, len(cols))
    rows = _repeated(rng, m)
    return (f"{rows}, 1:", (len(rows), n - 1)) if n > 1 else (f"{rows}, :", (len(rows), n))


def _owned_array(ctx, pred):
    """An updatable variable satisfying ``pred``, made (as a fresh array) when none is."""
    found = ctx.pick(lambda n, v: v.updatable and pred(v))
    if found is not None and ctx.rng.random() < 0.7:
        return found
    shapes = [v.shape for v in ctx.scope.visible().values() if pred(Var(v.shape))]
    if not shapes:
        return None
    shape = ctx.rng.choice(shapes)
    name = ctx.fresh_name()
    e = ctx.fresh_expr(shape, 1)
    code = f"np.array({e.code})" if shape == () else e.code
    ctx.emit(f"{name} = {code}")
    ctx.bind(name, Var(shape))
    return name, ctx.scope.lookup(name)


def alias_update(ctx):
    """Update a value through a second name or a view, then read the first name."""
    rng = ctx.rng
    kind = rng.choice(["name", "reshape", "T", "row", "unpacked", "swap"])
    need = {"name": lambda v: True, "reshape": lambda v: size(v.shape) > 1,
            "T": lambda v: len(v.shape) == 2, "row": lambda v: len(v.shape) >= 1 and v.shape[0] >= 2,
            "unpacked": lambda v: len(v.shape) == 2 and v.shape[0] >= 2,
            "swap": lambda v: len(v.shape) >= 1 and v.shape[0] >= 2}[kind]
    found = _owned_array(ctx, need)
    if found is None:
        return False
    ctx.use("alias")
    base, var = found
    shape = var.shape
    ctx.read(base)
    ctx.scope.mark_shared(base)
    if kind == "swap":
        ctx.emit(f"{base}[0], {base}[1] = {base}[1], {base}[0]")
    elif kind == "unpacked":
        p, q = ctx.fresh_name(), ctx.fresh_name()
        ctx.emit(f"{p}, {q} = {base}[0], {base}[1]")
        ctx.bind(p, Var(shape[1:], shared=True))
        ctx.bind(q, Var(shape[1:], shared=True))
        ctx.emit(f"{p} {rng.choice(['+=', '*='])} {rng.choice([q, ctx.expr(shape[1:], 1).code])}")
    else:
        alias = ctx.fresh_name()
        if kind == "name":
            view, vshape = base, shape
        elif kind == "reshape":
            view, vshape = f"{base}.reshape(-1)", (size(shape),)
            if len(shape) == 1 and shape[0] % 2 == 0:
                view, vshape = f"{base}.reshape(2, {shape[0] // 2})", (2, shape[0] // 2)
        elif kind == "T":
            view, vshape = f"{base}.T", shape[::-1]
        else:
            view, vshape = rng.choice([(f"{base}[1:]", (shape[0] - 1,) + shape[1:]),
                                       (f"{base}[0]", shape[1:])])
        ctx.emit(f"{alias} = {view}")
        ctx.bind(alias, Var(vshape, shared=True))
        op = rng.choice(["+=", "-=", "*="])
        value = ctx.expr(ctx.operand_shape(vshape), 1).code
        if vshape and rng.random() < 0.3:
            ctx.emit(f"{alias}[0] {op} {ctx.expr(operand(ctx, vshape[1:]), 1).code}")
        else:
            ctx.emit(f"{alias} {op} {value}")
    ctx.want(base)
    return True


def rebind_param(ctx):
    """A parameter rebound: to a function of itself, through a copy, or swapped."""
    rng = ctx.rng
    params = sorted(p for p in ctx.params if ctx.changeable(p, ctx.scope.lookup(p)))
    if not params:
        return False
    x = rng.choice(params)
    var = ctx.scope.lookup(x)
    kind = rng.randrange(3)
    if kind == 0:
        e = ctx.reading(ctx.fresh_expr(var.shape, 1), x)
        ctx.emit(f"{x} = {e.code}")
        ctx.bind(x, e)
    elif kind == 1:
        copy = ctx.fresh_name()
        ctx.emit(f"{copy} = {ctx.read(x)}")
        ctx.bind(copy, Var(var.shape, owned=False, shared=True))
        ctx.emit(f"{x} = {copy}")
        ctx.bind(x, Var(var.shape, owned=False, shared=True))
    else:
        others = [p for p in params if p != x and ctx.scope.lookup(p).shape == var.shape]
        if not others:
            return False
        y = rng.choice(others)
        ctx.emit(f"{x}, {y} = {ctx.read(y)}, {ctx.read(x)}")
        ctx.bind(x, ctx.scope.lookup(y))
        ctx.bind(y, var)
    ctx.want(x)
    return True
