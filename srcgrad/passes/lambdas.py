"""Lambdas written inside a function become nested defs, which the compiler inlines.

Runs once, on the parsed function. A lambda is a closure made when its
expression is evaluated; the def put right before the statement holding it
is the same closure (it reads the same variables when called), so nothing
changes but that it has a name::

    def loss(x):                        def loss(x):
        f = lambda v: np.sin(v) * 2         def _lambda_f(v):
        return np.sum(f(x))        ->           return np.sin(v) * 2
                                            f = _lambda_f
                                            return np.sum(f(x))

Lambdas inside a comprehension (which may read the comprehension's own
variables) and in a nested def's defaults stay lambdas, refused by the fence.
"""
import gast

from ..ir import templates as T

_SCOPES = (gast.Lambda, gast.FunctionDef, gast.ListComp, gast.SetComp, gast.DictComp,
           gast.GeneratorExp)


def hoist(fn):
    """Rewrite the lambdas of ``fn`` (a gast FunctionDef) and its nested defs, in place."""
    taken = {n.id for n in T.walk(fn) if isinstance(n, gast.Name)} | \
        {n.name for n in T.walk(fn) if isinstance(n, gast.FunctionDef)}
    _Hoister(taken).body(fn)


class _Hoister:
    def __init__(self, taken):
        self.taken = taken

    def body(self, owner, field="body"):
        out = []
        for s in getattr(owner, field):
            defs = []
            for expr in _own_expressions(s):
                self._replace(expr, s, defs)
            out += defs + [s]
            for inner in ("body", "orelse"):
                if isinstance(getattr(s, inner, None), list) and not isinstance(s, gast.ClassDef):
                    self.body(s, inner)
        setattr(owner, field, out)

    def _replace(self, node, stmt, defs):
        """Replace the lambdas in ``node``'s own scope by names of new defs (added to
        ``defs``, before ``stmt``)."""
        for name, child in gast.iter_fields(node):
            items = child if isinstance(child, list) else [child]
            for i, item in enumerate(items):
                if isinstance(item, gast.Lambda):
                    ref = self._define(item, stmt, defs)
                    if isinstance(child, list):
                        child[i] = ref
                    else:
                        setattr(node, name, ref)
                elif isinstance(item, gast.AST) and not isinstance(item, _SCOPES):
                    self._replace(item, stmt, defs)

    def _define(self, lam, stmt, defs):
        name = self._fresh(stmt)
        ret = gast.Return(lam.body)
        fn = gast.FunctionDef(name, lam.args, [ret], [], None, None, [])
        for n in (fn, ret):
            gast.copy_location(n, lam)
        self.body(fn)  # lambdas inside its body
        defs.append(fn)
        return gast.copy_location(gast.Name(name, gast.Load(), None, None), lam)

    def _fresh(self, stmt):
        base = "_lambda"
        targets = getattr(stmt, "targets", None)
        if targets and isinstance(targets[0], gast.Name):
            base = f"_lambda_{targets[0].id}"  # named after the variable it is bound to
        name, k = base, 1
        while name in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name)
        return name


def _own_expressions(s):
    """The expressions a statement evaluates itself (not its nested blocks')."""
    if isinstance(s, (gast.If, gast.While)):
        return [s.test]
    if isinstance(s, gast.For):
        return [s.iter]
    if isinstance(s, (gast.FunctionDef, gast.ClassDef)):
        return []  # a nested def's own lambdas are hoisted inside it (body() recurses)
    return [s]
