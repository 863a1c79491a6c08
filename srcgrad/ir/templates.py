"""Build AST from readable source strings with placeholders.

``expr("np.sum(x, axis=a)", x=node, a=gast.Constant(0, None))`` parses the
text and substitutes each placeholder name by a copy of the node given
(a string means a plain name). Every placeholder given must be used: a
template that silently ignores an argument hides a bug.

The names a template's text says itself (``_sg``, ``np``, ``len``, ``range``,
``reversed``...) are marked ``sg_own``: they mean srcgrad's runtime, NumPy and the
builtins, never the user's variables of the same names (``codegen`` makes sure).
"""
from functools import lru_cache

import gast


@lru_cache(maxsize=None)
def _parse(text):
    body = gast.parse(text).body
    for s in body:
        for n in walk(s):
            if n.__class__ is gast.Name:
                n.sg_own = True  # (copied with the node; placeholders are replaced)
    return body


def own_object(id_):
    """What a template's name ``id_`` means: srcgrad's runtime (``_sg``), NumPy (``np``,
    ``_np``), ``math`` (``math``, ``_math``), or the builtin of that name."""
    if id_ == "_sg":
        from .. import runtime
        return runtime
    if id_ in ("_np", "np"):
        import numpy
        return numpy
    if id_ in ("_math", "math"):
        import math
        return math
    import builtins
    return getattr(builtins, id_)


def is_own(id_):
    """Does a template's name ``id_`` mean one of ``own_object``'s (else a template's own
    temporary)?"""
    import builtins
    return id_ in ("_sg", "_np", "np", "_math", "math") or hasattr(builtins, id_)


def own_name(id_):
    """A name meaning srcgrad's own object (``_sg``, a builtin, a module), as the names
    of a template's text are: never the user's variable of that name."""
    node = name(id_)
    node.sg_own = True
    return node


def clone(node):
    """A copy of a gast tree: new nodes and lists, everything else shared.

    ``copy.deepcopy`` would also copy the annotations' objects; compile time
    goes largely into copying templates, and this is several times faster.
    """
    if isinstance(node, gast.AST):
        new = node.__class__.__new__(node.__class__)
        d = new.__dict__
        for key, value in node.__dict__.items():
            d[key] = clone(value) if isinstance(value, (gast.AST, list)) else value
        return new
    if isinstance(node, list):
        return [clone(v) if isinstance(v, (gast.AST, list)) else v for v in node]
    return node


class _Substitute(gast.NodeTransformer):
    def __init__(self, subs):
        self.subs = subs
        self.used = set()

    def visit_Name(self, node):
        if node.id in self.subs:
            self.used.add(node.id)
            new = self.subs[node.id]
            if isinstance(new, str):
                return gast.Name(new, node.ctx, None, None)
            new = clone(new)
            if isinstance(new, gast.Name):
                new.ctx = node.ctx
            elif isinstance(node.ctx, gast.Store):
                _FixCtx()._store(new)
            else:
                _FixCtx()._load(new)
            return new
        return node


_CHILD_FIELDS = {}  # node class -> the fields that may hold nodes


def walk(node):
    """Every node of a gast tree, as ``gast.walk`` (in another order), faster.

    Expression contexts (the ``Load()`` of each ``Name``) are not visited: the
    compiler asks a name its ``ctx``, never looks for context nodes.
    """
    todo = [node]
    pop, push, extend = todo.pop, todo.append, todo.extend
    while todo:
        n = pop()
        yield n
        cls = n.__class__
        fields = _CHILD_FIELDS.get(cls)
        if fields is None:
            fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields
                                                if f not in ("ctx", "id", "type_comment"))
        for f in fields:
            v = getattr(n, f, None)
            if v.__class__ is list:
                extend([c for c in v if isinstance(c, gast.AST)])
            elif isinstance(v, gast.AST):
                push(v)


def stmts(text, **subs):
    body = clone(_parse(text))
    sub = _Substitute(subs)
    body = [sub.visit(s) for s in body]
    unused = set(subs) - sub.used
    if unused:
        raise ValueError(f"template placeholders not used: {sorted(unused)} in {text!r}")
    return body  # parsed with the right contexts; substituted nodes fixed above


def stmt(text, **subs):
    (only,) = stmts(text, **subs)
    return only


def expr(text, **subs):
    return stmt(text, **subs).value


def name(id_, store=False):
    return gast.Name(id_, gast.Store() if store else gast.Load(), None, None)


def const(value):
    return gast.Constant(value, None)


def comment(text):
    """A statement that ``codegen`` turns into a ``# text`` line."""
    node = gast.Expr(const("__comment__" + text))
    node.sg_comment = True
    return node


def unless_finite(value, again):
    """``if not _sg.all_finite(value): <again>``: a gradient computed again with strong
    zeros where it came out non-finite (``runtime/strong.py``)."""
    return gast.If(expr("not _sg.all_finite(v)", v=value), again, [])


def assign(target, value):
    """``target = value``; target a name string or a node."""
    if isinstance(target, str):
        target = name(target, store=True)
    node = gast.Assign([target], value, None)
    fixer = _FixCtx()
    fixer._load(value)
    fixer._store(target)
    return node


_WITH_CTX = (gast.Name, gast.Subscript, gast.Attribute, gast.Tuple, gast.List, gast.Starred)


class _FixCtx(gast.NodeVisitor):
    """Give every Name/Subscript/Attribute/Tuple the ctx its position implies."""

    def _store(self, target):
        if isinstance(target, (gast.Name, gast.Subscript, gast.Attribute, gast.Starred)):
            target.ctx = gast.Store()
            if isinstance(target, gast.Starred):
                self._store(target.value)
            else:
                for child in gast.iter_child_nodes(target):
                    if child is not getattr(target, "ctx", None):
                        self._load(child)
        elif isinstance(target, (gast.Tuple, gast.List)):
            target.ctx = gast.Store()
            for elt in target.elts:
                self._store(elt)

    def _load(self, node):
        for n in walk(node):
            if isinstance(n, _WITH_CTX):
                kind = getattr(n, "ctx", None).__class__
                if kind is not gast.Load and kind is not gast.Param:
                    n.ctx = gast.Load()

    def visit_Assign(self, node):
        self._load(node.value)
        for t in node.targets:
            self._store(t)

    def visit_AugAssign(self, node):
        self._load(node.value)
        self._store(node.target)

    def visit_For(self, node):
        self._load(node.iter)
        self._store(node.target)
        for s in node.body + node.orelse:
            self.visit(s)

    def visit_Delete(self, node):
        for t in node.targets:
            t.ctx = gast.Del()

    def visit_comprehension(self, node):
        self._load(node.iter)
        for cond in node.ifs:
            self._load(cond)
        self._store(node.target)

    def generic_visit(self, node):
        if isinstance(node, gast.expr):
            # Expressions: loads, except comprehension targets handled above.
            for child in gast.iter_child_nodes(node):
                if isinstance(child, gast.comprehension):
                    self.visit_comprehension(child)
                else:
                    self.generic_visit(child)
            if isinstance(node, (gast.Name, gast.Subscript, gast.Attribute, gast.Tuple, gast.List)):
                if not isinstance(getattr(node, "ctx", None), (gast.Param, gast.Store)):
                    node.ctx = gast.Load()
            return
        super().generic_visit(node)


def fix_ctx(node):
    _FixCtx().visit(node)
    return node
