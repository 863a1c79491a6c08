"""Inlining of user functions, methods and ``__call__``: the callee's body replaces the call.

The callee is parsed (or, for a nested def, copied), its locals renamed after
it (``dense_x`` for ``x`` inside ``Dense.__call__``), its free names made to
mean what they mean in its own module, desugared, and bound to the call's
arguments. Recursion cannot be inlined and is refused. Part of the normalize
pass: ``inline`` takes the ``Normalizer`` (``norm``) whose call it replaces.
"""
import copy

import gast

from ... import trees
from ...ir import anno, templates as T
from ...ir.atoms import is_static_object
from ...ir.names import walk_stmts
from ...ir.resolve import MISSING
from ...ir.scopes import function_locals
from . import global_names


class _Rename(gast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            node.id = self.mapping[node.id]
        return node

    def visit_FunctionDef(self, node):
        if node.name in self.mapping:
            node.name = self.mapping[node.name]
        # Its defaults are evaluated where it is defined: outer names.
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        node.args.kw_defaults = [d if d is None else self.visit(d) for d in node.args.kw_defaults]
        # Parameters of a nested def shadow outer names: leave them alone.
        inner = function_locals(node)
        saved = self.mapping
        self.mapping = {k: v for k, v in saved.items() if k not in inner}
        node.body = [self.visit(s) for s in node.body]
        self.mapping = saved
        return node


def rename(node, mapping):
    """Rename free occurrences of ``mapping``'s keys in ``node``.

    For a FunctionDef, its own parameters and body are renamed (the names are
    its locals); nested definitions keep their own locals.
    """
    r = _Rename(mapping)
    if isinstance(node, gast.FunctionDef):
        node.args = r.visit(node.args)
        node.body = [r.visit(s) for s in node.body]
        return node
    return r.visit(node)


def _prefix(fn, label):
    """What the callee's renamed locals start with: ``dense_x`` in ``Dense.__call__``."""
    if not label.startswith("__"):
        return label
    if isinstance(fn, gast.FunctionDef):
        return label.strip("_")
    return fn.__qualname__.split(".")[0].lower()


def inline(norm, fn, receiver, node, out, dest):
    """Replace the call ``node`` of ``fn`` (a function, or a nested def's node) by its body.

    The statements binding the arguments and the renamed body go to ``out``;
    the returned value is assigned to ``dest``.
    """
    chain = getattr(norm.cur, "sg_chain", ())
    key = fn if not isinstance(fn, gast.FunctionDef) else id(fn)
    held = _receiver_class(norm, receiver if receiver is not None or not node.args
                           else node.args[0])
    if held is not None:
        # (A base class's method on objects of other classes, Keras's ``Layer.__call__``
        # calling ``self.call`` of a model, then of its layer: no recursion.)
        key = (key, held)
    label = fn.name if isinstance(fn, gast.FunctionDef) else fn.__name__
    if len(chain) > 40:
        if key in chain:
            raise norm.ctx.error(
                f"recursive call to `{label}` is not supported: its constant arguments do not "
                "end the recursion within 40 calls when compiled", norm.cur,
                "rewrite the recursion as a loop")
        raise norm.ctx.error("calls nested too deeply to inline", norm.cur)
    caller, chain = chain, chain + (key,)
    callee, mapping, defaults_src = _renamed_callee(norm, fn, label, chain)
    binds = _arguments(norm, fn, callee, mapping, defaults_src, receiver, node, label)
    statics = _static_parameters(norm, callee, binds)
    if key in caller:
        _check_recursion(norm, key, label, statics)
    norm.static_args.update(statics)
    for p, value in binds:
        bind = anno.like(T.assign(p, value), norm.cur)
        # (An argument is the caller's expression: ``sq(sq(x))`` is no recursion.)
        bind.sg_chain = caller
        obj = norm.scope.value(value) if isinstance(value, (gast.Name, gast.Attribute)) else MISSING
        if obj is not MISSING and is_static_object(obj):
            norm.scope.static[p] = obj
        elif isinstance(value, gast.Name) and value.id in norm.ctx.records:
            # (``self`` of a record's method: a record of that class, known now, for the
            # calls its body makes on it: ``_receiver_class``)
            norm.ctx.records[p] = norm.ctx.records[value.id]
            norm.ctx.record_fields[p] = norm.ctx.record_fields.get(value.id, {})
        elif isinstance(value, gast.Name) and (type(norm.scope.static.get(value.id)) in (list, dict)
                                               or value.id in norm.compiled_containers):
            # (changing it is refused: normalizer._check_static_unchanged)
            norm.compiled_containers[p] = norm.scope.static.get(
                value.id, norm.compiled_containers.get(value.id))
        out.append(bind)
    body = callee.body
    ret = body[-1]
    out += body[:-1]
    if dest is not None:
        returned = _record_returned(norm, callee, ret)
        if returned is not None:  # (``return Vec(self.a * s)``: a record, known now)
            norm.ctx.records[dest] = returned
        elif any(_record_class(norm, n) is not None for n in T.walk(callee)):
            norm.maybe_records.add(dest)  # known in the next round (calls.record_operator)
        final = anno.like(T.assign(dest, ret.value if ret.value is not None else T.const(None)), ret)
        final.sg_chain = chain
        if isinstance(ret.value, gast.Name) and any(
                isinstance(s, gast.FunctionDef) and s.name == ret.value.id for s in body):
            final.sg_made_closure = True  # a closure over this call's frame (functions.py)
        out.append(final)
    norm.changed = True
    return dest


def _record_class(norm, node):
    """The record class (dataclass, namedtuple) ``node`` calls, or None."""
    if not isinstance(node, gast.Call) or not isinstance(node.func, (gast.Name, gast.Attribute)):
        return None
    cls = norm.scope.value(node.func)
    return cls if isinstance(cls, type) and trees.record_fields(cls) is not None else None


def _record_returned(norm, callee, ret):
    """The record class every value ``callee`` returns is built by, or None."""
    value = ret.value
    if isinstance(value, gast.Name):
        values = [s.value for s in walk_stmts(callee.body) if isinstance(s, gast.Assign)
                  and any(isinstance(t, gast.Name) and t.id == value.id for t in s.targets)]
    else:
        values = [value]
    classes = {_record_class(norm, v) for v in values}
    return classes.pop() if len(classes) == 1 and values else None


def _static_parameters(norm, callee, binds):
    """Parameters bound to constants of the code (``depth=3``, ``k - 1`` of another such)
    that the callee never rebinds: their tests are decided when compiling."""
    from .normalizer import static_argument

    rebound = {n.id for s in callee.body for n in T.walk(s)
               if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    rebound |= {name for s in callee.body for n in T.walk(s)
                if isinstance(n, (gast.Global, gast.Nonlocal)) for name in n.names}
    out = {}
    for p, value in binds:
        v = static_argument(value, norm.known_constants())
        if v is not MISSING and p not in rebound:
            out[p] = v
    return out


_RECURSION_MAX = 256  # inlined calls of one recursive function, in all


def _receiver_class(norm, receiver):
    """The class of the object a method is inlined on, where the compiler knows it."""
    if receiver is None:
        return None
    if isinstance(receiver, gast.Name) and receiver.id in norm.ctx.records:
        return norm.ctx.records[receiver.id]
    if isinstance(receiver, gast.Name) and receiver.id in norm.ctx.objects:
        return norm.ctx.objects[receiver.id].cls  # (``Cls.m(obj, x)`` of an object built here)
    obj = norm.scope.value(receiver) if isinstance(receiver, (gast.Name, gast.Attribute)) \
        else MISSING
    return type(obj) if obj is not MISSING and is_static_object(obj) else None


def _check_recursion(norm, key, label, statics):
    """A recursive call is inlined when an argument that decides it is a constant of the
    code (``bspline(x, knots, k - 1)`` down to ``if k == 0``): the tests on it are
    decided when compiling, so the inlining ends where the recursion does. Otherwise
    (or when it does not end soon) it is refused."""
    count = norm.recursions.get(key, 0) + 1
    norm.recursions[key] = count
    if not statics:
        raise norm.ctx.error(
            f"recursive call to `{label}` is not supported: none of its arguments is a "
            "constant of the code that decides when the recursion ends", norm.cur,
            "rewrite the recursion as a loop, or pass the depth as an int constant "
            f"(`{label}(x, depth=3)`, tested as `if depth == 0:`)")
    if count > _RECURSION_MAX:
        raise norm.ctx.error(
            f"recursive call to `{label}` is not supported: its recursion goes deeper than "
            f"{_RECURSION_MAX} calls when compiled", norm.cur, "rewrite the recursion as a loop")


def _renamed_callee(norm, fn, label, chain):
    """A desugared copy of ``fn``'s def with its locals renamed after it, its free names
    bound to what they mean in its module, and its statements stamped with their origin
    and the ``chain`` of calls inlined to reach them.

    Returns (the def, old name -> new name, a nested def's default expressions or None).
    """
    if isinstance(fn, gast.FunctionDef):
        a = fn.args
        computed = [d for d in a.defaults + a.kw_defaults if d is not None and any(
            isinstance(n, gast.Name) and n.id in norm.scope.locals for n in T.walk(d))]
        if computed:
            # Python evaluates it once, where the def runs; inlined, it would be read
            # where the call is, after the names it reads may have changed.
            raise norm.ctx.error(
                f"calling `{label}`, whose default value `{gast.unparse(computed[0]).strip()}` "
                "is computed from local variables when it is defined, is not supported", norm.cur,
                f"pass the value as an argument to `{label}`, or give it a constant default")
        callee = copy.deepcopy(fn)
        src = None
        defaults_src = list(callee.args.defaults)
    else:
        src = norm.ctx.source(fn)
        callee = T.clone(src.node)  # as parsed: no annotations to copy
        defaults_src = None
    if src is not None:
        _explicit_super(norm, fn, callee)
    global_names.lower(norm, callee, src.globals if src is not None else norm.ctx.src.globals)
    prefix = _prefix(fn, label)
    local = function_locals(callee) if src is None else src.names[0]
    mapping = {n: norm.ctx.namer.fresh(f"{prefix}_{n}") for n in sorted(local)}
    if src is not None:
        mapping.update(norm.ctx.import_free_names(src, callee))
    norm.ctx.note_renames(mapping)
    callee = rename(callee, mapping)
    norm.ctx.namer.reserve(n.id for n in T.walk(callee) if isinstance(n, gast.Name))
    norm.desugar(callee, norm.ctx.namer, f"{prefix}_result")
    stamp = src.origin if src is not None else None
    for s in walk_stmts(callee.body):
        if stamp is not None and anno.origin(s) is None:
            anno.set_origin(s, stamp(s))
        elif anno.origin(s) is None:
            anno.like(s, norm.cur)
        s.sg_chain = chain
    return callee, mapping, defaults_src


def _explicit_super(norm, fn, callee):
    """``super()`` in a method reads its class from a cell and its object from the first
    parameter; inlined, neither is there: ``super(Cls, self)`` says both."""
    if "__class__" not in fn.__code__.co_freevars:
        return
    cls = fn.__closure__[fn.__code__.co_freevars.index("__class__")].cell_contents
    params = callee.args.posonlyargs + callee.args.args
    for node in T.walk(callee):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                and node.func.id == "super" and not node.args and params:
            node.args = [norm.ctx.constant(cls), gast.Name(params[0].id, gast.Load(), None, None)]


def _arguments(norm, fn, callee, mapping, defaults_src, receiver, node, label):
    """(renamed parameter, value) for each parameter of ``callee`` in the call ``node``,
    as Python binds them: positional, keyword, default, ``*args``, ``**kwargs``."""
    a = callee.args
    pos_params = [p.id for p in a.posonlyargs + a.args]
    args = list(node.args)
    if receiver is not None:
        args.insert(0, receiver)
    binds = []
    if len(args) > len(pos_params) and a.vararg is None:
        raise norm.ctx.error(f"too many arguments in call to `{label}`", norm.cur)
    given, extra_keywords = {}, []
    for p, v in zip(pos_params, args):
        given[p] = v
    named = pos_params[len(a.posonlyargs):] + [k.id for k in a.kwonlyargs]
    for kw in node.keywords:
        target = mapping.get(kw.arg, kw.arg)
        if target not in named:
            if a.kwarg is None:
                raise norm.ctx.error(f"`{label}` got an unexpected keyword argument "
                                     f"`{kw.arg}`", norm.cur)
            extra_keywords.append(kw)  # collected by ``**kwargs``
            continue
        if target in given:
            raise norm.ctx.error(f"`{label}` got multiple values for argument `{kw.arg}`",
                                 norm.cur)
        given[target] = kw.value
    defaults = _defaults(norm, fn, callee, defaults_src, mapping)
    for p in pos_params + [k.id for k in a.kwonlyargs]:
        if p in given:
            value = given[p]
        elif p in defaults:
            value = defaults[p]
        else:
            raise norm.ctx.error(f"missing argument for `{label}`", norm.cur)
        binds.append((p, value))
    if a.vararg is not None:
        extra = args[len(pos_params):]
        binds.append((a.vararg.id, gast.Tuple(extra, gast.Load())))
    if a.kwarg is not None:
        # ``**kwargs``: a dict display of the keywords no parameter takes, in the call's
        # order; its keys are known when compiling (``structure.py``).
        binds.append((a.kwarg.id, gast.Dict([T.const(k.arg) for k in extra_keywords],
                                            [k.value for k in extra_keywords])))
    return binds


def _defaults(norm, fn, callee, defaults_src, mapping):
    a = callee.args
    pos = [p.id for p in a.posonlyargs + a.args]
    out = {}
    if defaults_src is not None:
        for p, d in zip(pos[len(pos) - len(defaults_src):], defaults_src):
            out[p] = d
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if d is not None:
                out[p.id] = d
        return out
    values = fn.__defaults__ or ()
    for p, v in zip(pos[len(pos) - len(values):], values):
        out[p] = norm.ctx.constant(v)
    kwd = fn.__kwdefaults__ or {}
    for original, value in kwd.items():
        # (renamed after the callee: ``layer_training``, ``layer_training_2`` for the
        # second call inlined)
        out[mapping.get(original, original)] = norm.ctx.constant(value)
    return out
