"""Items of a tuple or dict written out, read where they are known when compiling.

``pair = (dx, dy); k1x = pair[0]`` (what a helper's ``return dx, dy`` unpacked
becomes) reads ``k1x = dx``, through copies too (a parameter tree's wrapper's
``params = (W, b)`` passed to a loss that unpacks it), and ``params = {'W1':
params_W1}; W1 = params['W1']`` (what a parameter tree's wrapper and a loss reading
its dict become) reads ``W1 = params_W1``: the backward pass then needs no container
adjoint, and ranks pass through (issue 15: without this, a dict of parameters cost
twice the separate arguments).

Only where the item read is exactly the one written:
- the container is bound once, its items are names or constants, and the read is
  in the same block after it or in a block nested there, with neither the container
  nor the item's name bound again in between (a nested statement passes what it
  binds nowhere inside on to its blocks);
- a dict can change after it is built: it is forwarded only when every use of its
  name (and of the names it is copied to, each bound once) is a constant-key read or
  such a copy; a write, a method, a call it is passed to, a loop over it, a closure
  reading it: nothing of it is forwarded.
"""
import copy

import gast

from ...ir import anno, templates as T
from ...ir.names import bound_names, walk_stmts


def items_forwarded(body, local_names):
    """``body`` with the reads described above replaced by their items. ``local_names``:
    the function's locals (a global may be rebound by any call)."""
    counts = {}
    for st in walk_stmts(body):
        for n in bound_names(st):
            counts[n] = counts.get(n, 0) + 1
    once = {n for n, c in counts.items() if c == 1 and n in local_names}
    dicts = _unshared_dicts(body, once)

    def items_of(st):
        """The items ``st`` binds its target to, by key, or None."""
        if anno.kind(st) != "literal" or len(st.targets) != 1 \
                or not isinstance(st.targets[0], gast.Name) or st.targets[0].id not in once:
            return None
        name, value = st.targets[0].id, st.value
        if isinstance(value, gast.Tuple):
            n = len(value.elts)
            keys, elts = list(range(n)) + list(range(-n, 0)), value.elts * 2
        elif isinstance(value, gast.Dict) and name in dicts:
            keys, elts = [k.value for k in value.keys], value.values
        else:
            return None
        if not all(isinstance(e, gast.Constant) or isinstance(e, gast.Name)
                   and e.id in local_names and e.id != name for e in elts):
            return None
        # A tuple is read at an int only; a dict at any key equal to one written out
        # (``d[1.0]`` is ``d[1]``), its last item for a repeated key, as Python has it.
        return isinstance(value, gast.Tuple), dict(zip(keys, elts))

    def forward(st, known):
        value = st.value
        if not (anno.kind(st) == "getitem" and isinstance(value.value, gast.Name)
                and value.value.id in known and _is_constant_key(value.slice)):
            return
        is_tuple, items = known[value.value.id]
        key = _constant_key(value.slice)
        if is_tuple and type(key) is not int or not _hashable(key) or key not in items:
            return
        item = items[key]
        if isinstance(item, gast.Name) and item.id == _target(st):
            return  # ``a = t[1]`` of ``t = (x, a)``: not ``a = a``, which has no adjoint rule
        st.value = copy.deepcopy(item)
        anno.set_kind(st, "copy" if isinstance(item, gast.Name) else "opaque")

    def still_known(known, bound):
        return {c: (t, items) for c, (t, items) in known.items() if c not in bound and not any(
            isinstance(i, gast.Name) and i.id in bound for i in items.values())}

    def block(stmts, known):
        known = dict(known)
        for st in stmts:
            bound = {n for inner in walk_stmts([st]) for n in bound_names(inner)}
            if isinstance(st, (gast.If, gast.For, gast.While)):
                inside = still_known(known, bound)
                block(st.body, inside)
                block(st.orelse, inside)
            elif getattr(st, "value", None) is not None:
                forward(st, known)
            known = still_known(known, bound)
            target = _target(st) if isinstance(st, gast.Assign) else None
            if target is None:
                continue
            if anno.kind(st) == "copy" and isinstance(st.value, gast.Name) \
                    and st.value.id in known and (target in dicts or known[st.value.id][0]
                                                  and target in local_names):
                # ``params_1 = params`` reads its items (a tuple's always: nothing changes it)
                known[target] = known[st.value.id]
            items = items_of(st)
            if items is not None:
                known[target] = items
    block(body, {})
    return body


def _is_constant_key(node):
    return isinstance(node, gast.Constant) or isinstance(node, gast.UnaryOp) and isinstance(
        node.op, gast.USub) and isinstance(node.operand, gast.Constant) \
        and type(node.operand.value) is int


def _constant_key(node):
    """The value of ``k`` or ``-k`` (how ``t[-1]`` is written)."""
    return node.value if isinstance(node, gast.Constant) else -node.operand.value


def _hashable(key):
    try:
        hash(key)
    except TypeError:
        return False
    return True


def _unshared_dicts(body, once):
    """Names of dicts written out (and of names they are copied to) whose every use
    is a constant-key read or a copy to another such name: nothing can change them."""
    group = set()
    for st in walk_stmts(body):
        if anno.kind(st) == "literal" and isinstance(st.value, gast.Dict) \
                and _target(st) in once:
            group.add(_target(st))
    changed = True
    while changed:  # copies of copies
        changed = False
        for st in walk_stmts(body):
            if anno.kind(st) == "copy" and isinstance(st.value, gast.Name) \
                    and st.value.id in group and _target(st) in once - group:
                group.add(_target(st))
                changed = True
    escaped = set()
    for st in walk_stmts(body):
        allowed = set()  # the Name nodes of ``st`` that are uses described above
        kind = anno.kind(st)
        if isinstance(st, gast.Assign) and _target(st) in group and kind in ("literal", "copy"):
            allowed.add(id(st.targets[0]))
        if kind == "copy" and isinstance(st.value, gast.Name) and _target(st) in group:
            allowed.add(id(st.value))
        if kind == "getitem" and isinstance(st.value.value, gast.Name) \
                and _is_constant_key(st.value.slice) \
                and isinstance(st.value.ctx, gast.Load):
            allowed.add(id(st.value.value))
        for node in _own_nodes(st):
            for n in T.walk(node):
                if isinstance(n, gast.Name) and n.id in group and id(n) not in allowed:
                    escaped.add(n.id)
    # A copy joins its source's fate, both ways.
    changed = True
    while changed:
        changed = False
        for st in walk_stmts(body):
            if anno.kind(st) == "copy" and isinstance(st.value, gast.Name) \
                    and _target(st) in group:
                a, b = st.value.id, _target(st)
                if (a in escaped) != (b in escaped):
                    escaped |= {a, b}
                    changed = True
    return group - escaped


def _target(st):
    targets = getattr(st, "targets", None)
    return targets[0].id if targets and len(targets) == 1 \
        and isinstance(targets[0], gast.Name) else None


def _own_nodes(st):
    """The parts of ``st`` that are not its nested blocks (those are walked as
    statements of their own)."""
    if isinstance(st, (gast.If, gast.While)):
        return [st.test]
    if isinstance(st, gast.For):
        return [st.target, st.iter]
    return [st]
