"""``sg.grad(inner)`` of a def (or lambda) nested in the differentiated code.

A nested def's gradient is made when the code runs, over the variables of the
enclosing function it reads: the outer gradient must see through both. The def
is lifted out, when compiling, into a function of its own that takes those
variables as its first parameters, and its gradient is taken with respect to
the same parameters, shifted past them::

    def outer(x):                         def inner_lifted(x, /, y):   (made here)
        def inner(y):                         return y * x
            return y * x            ->
        return sg.grad(inner)(x) * 2      sg.grad(inner_lifted, wrt=1)(x, x) * 2

Passed as arguments when the gradient is called, the enclosing values are read
then, as the closure reads them. The gradient's generated code is inlined and
differentiated like any gradient's (``calls.py``): the outer gradient flows
through the values the def reads as through its arguments.
"""
import copy
import dataclasses
import linecache

import gast

from ...ir import anno
from ...ir.atoms import is_constant
from ...ir.names import walk_stmts
from ...ir.scopes import function_locals
from ...ir.varied import closure_reads


def lifted_gradient(norm, make, fn_def, args, kwargs):
    """``make(fn, *args, **kwargs)`` (``sg.grad`` or ``sg.value_and_grad``) of the nested
    def ``fn_def`` lifted out (``args[0]`` is the def). Returns the gradient and the
    names of the enclosing variables to pass first when calling it."""
    where = f"`{make.__name__}({fn_def.name})`"
    if norm.load is None:
        raise norm.ctx.error(f"{where} of a function defined inside the code differentiated "
                             "is not supported here", norm.cur,
                             f"define `{fn_def.name}` at module level and pass the variables "
                             f"it reads as arguments: sg.grad({fn_def.name}, wrt=0)(y, x)")
    a = fn_def.args
    if not all(is_constant(d) for d in list(a.defaults) + [d for d in a.kw_defaults if d]):
        raise norm.ctx.error(f"{where}: `{fn_def.name}` has a default value computed when "
                             "it is defined, which srcgrad cannot lift out with it", norm.cur,
                             "give its parameters constant defaults, or none")
    reads = closure_reads(fn_def.name, norm.scope)
    defs = sorted(n for n in reads & set(norm.scope.local_defs) if n != fn_def.name)
    captured = sorted((reads & norm.scope.locals) - set(defs) - {fn_def.name})
    clash = set(captured) & function_locals(fn_def)
    if clash:
        name = sorted(clash)[0]
        raise norm.ctx.error(f"{where}: `{name}` is a variable of `{fn_def.name}` and one of "
                             "the enclosing function that a function it calls reads", norm.cur,
                             f"rename one of the two `{name}`")
    lifted = _lifted_def(norm, fn_def, captured, defs)
    fn = norm.load(lifted)
    shift = len(captured)
    wrt = kwargs.get("wrt", args[1] if len(args) > 1 else 0)
    shifted = type(wrt)(_shifted(w, shift) for w in wrt) if isinstance(wrt, (tuple, list)) \
        else _shifted(wrt, shift)
    rest = {k: v for k, v in kwargs.items() if k != "wrt"}
    return make(fn, shifted, **rest), captured


def _shifted(wrt, shift):
    """A ``wrt`` index past the enclosing variables passed first (names stay names; a
    negative index counts from the end either way)."""
    return wrt + shift if isinstance(wrt, int) and not isinstance(wrt, bool) and wrt >= 0 \
        else wrt


def _lifted_def(norm, fn_def, captured, defs):
    """``def <name>_lifted(<captured>, /, <its parameters>)`` with the nested defs it calls
    first in its body; each statement keeps the user's line."""
    for d in [fn_def] + [norm.scope.local_defs[d] for d in defs]:
        _stamp(d, anno.origin(d) or anno.origin(norm.cur))
    node = copy.deepcopy(fn_def)
    params = [gast.Name(c, gast.Param(), None, None) for c in captured]
    node.args.posonlyargs = params + node.args.posonlyargs
    node.body = [copy.deepcopy(norm.scope.local_defs[d]) for d in defs] + node.body
    node.name = f"{fn_def.name}_lifted"
    node.decorator_list = []
    for s in _all_stmts(node.body):
        if anno.origin(s) is None:
            anno.like(s, norm.cur)
    return node


def _stamp(fn_def, origin):
    """Origins of a nested def's statements, by their lines' distance from the def's own
    (which the pipeline stamped): errors in the lifted code name the user's lines."""
    if origin is None or not hasattr(fn_def, "lineno"):
        return
    for s in _all_stmts(fn_def.body):
        if anno.origin(s) is None and hasattr(s, "lineno"):
            line = origin.lineno + s.lineno - fn_def.lineno
            text = linecache.getline(origin.filename, line).strip()
            anno.set_origin(s, dataclasses.replace(origin, lineno=line, text=text))


def _all_stmts(body):
    """Every statement, those of nested defs included."""
    for s in walk_stmts(body):
        yield s
        if isinstance(s, gast.FunctionDef):
            yield from _all_stmts(s.body)
