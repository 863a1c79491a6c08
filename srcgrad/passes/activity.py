"""Activity analysis: which variables need adjoints.

Two halves, as in Tangent and JAX: *varied* runs forward from the inputs we
differentiate with respect to, *useful* runs backward from the returned
value; only their intersection gets adjoint code. Both are flow-insensitive
fixpoints over variable names, which over-approximates and so never drops a
gradient.
"""
import gast

from ..ir import anno
from ..ir.names import walk_stmts
from ..ir.resolve import MISSING
from ..ir.scopes import free_names
from ..rules import table


def _names(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}


def _nondiff(scope, func):
    obj = scope.value(func)
    return obj is not MISSING and table.nondiff(obj)


def expr_varied(node, varied, scope):
    """Can the value of expression ``node`` depend on a varied variable?"""
    if node is None or isinstance(node, (gast.Constant, gast.JoinedStr, gast.Compare)):
        return False
    if scope.is_source(node):
        return True
    if isinstance(node, gast.Name):
        return node.id in varied
    if isinstance(node, gast.Attribute):
        if node.attr in table.NONDIFF_ATTRIBUTES:
            return False
        return expr_varied(node.value, varied, scope)
    if isinstance(node, gast.Subscript):
        return expr_varied(node.value, varied, scope)
    if isinstance(node, gast.UnaryOp) and not isinstance(node.op, (gast.USub, gast.UAdd)):
        return False  # not, ~: booleans and bits carry no gradient
    if isinstance(node, gast.BinOp):
        fn = table.OPERATORS.get(type(node.op).__name__)
        if fn is None or table.nondiff(fn):
            return False  # //, &, |, ^, <<: integer-valued or boolean
    if isinstance(node, gast.Call):
        if _nondiff(scope, node.func):
            return False
        f = node.func
        if isinstance(f, gast.Attribute) and f.attr in table.METHODS \
                and table.nondiff(table.METHODS[f.attr][0]) \
                and scope.value(f) is MISSING:
            return False  # x.argmax(), x.round(): array methods without a gradient
        if scope.calls_user_code(node):
            return True
        parts = list(node.args) + [k.value for k in node.keywords]
        if isinstance(node.func, gast.Name) and node.func.id in scope.local_defs:
            # A nested function reads its enclosing variables: a closure over
            # a varied value is varied even when its arguments are not.
            parts += [gast.Name(n, gast.Load(), None, None)
                      for n in closure_reads(node.func.id, scope)]
        if isinstance(node.func, gast.Attribute):
            parts.append(node.func.value)
        return any(expr_varied(p, varied, scope) for p in parts)
    if isinstance(node, (gast.ListComp, gast.GeneratorExp)):
        inner = set(varied)
        for gen in node.generators:
            if expr_varied(gen.iter, inner, scope):
                inner |= _names(gen.target)
        return expr_varied(node.elt, inner, scope)
    if isinstance(node, gast.IfExp):
        return expr_varied(node.body, varied, scope) or expr_varied(node.orelse, varied, scope)
    return any(expr_varied(c, varied, scope) for c in gast.iter_child_nodes(node)
               if isinstance(c, gast.expr))


def closure_reads(name, scope):
    """Enclosing variables a nested def reads, directly or through nested defs it calls."""
    seen, todo, reads = set(), [name], set()
    while todo:
        fn = scope.local_defs.get(todo.pop())
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        free = free_names(fn)
        reads |= free
        todo.extend(free & set(scope.local_defs))
    return reads


def literal_items(value):
    """(key, item) pairs of a list, tuple or dict literal."""
    if isinstance(value, gast.Dict):
        return list(zip(value.keys, value.values))
    return [(gast.Constant(i, None), e) for i, e in enumerate(value.elts)]


def _target_names(target):
    return [n.id for n in gast.walk(target) if isinstance(n, gast.Name)]


def flow(s):
    """(written names, read names that flow into them) for one statement.

    Only differentiable dependencies count: an index, an axis or a branch
    condition carries no gradient.
    """
    kind = anno.kind(s)
    if kind == "prim":
        reads = set()
        for atom in s.sg_args.values():
            reads |= _names(atom) if isinstance(atom, gast.Name) else set()
        return [s.targets[0].id], reads
    if kind == "copy":
        return [s.targets[0].id], {s.value.id}
    if kind == "getitem":
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
        return [n for t in s.targets for n in _target_names(t)], _names(s.value)
    return [], set()


class Activity:
    def __init__(self, varied, useful):
        self.varied = varied
        self.useful = useful
        self.active = varied & useful

    def __contains__(self, name):
        return name in self.active


def analyze(body, wrt, result):
    """Activity of a normalized body whose inputs are ``wrt`` and output ``result``.

    ``result`` is a name, or a set of names (a tape's targets).
    """
    flows = [(s, *flow(s)) for s in walk_stmts(body)]
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
    while changed:
        changed = False
        for _, writes, reads in flows:
            if any(w in useful for w in writes):
                new = (reads & varied) - useful
                if new:
                    useful |= new
                    changed = True
    act = Activity(varied, useful)
    for s, writes, _ in flows:
        norule = getattr(s, "sg_norule", None)
        if norule is not None and any(w in act for w in writes):
            raise norule
    return act
