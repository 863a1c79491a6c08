"""Activity analysis: which variables need adjoints.

Two halves, as in Tangent and JAX: *varied* runs forward from the inputs we
differentiate with respect to, *useful* runs backward from the returned
value; only their intersection gets adjoint code. Both are flow-insensitive
fixpoints over variable names, which over-approximates and so never drops a
gradient.

Example (differentiating with respect to ``x``; ``y`` is a constant)::

    z = x * y            varied, useful: gets an adjoint ``dz``
    k = y * 2.0          neither: no adjoint code
    w = np.sin(x)        varied, not useful (nothing returned reads it): none
    loss = np.sum(z * k)
"""
import gast

from ..errors import CompileError
from ..ir import anno
from ..ir.atoms import literal_items
from ..ir.names import name_ids, walk_stmts
from ..ir.scopes import free_names


def flow(s, displays=None):
    """(written names, read names that flow into them) for one statement.

    Only differentiable dependencies count: an index, an axis or a branch
    condition carries no gradient. ``displays`` (see ``analyze``): a constant
    item of one of them reads that item only.
    """
    kind = anno.kind(s)
    if kind == "prim":
        reads = set()
        for atom in s.sg_args.values():
            reads |= name_ids(atom) if isinstance(atom, gast.Name) else set()
        return [s.targets[0].id], reads
    if kind == "copy":
        return [s.targets[0].id], {s.value.id}
    if kind == "getitem":
        item = _display_item(s.value, displays)
        if item is not None:
            return [s.targets[0].id], ({item.id} if isinstance(item, gast.Name) else set())
        return [s.targets[0].id], {s.value.value.id}
    if kind == "literal":
        return [s.targets[0].id], {e.id for _, e in literal_items(s.value) if isinstance(e, gast.Name)}
    if kind == "setitem":
        base = s.targets[0].value.id
        value = {s.value.id} if isinstance(s.value, gast.Name) else set()
        return [base], value | {base}
    if kind == "append":
        lst = s.value.func.value.id
        arg = s.value.args[0]
        return [lst], ({arg.id} if isinstance(arg, gast.Name) else set()) | {lst}
    if kind == "pop":
        return [s.targets[0].id], {s.value.func.value.id}
    if kind == "custom":
        return [s.targets[0].id], {a.id for a in s.sg_operands if isinstance(a, gast.Name)}
    if getattr(s, "sg_norule", None) is not None:
        return sorted(set().union(*map(name_ids, s.targets))), name_ids(s.value)
    if isinstance(s, gast.FunctionDef):
        # A def left as a value (a lambda passed to ``quad``, ``minimize``): it holds what
        # it reads from around it, so a call it is passed to reads that too (a call
        # without a rule then raises, never a silent zero).
        return [s.name], free_names(s)
    return [], set()


class Activity:
    def __init__(self, varied, useful):
        self.varied = varied
        self.useful = useful
        self.active = varied & useful

    def __contains__(self, name):
        return name in self.active


def reaching(body, results):
    """Names ``results`` are computed from by any read (an index, a condition, what a
    call without a derivative reads too): where a gradient would flow if every
    function had one. (What ``np.sign`` of a complex value reaches: ``reverse.py``.)"""
    pairs = []
    for s in walk_stmts(body):
        if isinstance(s, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr)):
            names = [n for n in gast.walk(s) if isinstance(n, gast.Name)]
            pairs.append(({n.id for n in names if not isinstance(n.ctx, gast.Load)},
                          {n.id for n in names if isinstance(n.ctx, gast.Load)}))
        elif isinstance(s, gast.For):  # (the loop variable reads the iterable)
            pairs.append((name_ids(s.target), name_ids(s.iter)))
    out = set(results)
    changed = True
    while changed:
        changed = False
        for writes, reads in pairs:
            if writes & out and not reads <= out:
                out |= reads
                changed = True
    return out


