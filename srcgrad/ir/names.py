"""The names a statement binds, stores and loads, and the walk over nested statements.

Every pass asks these questions; they are answered once, here.
"""
import gast

from . import templates as T


def walk_stmts(body):
    """Every statement of a body, nested blocks included, in order."""
    for s in body:
        yield s
        for field in ("body", "orelse"):
            if not isinstance(s, gast.FunctionDef) and hasattr(s, field):
                yield from walk_stmts(getattr(s, field))


def statement_lists(tree):
    """Every statement list in ``tree`` (bodies of defs, loops, ifs, withs, handlers,
    ``else`` and ``finally`` blocks)."""
    for node in gast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            stmts = getattr(node, name, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], gast.stmt):
                yield stmts


def root_id(node):
    """The name an attribute or item chain starts from (``p`` of ``p["w"].T``), or None."""
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def own_nodes(s):
    """The nodes of one statement, not of the blocks nested in it (nor of a def's body)."""
    if isinstance(s, gast.For):
        return list(gast.walk(s.target)) + list(gast.walk(s.iter))
    if isinstance(s, (gast.If, gast.While)):
        return list(gast.walk(s.test))
    if isinstance(s, gast.FunctionDef):
        return []
    return list(gast.walk(s))


_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def scope_nodes(node):
    """``node`` and what is in it, not inside the functions, classes and lambdas it
    defines (their ``return`` and bindings are theirs)."""
    yield node
    if isinstance(node, _SCOPES):
        return
    for child in gast.iter_child_nodes(node):
        yield from scope_nodes(child)


def scope_bound_names(statements, deleted=False):
    """Names the statements bind in their own scope, in order of first binding:
    assigned (or, with ``deleted``, deleted), imported, or defined (``def``, ``class``);
    not the variables of comprehensions or what nested functions bind."""
    out = []

    def visit(node):
        names = []
        if isinstance(node, gast.Name) and (isinstance(node.ctx, gast.Store)
                                            or deleted and isinstance(node.ctx, gast.Del)):
            names = [node.id]
        elif isinstance(node, (gast.Import, gast.ImportFrom)):
            names = [a.asname or a.name.split(".")[0] for a in node.names]
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            names = [node.name]
        out.extend(n for n in names if n not in out)
        if names or isinstance(node, gast.Lambda):
            return
        for child in gast.iter_child_nodes(node):
            if not isinstance(child, _COMPREHENSIONS + (gast.Lambda,)):
                visit(child)
    for s in statements:
        visit(s)
    return out


def name_ids(node):
    """Every name read or written anywhere inside ``node``."""
    return {n.id for n in T.walk(node) if isinstance(n, gast.Name)}


def written_names(s):
    """Names a statement rebinds (not mutations)."""
    if isinstance(s, gast.Assign):
        out = []
        for t in s.targets:
            if isinstance(t, (gast.Name, gast.Tuple, gast.List)):
                out += [n.id for n in gast.walk(t) if isinstance(n, gast.Name)]
        return out
    if isinstance(s, gast.FunctionDef):
        return [s.name]
    return []


# Methods that change the list or dict they are called on.
MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update",
                      "setdefault", "popitem", "sort", "reverse"})


def item_read(value):
    """``x[i]``, ``x[i, j]``, ``d["k"]``: a subscript of a name with no slice, ``None``
    or ``np.newaxis`` in its index (those give views whatever ``x`` is). It is a view
    only where ``x`` has more axes than the index, the item itself of a container."""
    if not (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)):
        return False
    for n in T.walk(value.slice):
        if isinstance(n, (gast.Slice, gast.Attribute)) or \
                isinstance(n, gast.Constant) and (n.value is None or n.value is Ellipsis):
            return False
    return True


def is_item_check(s):
    """``_sg.check_item_read(x[i], x, ...)``, the check of an item read (ir/aliasing.py):
    it reads the array, keeps nothing, and is no use of it for the alias analyses."""
    return isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
        and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "check_item_read" \
        and isinstance(s.value.func.value, gast.Name) and s.value.func.value.id == "_sg"


def written_into(stmts, attributes=False):
    """Names whose objects ``stmts`` change in place: a method that changes a list or
    dict (``u.append(v)``, ``stack.pop()``, ``d.update(e)``), a slot stored or deleted
    (``y[1] = v``, ``del d[k]``), a generated helper writing into its first argument
    (``_sg.restore_slot(d, k, v)``, ``_sg.update(a, op, b)``), an augmented assignment
    of a name (in place on an array); ``attributes``: an attribute stored, too."""
    stored = (gast.Subscript, gast.Attribute) if attributes else gast.Subscript
    out = set()
    for s in stmts:
        for n in T.walk(s):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                    and isinstance(n.func.value, gast.Name):
                if n.func.value.id == "_sg":
                    if n.func.attr in ("restore_slot", "update") and n.args \
                            and isinstance(n.args[0], gast.Name):
                        out.add(n.args[0].id)
                elif n.func.attr in MUTATORS:
                    out.add(n.func.value.id)
            elif isinstance(n, stored) and isinstance(n.ctx, (gast.Store, gast.Del)) \
                    and isinstance(n.value, gast.Name):
                out.add(n.value.id)
            elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                out.add(n.target.id)
    return out


def shared_with(names, pairs):
    """``names`` with every name a pair ``(a, b)`` links to one of them, transitively:
    names that may hold the same object (``z = y``, a view ``z = y[1:]``)."""
    out = set(names)
    changed = bool(out)
    while changed:
        changed = False
        for a, b in pairs:
            if (a in out) != (b in out):
                out |= {a, b}
                changed = True
    return out


def handed_on(names, pairs):
    """``names`` with, transitively, every ``b`` of a pair ``(a, b)`` whose ``a`` is among
    them: where what they hold goes (``b = a`` hands ``a``'s array to ``b``)."""
    out = set(names)
    changed = bool(out)
    while changed:
        changed = False
        for a, b in pairs:
            if a in out and b not in out:
                out.add(b)
                changed = True
    return out


def bound_names(s):
    """Names ``s`` binds, a ``for`` loop's target included (``a[i] = v`` binds none:
    it writes into ``a``)."""
    if isinstance(s, gast.For):
        return [n.id for n in T.walk(s.target) if isinstance(n, gast.Name)]
    return written_names(s)


def stores(node):
    """Names in store context anywhere in ``node``."""
    return {n.id for n in T.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def loads(node):
    """Names in load context anywhere in ``node``."""
    return {n.id for n in T.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def loads_in(stmts):
    """Names in load context anywhere in a list of statements."""
    out = set()
    for s in stmts:
        out |= loads(s)
    return out


def binding_counts(body):
    """Name -> how many statements of ``body`` (nested blocks included) bind it."""
    counts = {}
    for s in walk_stmts(body):
        for name in bound_names(s):
            counts[name] = counts.get(name, 0) + 1
    return counts


def fresh_name(base, taken):
    """``base``, or ``base_2``, ``base_3``, ...: the first not in ``taken`` (added to it)."""
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name
