"""What the compiler knows of the records (dataclasses, namedtuples built in the code)
names hold, as the statements bind them: ``ctx.records`` (name -> class),
``ctx.record_fields`` and ``ctx.record_items`` (``calls.kind_of``).

Those maps are by name, flow-insensitive, and persist across the normalizer's rounds;
a name bound to records of several classes (a loop over ``[Mul(a), Add(b)]`` unrolled,
``layer = Add(a)`` / ``else: layer = Mul(a)``) must not be compiled as the class its
last binding left, in whichever round: each binding notes again what it binds
(``note_bound``), an ``if`` keeps what both branches agree on (``merged``), and a loop
whose body binds a name to another class than it held at the start is refused
(``check_loop``).
"""
import gast

from . import calls


def snapshot(ctx):
    """Copies of the three maps."""
    return dict(ctx.records), dict(ctx.record_fields), dict(ctx.record_items)


def restore(ctx, kinds):
    for held, known in zip((ctx.records, ctx.record_fields, ctx.record_items), kinds):
        held.clear()
        held.update(known)


def merged(a, b):
    """What two paths agree on (the kinds after an ``if``)."""
    return tuple({k: v for k, v in x.items() if k in y and y[k] == v} for x, y in zip(a, b))


def note_bound(norm, s):
    """The kind of the target of ``name = container[key]`` or ``name = other``, where the
    compiler knows what the value holds."""
    ctx, value, target = norm.ctx, s.value, s.targets[0].id
    if isinstance(value, gast.Name) and calls.kind_of(ctx, value.id):
        calls.note_kind(ctx, target, calls.kind_of(ctx, value.id))
    elif isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) \
            and not isinstance(value.slice, gast.Slice) and ctx.record_items.get(value.value.id):
        kinds = ctx.record_items[value.value.id]
        key = value.slice.value if isinstance(value.slice, gast.Constant) else None
        calls.note_kind(ctx, target, kinds.get(key, kinds.get(None)))


def check_loop(ctx, loop, before):
    """Refuse a name holding a record of one class at ``loop``'s start and of another
    after its body (``layer = Mul(a)``, then ``h = layer(h); layer = Add(a)`` in the
    loop): the body is compiled once, for one class. ``before``: ``snapshot``'s."""
    after = ctx.records
    for name, cls in before[0].items():
        if name in after and after[name] is not cls and any(
                isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
                for n in gast.walk(loop)):
            raise ctx.error(
                f"`{ctx.in_user_names(name)}` holds a `{cls.__name__}` when the loop starts "
                f"and a `{after[name].__name__}` after a trip: srcgrad compiles the loop's body "
                "for one class of record", loop,
                "call each record where it is made, or keep them in a list and loop over the "
                "list")
