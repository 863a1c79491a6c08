"""Builders for calls and scopes: module-level helpers, closures, comprehensions."""
from .core import assign, simple
from .scope import Scope, Var


def helper_call(ctx):
    """A module-level helper returning a tuple (or one value), called from f."""
    rng = ctx.rng
    args = [ctx.pick() for _ in range(rng.randint(1, 2))]
    if args[0] is None:
        return False
    ctx.use("helpers")
    fname = ctx.fresh_function("helper")
    params = [ctx.fresh_name() for _ in args]
    keyword = rng.random() < 0.5
    signature = ", ".join(params) + (", scale=0.5" if keyword else "")
    outs = [rng.choice([args[0][1].shape, ()]) for _ in range(rng.randint(1, 2))]
    with ctx.module_function(f"def {fname}({signature}):"):
        for p, (_, var) in zip(params, args):
            ctx.bind(p, Var(var.shape, owned=False, shared=True))
        if keyword:
            ctx.bind("scale", Var((), owned=False))
        for _ in range(rng.randint(0, 2)):
            simple(ctx)
        values = [ctx.fresh_expr(s) for s in outs]
        for p in params:
            values[-1] = ctx.reading(values[-1], p)
        ctx.emit(f"return {', '.join(v.code for v in values)}")
    call = f"{fname}({', '.join(ctx.read(n) for n, _ in args)}"
    call += f", scale={rng.choice([0.3, 1.5])})" if keyword and rng.random() < 0.6 else ")"
    names = [ctx.fresh_name() for _ in outs]
    if len(outs) == 2 and rng.random() < 0.3:
        ctx.emit(f"{names[0]} = {call}[{rng.choice([0, -2])}]")
        names, outs = names[:1], outs[:1]
    else:
        ctx.emit(f"{', '.join(names)} = {call}")
    for n, s in zip(names, outs):
        ctx.bind(n, Var(s))
        ctx.want(n)
    return True


def closure(ctx):
    """A nested function reading enclosing variables, called once or twice.

    Between two calls an enclosing variable the closure reads may be rebound
    (same shape): Python closures see the new value (late binding).
    """
    rng = ctx.rng
    found = ctx.pick()
    if found is None:
        return False
    ctx.use("closures")
    fname, param = ctx.fresh_function("inner"), ctx.fresh_name()
    shape = found[1].shape
    out = rng.choice([shape, ()])
    ctx.read_log = []
    with ctx.block(f"def {fname}({param}):", function=True):
        ctx.bind(param, Var(shape, owned=False, shared=True))
        if rng.random() < 0.3:
            assign(ctx)
        ctx.emit(f"return {ctx.reading(ctx.fresh_expr(out), param).code}")
    enclosing = set(ctx.read_log) & set(ctx.scope.visible())
    ctx.read_log = None
    ctx.captured |= enclosing
    result = ctx.fresh_name()
    ctx.emit(f"{result} = {fname}({ctx.read(found[0])})")
    ctx.bind(result, Var(out))
    if enclosing and rng.random() < 0.5:
        name = rng.choice(sorted(enclosing))
        var = ctx.scope.lookup(name)
        if ctx.changeable(name, Var(var.shape)):
            ctx.emit(f"{name} = {name} * 0.5 + 0.25")
            ctx.bind(name, Var(var.shape))
            ctx.emit(f"{result} = {result} + {fname}({found[0]})")
    ctx.want(result)
    return True


def nested_grad(ctx):
    """``sg.grad`` / ``sg.value_and_grad`` of a module-level helper, called inside f.

    The inner gradient is then differentiated again (second order through
    generated code); a second argument makes the inner gradient depend on a
    variable that is differentiated only by the outer gradient.
    """
    rng = ctx.rng
    found = ctx.pick_array()
    if found is None:
        return False
    other = ctx.pick()
    ctx.use("nested_grad")
    (src, var), fname = found, ctx.fresh_function("loss")
    p, q = ctx.fresh_name(), ctx.fresh_name()
    with ctx.module_function(f"def {fname}({p}, {q}):"):
        ctx.bind(p, Var(var.shape, owned=False, shared=True))
        ctx.bind(q, Var(other[1].shape if other else (), owned=False, shared=True))
        body = ctx.reading(ctx.reading(ctx.fresh_expr(var.shape), p), q)
        ctx.emit(f"return np.sum({body.code})")
    second = ctx.read(other[0]) if other else "0.5"
    result = ctx.fresh_name()
    if rng.random() < 0.5:
        ctx.emit(f"{result} = sg.grad({fname}, wrt=0)({ctx.read(src)}, {second})")
    else:
        value = ctx.fresh_name()
        ctx.emit(f"{value}, {result} = sg.value_and_grad({fname}, wrt=0)({ctx.read(src)}, {second})")
        ctx.bind(value, Var(()))
        ctx.want(value)
    ctx.bind(result, Var(var.shape))
    ctx.want(result)
    return True


def comprehension(ctx):
    """``sum(... for r in a)``, ``np.stack([... for r in a])`` and friends."""
    rng = ctx.rng
    found = ctx.pick_array()
    if found is None:
        return False
    ctx.use("comprehensions")
    src, var = found
    rows = var.shape[1:]
    kind = rng.choice(["sum_gen", "sum_list", "stack", "range", "zip"])
    count = var.shape[0]
    outer = ctx.scope
    ctx.scope = Scope(outer)  # the comprehension's own variables
    try:
        if kind == "range":
            i = ctx.fresh_counter()
            count = rng.randint(1, var.shape[0])
            item, loop = f"{src}[{i}]", f"for {i} in range({count})"
            ctx.scope.add_item(item, Var(rows, owned=False, shared=True, item=True))
        else:
            item = ctx.fresh_name()
            ctx.bind(item, Var(rows, var.owned, var.writable, shared=True))
            loop = f"for {item} in {ctx.read(src)}"
            if kind == "zip":
                other, ovar = ctx.pick_array(lambda n, v: n != item)
                q = ctx.fresh_name()
                ctx.bind(q, Var(ovar.shape[1:], ovar.owned, ovar.writable, shared=True))
                loop = f"for {item}, {q} in zip({src}, {ctx.read(other)})"
            elif kind != "stack" and var.shape[0] >= 2 and rng.random() < 0.3:
                i = ctx.fresh_counter()
                loop = f"for {i}, {item} in enumerate({src}) if {i} != 1"
        elem_shape = () if kind in ("sum_gen", "zip") else rows
        e = ctx.expr(elem_shape, 1)
        elem = ctx.reading(e, item).code
    finally:
        ctx.scope = outer
    name = ctx.fresh_name()
    if kind in ("sum_gen", "zip"):
        ctx.emit(f"{name} = sum({elem} {loop})")
        shape = ()
    elif kind == "stack" or kind == "range" and rng.random() < 0.6:
        ctx.emit(f"{name} = np.stack([{elem} {loop}])")
        shape = (count,) + rows
    else:
        ctx.emit(f"{name} = sum([{elem} {loop}])")
        shape = rows
    ctx.bind(name, Var(shape))
    ctx.want(name)
    return True
