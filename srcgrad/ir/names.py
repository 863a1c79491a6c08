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
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}


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


_LIST_WRITES = frozenset({"pop", "append", "extend", "insert", "remove", "clear"})


def written_into(stmts):
    """Names whose objects generated code ``stmts`` writes into: a slot or attribute
    stored (``y[1] = v``), a list changed (``stack.pop()``), a dict slot restored
    (``_sg.restore_slot(d, k, v)``), an augmented assignment (in place on an array)."""
    out = set()
    for s in stmts:
        for n in gast.walk(s):
            if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store) \
                    and isinstance(n.value, gast.Name):
                out.add(n.value.id)
            elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute):
                if isinstance(n.func.value, gast.Name) and n.func.attr in _LIST_WRITES:
                    out.add(n.func.value.id)
                elif n.args and isinstance(n.args[0], gast.Name) and n.func.attr == "restore_slot" \
                        and isinstance(n.func.value, gast.Name) and n.func.value.id == "_sg":
                    out.add(n.args[0].id)
            elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                out.add(n.target.id)
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
