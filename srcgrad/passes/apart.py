"""Inputs the code writes into must not share memory with other inputs: checked at entry.

The compiled code takes each argument (each input of a tape block) for a value
of its own. Python does not: after ``a = Y[1]`` outside, ``Y *= X`` inside
changes ``a`` too, so the code reading ``a`` then sees the new values, where
the compiled code and its adjoint see the old ones (a wrong value, and a
gradient that leaves ``a`` out). Which arrays the caller passes is known only
when the code runs, so the compiled code starts by checking that no input it
writes into (directly, or through a view it makes of it) shares memory with
another input, or with another array inside the same input
(``runtime.check_apart``), and refuses with ``CompileError`` if one does.
"""
import gast

from ..ir import anno, templates as T
from ..ir.aliasing import _shared_sources
from ..ir.names import walk_stmts, written_into

_GUARDS = ("check_not_0d",)  # ``x += v`` of a private array, compiled as ``x = x + v``


def insert_check(body, params, sample, scope, built=()):
    """Put ``_sg.check_apart(...)`` first in ``body`` (normalized) when it writes into a
    parameter that may share memory with another one (``sample``: their values).
    ``built``: statements that build parameter trees from the parameters, leaves
    (``p = {'W': p_W}``, a tree's wrapper: ``compiler/cache.py``), for naming them."""
    values = dict(zip(params, sample))
    # (An item stored into a list or dict passed in replaces the item: no array's memory.)
    containers = {p for p, v in values.items() if type(v) in (list, dict)}
    firsts = written_params(body, params, scope, containers)
    if not firsts:
        return
    if len(params) < 2 and sample and not any(_holds_arrays(values[p]) for p in firsts):
        return  # one array: nothing else to share it
    spelled = leaf_paths(built)
    firsts = {spelled.get(p, p): w for p, w in firsts.items()}
    check = T.stmt("_sg.check_apart(written, values, names)",
                   written=gast.Tuple([T.const(f"{n} ({w})") for n, w in firsts.items()],
                                      gast.Load()),
                   values=gast.Tuple([T.name(p) for p in params], gast.Load()),
                   names=gast.Tuple([T.const(spelled.get(p, p)) for p in params], gast.Load()))
    anno.like(check, body[0])
    body.insert(0, anno.set_kind(check, "opaque"))


def written_params(body, params, scope, containers=()):
    """The parameters whose memory ``body`` may write into, each with where it first
    does (``file:line``): written directly, or through a name that may hold part of
    them (a view, an item, an attribute, in a loop's target). ``containers``: lists and
    dicts, whose own items' stores (``p[k] = v``, ``p.append(v)``) do not count."""
    params = set(params)
    first = {}
    for s in walk_stmts(body):
        for name in _written_by(s) - set(containers):
            o = anno.origin(s)
            first.setdefault(name, o.short() if o else "?")
    changed = True
    while changed:
        changed = False
        for s in walk_stmts(body):
            for target, value in _bindings(s):
                if target in first:
                    for source in _sources(value, scope):
                        if source not in first:
                            first[source] = first[target]
                            changed = True
    return {p: w for p, w in first.items() if p in params}


def _written_by(s):
    names = written_into([s])
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
            and isinstance(s.value.func, gast.Attribute) and s.value.func.attr in _GUARDS \
            and s.value.args and isinstance(s.value.args[0], gast.Name):
        names.add(s.value.args[0].id)
    return names


def _bindings(s):
    """(name bound, the value it may hold part of) pairs of ``s``."""
    if isinstance(s, gast.Assign):
        return [(n.id, s.value) for t in s.targets for n in gast.walk(t)
                if isinstance(n, gast.Name)]
    if isinstance(s, (gast.For, gast.AsyncFor)):
        return [(n.id, s.iter) for n in gast.walk(s.target) if isinstance(n, gast.Name)]
    if isinstance(s, (gast.With, gast.AsyncWith)):
        return [(n.id, i.context_expr) for i in s.items if i.optional_vars is not None
                for n in gast.walk(i.optional_vars) if isinstance(n, gast.Name)]
    return []


def _sources(value, scope):
    """Names whose objects ``value`` may be or hold part of: more than
    ``aliasing._shared_sources``, as an item or attribute of an input is part of it."""
    if isinstance(value, (gast.Subscript, gast.Attribute, gast.Starred)):
        return _sources(value.value, scope)
    if isinstance(value, (gast.Tuple, gast.List)):
        return set().union(*(_sources(e, scope) for e in value.elts))
    if isinstance(value, gast.Dict):
        return set().union(*(_sources(e, scope) for e in value.values))
    if isinstance(value, gast.IfExp):
        return _sources(value.body, scope) | _sources(value.orelse, scope)
    if isinstance(value, gast.BoolOp):
        return set().union(*(_sources(v, scope) for v in value.values))
    if isinstance(value, gast.Name):
        return {value.id}
    return _shared_sources(value, scope)


def _holds_arrays(value):
    return isinstance(value, (list, tuple, dict)) or hasattr(value, "__dict__")


def leaf_paths(stmts):
    """Leaf parameter -> how the user spells it (``p_W`` -> ``p['W']``), from the
    statements building trees of leaves: ``p = {'W': p_W, 'l': [p_l_0]}``."""
    out = {}

    def visit(node, path):
        if isinstance(node, gast.Name):
            out[node.id] = path
        elif isinstance(node, gast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, gast.Constant):
                    visit(v, f"{path}[{k.value!r}]")
        elif isinstance(node, (gast.List, gast.Tuple)):
            for i, e in enumerate(node.elts):
                visit(e, f"{path}[{i}]")
        elif isinstance(node, gast.Call):  # a record: a namedtuple's or dataclass's fields
            for i, a in enumerate(node.args):
                visit(a, f"{path}[{i}]")
            for k in node.keywords:
                visit(k.value, f"{path}.{k.arg}")
    for s in stmts:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and not isinstance(s.value, gast.Name):
            visit(s.value, s.targets[0].id)
    return out
