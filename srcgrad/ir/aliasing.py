"""Which arrays an in-place update could reach through another name.

srcgrad differentiates by rebinding: ``x += v`` becomes ``x = x + v`` and the
adjoint of ``a[i] = v`` assumes no other variable sees ``a``. Where another
name may share the array, the compiler refuses (``a[i] = v``) or checks at run
time (``x += v``) instead of giving a wrong gradient.
"""
import gast

from ..rules import table
from . import templates as T
from .names import walk_stmts


def shared_names(body, scope):
    """Names whose array may be reachable through another name.

    An in-place update (``a[i] = v``, ``x += v`` on an array) of such a name
    would change the other name's value too, which rebinding-based adjoints
    do not see. Conservative: both names of ``x = y``, of a view bound to a
    name (``y = x[1:]``, ``y = x.T``, ``y = x.reshape(...)``), and every name
    put into a container, are shared. A name read exactly once, by the
    statement that copies it (``x = x_new``, how updates are compiled), is
    moved, not shared.
    """
    loads = {}
    for s in walk_stmts(body):
        for n in _walk_own(s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                loads[n.id] = loads.get(n.id, 0) + 1
    shared = set()
    transient = _transient_views(body, loads, scope)
    for s in walk_stmts(body):
        if not isinstance(s, (gast.Assign, gast.Expr)):
            continue
        value = s.value
        targets = [t.id for t in getattr(s, "targets", []) if isinstance(t, gast.Name)]
        if targets and not getattr(s, "sg_inplace", False) and id(s) not in transient:
            source = _shared_source(value, scope)
            if source is not None and not (isinstance(value, gast.Name) and loads.get(source) == 1):
                shared.update(targets)
                shared.add(source)
            elif source is None and isinstance(value, (gast.Attribute, gast.Subscript)):
                shared.update(targets)  # an object's attribute or a container's item
        for n in gast.walk(value):
            if isinstance(n, (gast.List, gast.Tuple, gast.Dict)):
                shared |= {e.id for e in getattr(n, "elts", getattr(n, "values", []))
                           if isinstance(e, gast.Name)}
            elif isinstance(n, gast.Call):
                f = n.func
                if isinstance(f, gast.Attribute) and f.attr == "append":
                    shared |= {a.id for a in n.args if isinstance(a, gast.Name)}
    return shared


def _transient_views(body, loads, scope):
    """Bindings ``t = b`` / ``t = b[1:]`` whose sharing nothing can observe.

    Safe when every read of ``t`` comes later in the same block, nothing
    writes into ``t``, and nothing writes into ``b`` before the last read of
    ``t``. That is how ``out[1:3] += v`` is compiled (``t = out[1:3]; u = t + v;
    out[1:3] = u``) and how the generated code saves values (``x_prev = x``).
    """
    safe = set()
    seen_stmts = {}

    def parts(stmt):
        """The names in ``stmt`` and the names it writes into (``b[i] = ...``), once."""
        found = seen_stmts.get(id(stmt))
        if found is None:
            names, written = [], set()
            for n in T.walk(stmt):
                if isinstance(n, gast.Name):
                    names.append(n)
                elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) \
                        and isinstance(n.value, gast.Name):
                    written.add(n.value.id)
            found = seen_stmts[id(stmt)] = (names, written)
        return found

    blocks = [body] + [getattr(s, f) for s in walk_stmts(body) for f in ("body", "orelse")
                       if isinstance(s, (gast.If, gast.For, gast.While))]
    for block in blocks:
        for i, s in enumerate(block):
            if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                    and isinstance(s.targets[0], gast.Name)):
                continue
            base = _shared_source(s.value, scope)
            if base is None:
                continue
            view, total, seen = s.targets[0].id, loads.get(s.targets[0].id, 0), 0
            for later in block[i + 1:]:
                if seen == total:
                    break
                names, written = parts(later)
                if view in written or any(
                        n.id == view and isinstance(n.ctx, gast.Store) for n in names):
                    break
                reads = sum(1 for n in names if n.id == view and isinstance(n.ctx, gast.Load))
                compound = isinstance(later, (gast.If, gast.For, gast.While))
                if base in written and (seen + reads < total or (compound and reads)):
                    break
                seen += reads
            if seen == total:
                safe.add(id(s))
    return safe


def _walk_own(stmt):
    """The nodes of one statement, not of the blocks nested in it."""
    if isinstance(stmt, (gast.If, gast.For, gast.While)):
        head = stmt.test if not isinstance(stmt, gast.For) else stmt.iter
        return list(T.walk(head))
    return list(T.walk(stmt))


def _shared_source(value, scope):
    """The variable whose array ``value`` may share: ``y`` in ``y``, ``y[1:]``, ``y.T``."""
    if isinstance(value, gast.Name):
        return value.id
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        # Even ``a[0]`` is a view when ``a`` has two dimensions.
        return value.value.id
    if isinstance(value, gast.Attribute) and value.attr in table.VIEW_ATTRIBUTES \
            and isinstance(value.value, gast.Name):
        return value.value.id
    if isinstance(value, gast.Call):
        f = value.func
        if isinstance(f, gast.Attribute) and f.attr in table.VIEW_METHODS \
                and isinstance(f.value, gast.Name):
            return f.value.id
        if _is_view_call(value, scope) and value.args and isinstance(value.args[0], gast.Name):
            return value.args[0].id
    return None


def _is_view_call(call, scope):
    obj = scope.value(call.func)
    return getattr(obj, "__name__", None) in table.VIEW_FUNCTIONS
