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
        # (int keys too: a dict read by position instead of by key reads its values)
        keys = rng.choice([["w", "b", "s"], ["w", "b", "s"], [0, 1, 2], [2, 0, 1]])[:n]
        ctx.emit(f"{name} = {_dict_spelled(rng, keys, [v.code for v in values])}")
        if rng.random() < 0.15:  # a private copy, as users take one before writing
            ctx.emit(f"{name} = copy.{rng.choice(['deepcopy', 'copy'])}({name})")
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
            ctx.emit(_item_written(rng, ctx.read(rng.choice(names)), keys[k], values[k].code))
        entries = [f"{rng.choice(names)}[{k!r}]" for k in keys]
        if rng.random() < 0.3:  # iterated as Python iterates it: keys, values, items
            view = rng.choice(["values", "items", "keys"])
            parts = [ctx.fresh_name() for _ in keys]
            source = ctx.read(rng.choice(names))
            if view == "values":
                ctx.emit(f"{', '.join(parts)} = {source}.values()")
                entries = parts
            elif view == "items":
                keys_seen = [ctx.fresh_name() for _ in keys]
                pairs = ", ".join(f"({k}, {v})" for k, v in zip(keys_seen, parts))
                ctx.emit(f"{pairs} = {source}.items()")
                entries = parts
            else:
                ctx.emit(f"{', '.join(parts)} = {source}")  # (its keys)
                entries = [f"{source}[{p}]" for p in parts]
    else:
        ctx.emit(f"{name} = {_sequence_spelled(rng, kind, [v.code for v in values])}")
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


def _item_written(rng, name, key, code):
    """``d[k] = v``, as users write it: a store, ``d.update(...)``, ``d |= {...}``."""
    way = rng.randrange(5)
    if way == 1:
        return f"{name}.update({{{key!r}: {code}}})"
    if way == 2 and isinstance(key, str):
        return f"{name}.update({key}={code})"
    if way == 3:
        return f"{name} |= {{{key!r}: {code}}}"
    return f"{name}[{key!r}] = {code}"


def _dict_spelled(rng, keys, codes):
    """One dict, as users build it: a display, ``dict(k=v)``, a merge of two displays
    (``|`` or ``**``), or a comprehension over ``zip``."""
    items = [f"{k!r}: {c}" for k, c in zip(keys, codes)]
    way = rng.randrange(6)
    if way == 1 and all(isinstance(k, str) for k in keys):
        return f"dict({', '.join(f'{k}={c}' for k, c in zip(keys, codes))})"
    if way == 2:
        return f"{{{items[0]}}} | {{{', '.join(items[1:])}}}"
    if way == 3:
        return f"{{**{{{items[0]}}}, {', '.join(items[1:])}}}"
    if way == 4:
        return f"{{k: v for k, v in zip({keys!r}, [{', '.join(codes)}])}}"
    return f"{{{', '.join(items)}}}"


def _sequence_spelled(rng, kind, codes):
    """One list or tuple: a display, a concatenation, or ``list(...)``/``tuple(...)``."""
    way = rng.randrange(4)
    if way == 1:
        head, tail = ", ".join(codes[:1]), ", ".join(codes[1:])
        return f"[{head}] + [{tail}]" if kind == "list" else f"({head},) + ({tail},)"
    if way == 2:
        return f"{kind}([{', '.join(codes)}])"
    body = ", ".join(codes)
    return f"[{body}]" if kind == "list" else f"({body},)"


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
