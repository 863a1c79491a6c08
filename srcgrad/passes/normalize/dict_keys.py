"""A dict where Python iterates it gives its keys (``normalize/normalizer.py``, each round).

``a, b = d``, ``sum(d)``, ``max(d)``, ``zip(d, xs)``, ``enumerate(d)``, ``[*d]``: Python
iterates a dict's keys. The compiler reads the containers it knows item by item, and
read a dict of differentiable values so by position: its *values* (``a, b = d`` bound
``d``'s values, ``sum(d)`` of int keys summed them, silently). Each such use of a dict
whose keys are known when compiling is written as the tuple of its keys, constants the
gradient does not flow through; of another dict, as ``list(d)`` taken when it runs.
``d.values()`` and ``d.items()`` iterated so are the tuple of its items, read there::

    d = {0: x, 1: y}                    d = {0: x, 1: y}
    a, b = d                  ->        a, b = (0, 1)
    s = sum(d) * w                      s = sum((0, 1)) * w
"""
import builtins

import gast

from ...ir import anno, templates as T
from ...ir.names import walk_stmts
from ...ir.resolve import MISSING

# Builtins iterating their positional arguments (``map``/``filter``: after the function).
_ITERATING = {builtins.sum: 0, builtins.max: 0, builtins.min: 0, builtins.any: 0,
              builtins.all: 0, builtins.sorted: 0, builtins.list: 0, builtins.tuple: 0,
              builtins.set: 0, builtins.frozenset: 0, builtins.enumerate: 0,
              builtins.zip: 0, builtins.reversed: 0, builtins.iter: 0, builtins.map: 1,
              builtins.filter: 1}


def rewrite(norm, body):
    """Rewrite, in ``body``, each dict iterated as the keys it gives. (What a ``for``
    loop or a comprehension iterates is the normalizer's: ``for k, v in
    sorted(d.items())``, ``enumerate(d)``, ``zip(d, xs)`` are loops over the keys there.)"""
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], (gast.Tuple, gast.List)):
            s.value = keys_if_dict(norm, s.value)
        for node in _outside_iterables(s):
            if isinstance(node, gast.Call):
                first = _ITERATING.get(_function(norm, node.func), MISSING)
                if first is not MISSING:
                    node.args[first:] = [keys_if_dict(norm, a) for a in node.args[first:]]
            if isinstance(node, gast.Starred) and isinstance(node.ctx, gast.Load):
                node.value = keys_if_dict(norm, node.value)  # ``[*d]``, ``f(*d)``


def _outside_iterables(s):
    """The nodes of statement ``s`` (its own, not its blocks') but those of what a
    ``for`` loop or a comprehension iterates."""
    skip = set()
    if isinstance(s, (gast.For, gast.AsyncFor)):
        skip.add(id(s.iter))
    todo = [c for f, c in gast.iter_fields(s) if f not in ("body", "orelse")]
    while todo:
        node = todo.pop()
        if isinstance(node, list):
            todo += node
            continue
        if not isinstance(node, gast.AST) or id(node) in skip:
            continue
        if isinstance(node, gast.comprehension):
            skip.add(id(node.iter))
        yield node
        todo += list(gast.iter_child_nodes(node))


def _outside_blocks(s):
    """The nodes of statement ``s`` but those of its blocks."""
    for f, c in gast.iter_fields(s):
        if f in ("body", "orelse"):
            continue
        for item in c if isinstance(c, list) else [c]:
            if isinstance(item, gast.AST):
                yield from T.walk(item)


def _function(norm, func):
    try:
        found = norm.scope.value(func)
        return found if found in _ITERATING else None
    except TypeError:  # (unhashable)
        return None


def keys_if_dict(norm, node):
    """The keys of the dict ``node`` (a constant tuple, or ``list(d)`` when it runs), or
    ``node`` if it is not a dict the compiler knows."""
    if isinstance(node, gast.Starred):
        return node
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
            and node.func.attr in ("keys", "values", "items") and not node.args \
            and not node.keywords and isinstance(node.func.value, (gast.Name, gast.Dict,
                                                                   gast.Subscript)):
        # (``sum(d.values())``, ``a, b = d.values()``: the items read where it is iterated)
        items = norm.facts.items(node)
        return node if items is None else anno.like(gast.Tuple(items, gast.Load()), node)
    pairs = norm.facts.mapping(node) if isinstance(node, (gast.Name, gast.Dict)) else None
    keys = None if pairs is None else [k for k, _ in pairs]
    if keys is None and isinstance(node, gast.Name) and norm.counts.get(node.id) == 1:
        keys = norm.ctx.dict_keys.get(node.id)  # (a dict the normalizer built this round)
    if keys is not None:
        return anno.like(gast.Tuple([T.const(k) for k in keys], gast.Load()), node)
    if isinstance(node, (gast.Dict, gast.DictComp)) or isinstance(node, gast.Name) and (
            node.id in norm.ctx.dicts and norm.facts.stable(node.id)
            or isinstance(norm.scope.value(node), dict)):
        return anno.like(T.expr("_sg.taken(d, None)", d=node), node)
    return node


def iterated_names(norm, s):
    """The names statement ``s`` iterates (a loop's, a comprehension's, unpacking, ``*n``,
    ``sum(n)``, ``zip(n, ...)``): a dict there gives its keys, which the normalizer must
    know it is before it reads them."""
    found = set()
    heads = [s.iter] if isinstance(s, gast.For) else []
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], (gast.Tuple, gast.List)):
        heads.append(s.value)
    for node in _outside_blocks(s):
        if isinstance(node, gast.comprehension):
            heads.append(node.iter)
        elif isinstance(node, gast.Starred):
            heads.append(node.value)
        elif isinstance(node, gast.Call) and _function(norm, node.func) is not None:
            heads += node.args[_ITERATING[_function(norm, node.func)]:]
    for head in heads:
        if isinstance(head, gast.Call) and _function(norm, head.func) is not None:
            head = head.args  # ``zip(n, xs)``, ``enumerate(n)``
        for h in head if isinstance(head, list) else [head]:
            if isinstance(h, gast.Call) and isinstance(h.func, gast.Attribute) \
                    and h.func.attr in ("keys", "values", "items"):
                h = h.func.value  # ``sum(n.values())``, ``a, b = n.items()``
            if isinstance(h, gast.Name):
                found.add(h.id)
    return found