def analyze(body, wrt, result, displays=None):
    """Activity of a normalized body whose inputs are ``wrt`` and output ``result``.

    ``result`` is a name, or a set of names (a tape's targets). ``displays``
    (from ``displays_of``): name -> {key: item} of lists, tuples and dicts that
    hold what they were built with, so that ``lst[0]`` reaches ``lst``'s first
    item only (a tape's None for a source gathered into a list but unused).
    Only for what a target reaches: adjoint code follows the whole container.
    """
    flows = [(s, *flow(s, displays)) for s in walk_stmts(body)]
    varied = set(wrt)
    changed = True
    while changed:
        changed = False
        for _, writes, reads in flows:
            if reads & varied:
                for w in writes:
                    if w not in varied:
                        varied.add(w)
                        changed = True
    useful = set(result) if isinstance(result, (set, frozenset)) else ({result} if result else set())
    changed = True
    while changed:  # (last statement first: what a result reads is known in one pass)
        changed = False
        for _, writes, reads in reversed(flows):
            if any(w in useful for w in writes):
                new = (reads & varied) - useful
                if new:
                    useful |= new
                    changed = True
    if displays:
        # A container any reached item is in is reached: asked for as a source (a dict of
        # sources the block built), its adjoint holds that item's.
        _add_holders(useful, displays)
    act = Activity(varied, useful)
    for s, writes, _ in flows:
        norule = getattr(s, "sg_norule", None)
        if norule is not None and any(w in act for w in writes):
            raise norule
        if anno.kind(s) == "prim" and writes[0] in act:
            _check_differentiable_params(s, act)
    return act


def displays_of(body):
    """name -> (is a dict, {key: item atom}) for each name ``body`` binds once, to a
    list, tuple or dict display with constant keys. (For a body that changes nothing in
    place: an item written through a view would hold more than it was bound to.)"""
    stores = {}
    for n in gast.walk(gast.Module(body, [])):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    out = {}
    for s in walk_stmts(body):
        if anno.kind(s) != "literal" or not isinstance(s.value, (gast.List, gast.Tuple, gast.Dict)):
            continue
        name = s.targets[0].id
        items = literal_items(s.value)
        if stores.get(name) != 1 or not all(isinstance(k, gast.Constant) for k, _ in items):
            continue
        keyed = {k.value: e for k, e in items}
        if len(keyed) == len(items):
            out[name] = (isinstance(s.value, gast.Dict), keyed)
    # ... and names bound once to one of them (``layer = layers[0]``, ``m = lst``).
    for s in walk_stmts(body):
        if anno.kind(s) not in ("getitem", "copy") or stores.get(s.targets[0].id) != 1:
            continue
        item = _display_item(s.value, out) if anno.kind(s) == "getitem" else s.value
        if isinstance(item, gast.Name) and item.id in out:
            out[s.targets[0].id] = out[item.id]
    return out


def _add_holders(names, displays):
    changed = True
    while changed:
        changed = False
        for holder, (_, keyed) in displays.items():
            if holder not in names and any(isinstance(e, gast.Name) and e.id in names
                                           for e in keyed.values()):
                names.add(holder)
                changed = True


def _display_item(subscript, displays):
    """The item atom ``lst[k]`` reads, if ``lst`` is one of ``displays`` and ``k`` constant."""
    index = subscript.slice
    negative = isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub)
    index = index.operand if negative else index
    if not displays or subscript.value.id not in displays or not isinstance(index, gast.Constant) \
            or negative and type(index.value) is not int:
        return None
    is_dict, keyed = displays[subscript.value.id]
    key = -index.value if negative else index.value
    if not is_dict and type(key) is int and key < 0:
        key += len(keyed)
    if type(key) is bool or (not is_dict and type(key) is not int):
        return None
    return keyed.get(key)


def _check_differentiable_params(s, act):
    """A differentiated value passed where the rule has no derivative is refused.

    Dropping it would be a silent zero (``np.einsum(x, (0, 1), (1, 0))``: the
    array sits in the ``subscripts`` slot).
    """
    for pname, atom in s.sg_args.items():
        if pname in s.sg_rule.grads or pname in s.sg_rule.nograd \
                or not (isinstance(atom, gast.Name) and atom.id in act):
            continue
        o = anno.origin(s)
        fname = getattr(getattr(s, "sg_func", None), "__name__", None) \
            or (o.text.strip() if o and o.text else "this operation")
        raise CompileError(
            f"the value passed as `{pname}` of `{fname}` depends on the differentiated inputs, "
            f"but `{fname}` has no derivative with respect to `{pname}`",
            o.short() if o else None,
            remedy=f"pass a constant as `{pname}`, or wrap the call with srcgrad.custom_gradient")
