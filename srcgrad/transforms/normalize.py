"""Normalize differentiable code to one operation per statement, inlining user calls.

Only statements that compute something varied (dependent on the inputs we
differentiate with respect to) are split; everything else stays exactly as the
user wrote it. Temporaries are named after the variable they help compute
(``loss_sub`` for the subtraction inside ``loss = ...``). Calls to user
functions, methods and ``__call__`` with varied arguments are replaced by the
callee's body (renamed, desugared), so the generated code is one function with
no call overhead; recursion cannot be inlined and is refused.

Before/after (``x`` varied)::

    loss = np.sum((x - y) ** 2)     loss_sub = x - y
                                    loss_pow = loss_sub ** 2
                                    loss = np.sum(loss_pow)

The pass repeats until nothing changes, because inlining a callee can make
more variables varied.
"""
import builtins
import copy
import types

import gast

from .. import derivatives
from .. import templates as T
from ..rules import params as rule_params
from . import anno
from .activity import expr_varied, walk_stmts
from .desugar import desugar
from .resolve import MISSING, is_library
from .scopes import function_locals

_OP_NAMES = {
    gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "div", gast.Pow: "pow",
    gast.MatMult: "matmul", gast.Mod: "mod", gast.FloorDiv: "floordiv", gast.USub: "neg",
    gast.UAdd: "pos",
}


def _is_constant(node):
    """Literal constants that may be repeated in adjoint code as they are."""
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return _is_constant(node.operand)
    if isinstance(node, gast.Tuple):
        return all(_is_constant(e) for e in node.elts)
    return False


def _assigned_names(body):
    counts = {}
    for s in walk_stmts(body):
        targets = []
        if isinstance(s, gast.Assign):
            targets = s.targets
        elif isinstance(s, gast.For):
            targets = [s.target]
        elif isinstance(s, gast.FunctionDef):
            counts[s.name] = counts.get(s.name, 0) + 1
        for t in targets:
            if isinstance(t, (gast.Name, gast.Tuple, gast.List)):
                for n in gast.walk(t):
                    if isinstance(n, gast.Name):
                        counts[n.id] = counts.get(n.id, 0) + 1
    return counts


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


class Normalizer:
    def __init__(self, ctx):
        self.ctx = ctx
        self.scope = ctx.scope
        self.varied = set()
        self.changed = False
        self.counts = {}
        self._list_items = {}

    # -- driver --------------------------------------------------------------
    def run(self, fn, wrt):
        for _ in range(200):
            self.counts = _assigned_names(fn.body)
            self.scope.locals = set(self.counts) | function_locals(fn)
            self._find_static(fn.body)
            self.shared = self._find_shared(fn.body)
            self.varied = self._varied(fn.body, wrt)
            self.changed = False
            fn.body = self.block(fn.body)
            if not self.changed:
                fn.body = self._split_self_reference(fn.body)
                return fn
        raise self.ctx.error("function is too deeply nested to inline", fn)

    def _split_self_reference(self, body):
        """``x = x * y`` becomes ``x_new = x * y; x = x_new``.

        The backward pass reads a statement's inputs after it has restored them;
        an input that is also the target would already hold the new value.
        """
        out = []
        for s in body:
            for field in ("body", "orelse"):
                if isinstance(s, (gast.If, gast.For, gast.While)):
                    setattr(s, field, self._split_self_reference(getattr(s, field)))
            out.append(s)
            if anno.kind(s) in ("prim", "getitem", "literal"):
                target = s.targets[0].id
                if any(isinstance(n, gast.Name) and n.id == target for n in gast.walk(s.value)):
                    tmp = self.ctx.namer.fresh(target + "_new")
                    s.targets[0].id = tmp
                    if target in self.ctx.containers:
                        self.ctx.containers.add(tmp)
                    out.append(anno.set_kind(anno.like(T.assign(target, T.name(tmp)), s), "copy"))
        return out

    def _find_shared(self, body):
        """Names whose array may be reachable through another name.

        An in-place update (``a[i] = v``, ``x += v`` on an array) of such a
        name would change the other name's value too, which rebinding-based
        adjoints do not see. Conservative: a name bound from another name, an
        item, an attribute or a view (reshape, .T, ...), or whose value is
        copied, sliced, viewed or put in a container.
        """
        shared = set()
        for s in walk_stmts(body):
            if not isinstance(s, (gast.Assign, gast.Expr)):
                continue
            value = s.value
            for t in getattr(s, "targets", []):
                if isinstance(t, gast.Name) and not getattr(s, "sg_inplace", False) \
                        and _may_share(value, self.scope):
                    shared.add(t.id)
            if isinstance(value, gast.Name) and not isinstance(s, gast.Expr):
                shared.add(value.id)
            for n in gast.walk(value):
                if isinstance(n, (gast.List, gast.Tuple, gast.Dict)):
                    shared |= {e.id for e in getattr(n, "elts", getattr(n, "values", []))
                               if isinstance(e, gast.Name)}
                elif isinstance(n, gast.Call):
                    shared |= {a.id for a in n.args if isinstance(a, gast.Name)
                               and _is_view_call(n, self.scope)}
                    f = n.func
                    if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) \
                            and (f.attr == "append" or f.attr in _VIEW_METHODS):
                        shared |= {a.id for a in n.args if isinstance(a, gast.Name)}
                        if f.attr in _VIEW_METHODS:
                            shared.add(f.value.id)
                elif isinstance(n, gast.Attribute) and n.attr in ("T", "mT", "real") \
                        and isinstance(n.value, gast.Name):
                    shared.add(n.value.id)
                elif isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                        and not _scalar_index(n.slice):
                    shared.add(n.value.id)
        return shared

    def _find_static(self, body):
        """Single-assignment locals bound to a nested def or a static object."""
        for s in walk_stmts(body):
            if isinstance(s, gast.FunctionDef) and self.counts.get(s.name) == 1:
                self.scope.local_defs[s.name] = s
            elif (isinstance(s, gast.Assign) and len(s.targets) == 1
                  and isinstance(s.targets[0], gast.Name) and self.counts.get(s.targets[0].id) == 1
                  and isinstance(s.value, (gast.Name, gast.Attribute, gast.Subscript))):
                name = s.targets[0].id
                if name in self.scope.static:
                    continue
                obj = self.scope.value(s.value)
                if obj is not MISSING and _is_static_object(obj):
                    self.scope.static[name] = obj

    def _varied(self, body, wrt):
        varied = set(wrt)
        changed = True
        while changed:
            changed = False
            for s in walk_stmts(body):
                for name in self._writes_if_varied(s, varied):
                    if name not in varied:
                        varied.add(name)
                        changed = True
        return varied

    def _writes_if_varied(self, s, varied):
        scope = self.scope
        if isinstance(s, gast.Assign):
            names = []
            for t in s.targets:
                if isinstance(t, gast.Subscript):
                    t = t.value
                names += [n.id for n in gast.walk(t) if isinstance(n, gast.Name)
                          and isinstance(n.ctx, gast.Store)]
                if isinstance(t, gast.Name):
                    names.append(t.id)
            if anno.kind(s) == "prim":
                hit = any(isinstance(a, gast.Name) and a.id in varied for a in s.sg_args.values())
                return names if hit else []
            t, v = s.targets[0], s.value
            if isinstance(t, (gast.Tuple, gast.List)) and isinstance(v, (gast.Tuple, gast.List)) \
                    and len(t.elts) == len(v.elts):
                return [n.id for te, ve in zip(t.elts, v.elts) if expr_varied(ve, varied, scope)
                        for n in gast.walk(te) if isinstance(n, gast.Name)]
            return names if expr_varied(s.value, varied, scope) else []
        if isinstance(s, gast.For):
            if expr_varied(s.iter, varied, scope):
                return [n.id for n in gast.walk(s.target) if isinstance(n, gast.Name)]
            return []
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
            call = s.value
            if isinstance(call.func, gast.Attribute) and isinstance(call.func.value, gast.Name) \
                    and call.func.attr == "append":
                if any(expr_varied(a, varied, scope) for a in call.args):
                    return [call.func.value.id]
        return []

    # -- statements ----------------------------------------------------------
    def block(self, stmts):
        out = []
        for s in stmts:
            out += self.stmt(s)
        return out

    def stmt(self, s):
        self.cur = s
        self.root = _root(s)
        k = anno.kind(s)
        if (k is not None and k != "opaque") or getattr(s, "sg_norule", None) is not None:
            return [s]
        if isinstance(s, gast.If):
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
            return [s]
        if isinstance(s, gast.While):
            s.body = self.block(s.body)
            return [s]
        if isinstance(s, gast.For):
            return self.for_loop(s)
        if isinstance(s, gast.Return):
            if s.value is not None and not isinstance(s.value, gast.Name) \
                    and expr_varied(s.value, self.varied, self.scope):
                out = []
                atom = T.name(self.expr(s.value, out, self.ctx.namer.fresh(self.ctx.result_hint)))
                self.changed = True
                s.value = atom
                return out + [s]
            return [s]
        if isinstance(s, gast.Assign):
            return self.assign(s)
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
            return self.expr_stmt(s)
        return [anno.set_kind(s, "opaque")]

    def assign(self, s):
        if len(s.targets) != 1:
            raise self.ctx.error("chained assignment (a = b = ...) is not supported", s,
                                 "assign each name separately")
        target, value = s.targets[0], s.value
        varied_value = expr_varied(value, self.varied, self.scope)
        if isinstance(target, gast.Name):
            if not varied_value:
                if isinstance(value, (gast.List, gast.Tuple, gast.ListComp)):
                    self.ctx.containers.add(target.id)
                return [anno.set_kind(s, "opaque")]
            out = []
            self.changed = True
            if getattr(s, "sg_inplace", False) and target.id in self.shared:
                # ``x += v`` is rebinding only if x is not an array: check at run time.
                o = anno.origin(s)
                guard = T.stmt("_sg.check_not_array(x, n, w)", x=target.id,
                               n=T.const(target.id), w=T.const(o.short() if o else "?"))
                out.append(self._mark(guard, "opaque"))
                s.sg_inplace = False
            self.expr(value, out, target.id)
            return out
        if isinstance(target, (gast.Tuple, gast.List)):
            if not varied_value:
                return [anno.set_kind(s, "opaque")]
            self.changed = True
            out = []
            self.unpack(target, value, out)
            return out
        if isinstance(target, gast.Subscript):
            base = target.value
            base_varied = isinstance(base, gast.Name) and base.id in self.varied
            if not (varied_value or base_varied):
                return [anno.set_kind(s, "opaque")]
            if not isinstance(base, gast.Name):
                raise self.ctx.error("writing a differentiable value into "
                                     f"`{gast.unparse(base).strip()}[...]` is not supported", s,
                                     "build the array in a local variable first")
            if base.id in self.shared:
                raise self.ctx.error(
                    f"writing into `{base.id}[...]`, whose array may be shared with another "
                    "variable (a view, a copy of the name, or an item of a container), is not "
                    "supported", s, f"make a private copy first: {base.id} = {base.id}.copy()")
            self.changed = True
            out = []
            index = self.index(target.slice, out)
            atom = self.atom(value, out, hint=base.id + "_item")
            node = T.assign(gast.Subscript(T.name(base.id), index, gast.Store()), atom)
            out.append(self._mark(node, "setitem"))
            return out
        if isinstance(target, gast.Attribute):
            if varied_value:
                raise self.ctx.error(
                    f"assigning a differentiable value to attribute `{self._spelling(target, s)}`"
                    " is not supported", s, "keep the value in a local variable")
            return [anno.set_kind(s, "opaque")]
        raise self.ctx.error("unsupported assignment target", s)

    def _spelling(self, node, stmt):
        """``node`` as the user wrote it (inlined code has renamed variables)."""
        text = gast.unparse(node).strip()
        o = anno.origin(stmt)
        if o is None or text in o.text:
            return text
        left = o.text.split("=")[0].strip()
        if isinstance(node, gast.Attribute) and left.endswith("." + node.attr):
            return left
        return text

    def unpack(self, target, value, out):
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts) \
                and not any(isinstance(e, gast.Starred) for e in value.elts):
            atoms = [self.atom(e, out, hint=_hint(t)) for e, t in zip(value.elts, target.elts)]
            # Evaluate every element before binding any name: ``a, b = b, a``.
            atoms = [self._pin(a, out, _hint(t)) for a, t in zip(atoms, target.elts)]
        else:
            whole = self.atom(value, out, hint=_hint(target))
            atoms = [gast.Subscript(copy.deepcopy(whole), T.const(i), gast.Load())
                     for i in range(len(target.elts))]
        for t, a in zip(target.elts, atoms):
            if isinstance(t, (gast.Tuple, gast.List)):
                self.unpack(t, a, out)
            elif isinstance(t, gast.Name):
                self.expr(a, out, t.id)
            else:
                node = anno.like(T.assign(t, a), self.cur)
                out += self.assign(node)

    def _pin(self, atom, out, hint):
        if isinstance(atom, gast.Name):
            tmp = self.ctx.namer.fresh(hint)
            out.append(self._mark(T.assign(tmp, atom), "copy"))
            if atom.id in self.varied:
                self.varied.add(tmp)
            return T.name(tmp)
        return atom

    def expr_stmt(self, s):
        call = s.value
        if not expr_varied(call, self.varied, self.scope):
            return [anno.set_kind(s, "opaque")]
        f = call.func
        if isinstance(f, gast.Attribute) and f.attr == "append" and isinstance(f.value, gast.Name) \
                and len(call.args) == 1 and not call.keywords:
            self.changed = True
            out = []
            atom = self.atom(call.args[0], out, hint=f.value.id + "_item")
            node = gast.Expr(gast.Call(gast.Attribute(T.name(f.value.id), "append", gast.Load()),
                                       [atom], []))
            out.append(self._mark(node, "append"))
            self.ctx.containers.add(f.value.id)
            return out
        if isinstance(f, gast.Attribute) and f.attr == "pop" and isinstance(f.value, gast.Name) \
                and f.value.id in self.varied and not call.args and not call.keywords:
            self.changed = True
            out = []
            self.expr(call, out, self.ctx.namer.fresh(f.value.id + "_popped"))
            return out
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id in self.varied:
            raise self.ctx.error(f"calling `{gast.unparse(f).strip()}()` on a differentiable value "
                                 "is not supported", s)
        self.changed = True
        out = []
        self.call(call, out, None)
        return out

    def for_loop(self, s):
        seq = self.scope.value(s.iter)
        if isinstance(seq, (list, tuple)) and 0 < len(seq) <= 64 \
                and all(_is_static_object(v) for v in seq) \
                and not any(isinstance(n, gast.Break) for n in gast.walk(s)):
            return self.unroll(s, seq)
        if not expr_varied(s.iter, self.varied, self.scope):
            s.body = self.block(s.body)
            return [s]
        # Iterating over a differentiable sequence: index it, so each item's
        # adjoint lands in its slot of the sequence's adjoint.
        self.changed = True
        out = []
        it = s.iter
        fn = self.scope.value(it.func) if isinstance(it, gast.Call) else MISSING
        target = s.target.id
        index = self.ctx.namer.fresh(target + "_index")
        if fn is builtins.zip and not it.keywords:
            seqs = [self.atom(a, out, hint=target + "_seq") for a in it.args]
            length = gast.Call(T.name("min"), [T.expr("len(s)", s=q) for q in seqs], []) \
                if len(seqs) > 1 else T.expr("len(s)", s=seqs[0])
            item = gast.Tuple([gast.Subscript(q, T.name(index), gast.Load()) for q in seqs], gast.Load())
        elif fn is builtins.enumerate and len(it.args) == 1 and not it.keywords:
            seq = self.atom(it.args[0], out, hint=target + "_seq")
            length = T.expr("len(s)", s=seq)
            item = gast.Tuple([T.name(index), gast.Subscript(seq, T.name(index), gast.Load())], gast.Load())
        else:
            seq = self.atom(it, out, hint=target + "_seq")
            length = T.expr("len(s)", s=seq)
            item = gast.Subscript(seq, T.name(index), gast.Load())
        body = list(s.body)
        first = body[0] if body else None
        if isinstance(item, gast.Tuple) and isinstance(first, gast.Assign) \
                and isinstance(first.value, gast.Name) and first.value.id == target:
            # ``for i, v in enumerate(xs)``: bind i and v directly, so the index
            # stays an integer and only v depends on xs.
            bind = anno.like(T.assign(copy.deepcopy(first.targets[0]), item), first)
            body = body[1:]
        else:
            bind = anno.like(T.assign(target, item), s)
        loop = anno.like(gast.For(T.name(index, store=True), T.expr("range(n)", n=length),
                                  [bind] + body, [], None), s)
        # The body is normalized in the next round, once variedness has been
        # recomputed for the new bindings (the index is not varied).
        return out + [loop]

    def unroll(self, s, seq):
        """``for layer in self.layers:`` over objects known at compile time.

        Each iteration gets its own copy of the body, with the loop variable
        bound to one known object, so calls through it can be inlined.
        """
        self.changed = True
        out = []
        for k, obj in enumerate(seq):
            name = self.ctx.namer.fresh(s.target.id)
            item = gast.Subscript(copy.deepcopy(s.iter), T.const(k), gast.Load())
            bind = anno.set_kind(anno.like(T.assign(name, item), s), "opaque")
            self.scope.static[name] = obj
            out.append(bind)
            for stmt in s.body:
                out.append(rename(copy.deepcopy(stmt), {s.target.id: name}))
        # Python leaves the loop variable bound to the last item.
        out.append(anno.set_kind(anno.like(T.assign(s.target.id, T.name(name)), s), "opaque"))
        return out

    # -- expressions -----------------------------------------------------------
    def _mark(self, node, kind, **extra):
        anno.like(node, self.cur)
        return anno.set_kind(node, kind, **extra)

    def _dest(self, dest, hint):
        return dest if dest is not None else self.ctx.namer.fresh(hint)

    def atom(self, node, out, hint):
        """Reduce ``node`` to a name or constant, emitting statements into ``out``."""
        if isinstance(node, gast.Name) or _is_constant(node):
            return node
        hint = f"{self.root}_{_short(node)}"
        if not expr_varied(node, self.varied, self.scope):
            if _is_simple_index(node):
                return node
            tmp = self.ctx.namer.fresh(hint)
            out.append(self._mark(T.assign(tmp, node), "opaque"))
            return T.name(tmp)
        return T.name(self.expr(node, out, None, hint))

    def expr(self, node, out, dest, hint=None):
        """Emit statements computing varied ``node`` into ``dest``; returns its name."""
        hint = hint or dest or "t"
        if not expr_varied(node, self.varied, self.scope):
            d = self._dest(dest, hint)
            kind = "opaque"
            if isinstance(node, gast.Name):
                kind = "copy"
            out.append(self._mark(T.assign(d, node), kind))
            return d
        if isinstance(node, gast.Name):
            d = self._dest(dest, hint)
            if d != node.id:
                out.append(self._mark(T.assign(d, node), "copy"))
                if node.id in self.ctx.containers:
                    self.ctx.containers.add(d)
            self.varied.add(d)
            return d
        if isinstance(node, gast.BinOp):
            op = _OP_NAMES.get(type(node.op))
            rule_fn = derivatives.OPERATORS.get(type(node.op).__name__)
            if rule_fn is None:
                raise self.ctx.error(f"operator `{op or type(node.op).__name__}` on differentiable "
                                     "values has no derivative", self.cur)
            left = self.atom(node.left, out, hint)
            right = self.atom(node.right, out, hint)
            d = self._dest(dest, hint)
            stmt = T.assign(d, gast.BinOp(left, node.op, right))
            rule = None
            if isinstance(node.op, gast.Pow) and _is_constant(right) and _number(right) not in (None, 0):
                rule = derivatives.POWER_CONSTANT_EXPONENT
            return self._prim(stmt, rule_fn, [left, right], {}, out, d, rule=rule)
        if isinstance(node, gast.UnaryOp):
            if isinstance(node.op, gast.UAdd):
                return self.expr(node.operand, out, dest, hint)
            operand = self.atom(node.operand, out, hint)
            d = self._dest(dest, hint)
            stmt = T.assign(d, gast.UnaryOp(node.op, operand))
            return self._prim(stmt, derivatives.OPERATORS["USub"], [operand], {}, out, d)
        if isinstance(node, gast.Subscript):
            value = self.atom(node.value, out, hint)
            index = self.index(node.slice, out)
            d = self._dest(dest, hint)
            out.append(self._mark(T.assign(d, gast.Subscript(value, index, gast.Load())), "getitem"))
            self.varied.add(d)
            return d
        if isinstance(node, gast.Attribute):
            fn = derivatives.ATTRIBUTES.get(node.attr)
            if fn is None:
                raise self.ctx.error(f"attribute `.{node.attr}` of a differentiable value has no "
                                     "derivative rule", self.cur)
            value = self.atom(node.value, out, hint)
            d = self._dest(dest, hint)
            stmt = T.assign(d, gast.Attribute(value, node.attr, gast.Load()))
            return self._prim(stmt, fn, [value], {}, out, d)
        if isinstance(node, (gast.List, gast.Tuple)):
            elts = []
            for e in node.elts:
                if isinstance(e, gast.Starred):
                    raise self.ctx.error("starred item in a list or tuple of differentiable values "
                                         "is not supported", self.cur)
                elts.append(self.atom(e, out, hint))
            d = self._dest(dest, hint)
            value = type(node)(elts, gast.Load())
            out.append(self._mark(T.assign(d, value), "literal"))
            self.ctx.containers.add(d)
            self.varied.add(d)
            return d
        if isinstance(node, gast.Dict):
            if any(k is None or not _is_constant(k) for k in node.keys):
                raise self.ctx.error("a dict of differentiable values needs constant keys", self.cur)
            values = [self.atom(v, out, hint) for v in node.values]
            d = self._dest(dest, hint)
            out.append(self._mark(T.assign(d, gast.Dict(node.keys, values)), "literal"))
            self.ctx.containers.add(d)
            self.varied.add(d)
            return d
        if isinstance(node, gast.IfExp):
            d = self._dest(dest, hint)
            body, orelse = [], []
            self.expr(node.body, body, d)
            self.expr(node.orelse, orelse, d)
            test = self.atom(node.test, out, f"{d}_cond") if not _is_constant(node.test) else node.test
            out.append(anno.like(gast.If(test, body, orelse), self.cur))
            self.varied.add(d)
            return d
        if isinstance(node, (gast.ListComp, gast.GeneratorExp)):
            return self.comprehension(node, out, dest, hint)
        if isinstance(node, gast.Call):
            return self.call(node, out, self._dest(dest, hint), hint)
        if isinstance(node, gast.BoolOp):
            word = "and" if isinstance(node.op, gast.And) else "or"
            raise self.ctx.error(f"`{word}` on differentiable values is not supported", self.cur,
                                 "use np.where or an if statement")
        raise self.ctx.error(f"{type(node).__name__} expression on differentiable values is "
                             "not supported", self.cur)

    def index(self, node, out):
        """An index whose parts are names, constants or slices of them."""
        if isinstance(node, gast.Slice):
            parts = [None if p is None else self.atom(p, out, "index") for p in
                     (node.lower, node.upper, node.step)]
            return gast.Slice(*parts)
        if isinstance(node, gast.Tuple):
            return gast.Tuple([self.index(e, out) for e in node.elts], gast.Load())
        if expr_varied(node, self.varied, self.scope):
            raise self.ctx.error("an index computed from differentiable values is not supported",
                                 self.cur)
        return self.atom(node, out, "index")

    def comprehension(self, node, out, dest, hint):
        d = self._dest(dest, hint)
        out.append(self._mark(T.assign(d, gast.List([], gast.Load())), "opaque"))
        self.ctx.containers.add(d)
        mapping = {}
        for gen in node.generators:
            for n in gast.walk(gen.target):
                if isinstance(n, gast.Name) and n.id not in mapping:
                    mapping[n.id] = self.ctx.namer.fresh(n.id)
        node = rename(copy.deepcopy(node), mapping)
        inner = gast.Expr(gast.Call(gast.Attribute(T.name(d), "append", gast.Load()), [node.elt], []))
        anno.like(inner, self.cur)
        for gen in reversed(node.generators):
            for cond in reversed(gen.ifs):
                inner = anno.like(gast.If(cond, [inner], []), self.cur)
            inner = anno.like(gast.For(gen.target, gen.iter, [inner], [], None), self.cur)
        T.fix_ctx(inner)
        loop_vars = [n.id for g in node.generators for n in gast.walk(g.target) if isinstance(n, gast.Name)]
        self.scope.locals.update(loop_vars)
        # Recompute variedness for the new loop variables before normalizing.
        for g in node.generators:
            if expr_varied(g.iter, self.varied, self.scope):
                self.varied.update(n.id for n in gast.walk(g.target) if isinstance(n, gast.Name))
        self.varied.add(d)
        if isinstance(inner, gast.For) and not isinstance(inner.target, gast.Name):
            # Unpack tuple targets inside the body, as desugar does for user loops.
            item = self.ctx.namer.fresh("_".join(loop_vars) or "item")
            inner.body.insert(0, anno.like(T.assign(inner.target, T.name(item)), self.cur))
            inner.target = T.name(item, store=True)
            if expr_varied(inner.iter, self.varied, self.scope):
                self.varied.add(item)
        saved = self.cur
        out += self.stmt(inner)
        self.cur = saved
        return d

    # -- calls -----------------------------------------------------------------
    def call(self, node, out, dest, hint=None):
        hint = hint or dest or "t"
        f = node.func
        for a in node.args:
            if isinstance(a, gast.Starred):
                return self.call(self._expand_starred(node), out, dest, hint)
        if isinstance(f, gast.Attribute) and expr_varied(f.value, self.varied, self.scope):
            return self.method(node, out, dest, hint)
        obj = self.scope.value(f)
        if obj is MISSING and isinstance(f, gast.Attribute) and f.attr in derivatives.METHODS \
                and self.scope.value(f.value) is MISSING:
            # A method of a value only known at run time: NumPy's array methods.
            return self.method(node, out, dest, hint)
        if obj is MISSING:
            raise self.ctx.error(f"cannot tell at compile time which function "
                                 f"`{gast.unparse(f).strip()}` is", self.cur,
                                 "call a function or method that is known when the code is compiled")
        rule = self.ctx.rule(obj)
        if rule is not None:
            return self.prim_call(node, obj, rule, out, dest, hint)
        generated = getattr(obj, "__srcgrad_generated__", None)
        if generated is not None:
            sample = [self._static_or_none(a) for a in node.args]
            return self.inline(generated(sample), None, node, out, dest)
        if isinstance(obj, gast.FunctionDef):
            return self.inline(obj, None, node, out, dest)
        if isinstance(obj, types.MethodType) and not is_library(obj.__func__):
            receiver = self.atom(f.value, out, "receiver") if isinstance(f, gast.Attribute) else None
            return self.inline(obj.__func__, receiver, node, out, dest)
        if isinstance(obj, types.FunctionType) and not is_library(obj):
            if isinstance(f, gast.Attribute) and not isinstance(self.scope.value(f.value), types.ModuleType):
                # A staticmethod reached through an instance or a class.
                pass
            return self.inline(obj, None, node, out, dest)
        if isinstance(obj, type):
            raise self.ctx.error(f"creating a `{obj.__name__}` from differentiable values is not "
                                 "supported", self.cur)
        call_fn = getattr(type(obj), "__call__", None)
        if isinstance(call_fn, types.FunctionType) and not is_library(call_fn):
            receiver = self.atom(f, out, "receiver")
            return self.inline(call_fn, receiver, node, out, dest)
        name = _qualname(obj)
        d = self._dest(dest, hint)
        stmt = self._mark(T.assign(d, node), "opaque")
        from ..errors import CompileError  # local: errors is tiny, avoids a cycle in docs

        o = anno.origin(self.cur)
        stmt.sg_norule = CompileError(f"no derivative rule for `{name}`",
                                      o.short() if o else None,
                                      remedy="use a supported NumPy function, or wrap it with "
                                      "srcgrad.custom_gradient")
        out.append(stmt)
        self.varied.add(d)
        return d

    def _static_or_none(self, node):
        obj = self.scope.value(node) if isinstance(node, (gast.Name, gast.Attribute)) else MISSING
        return obj if obj is not MISSING and _is_static_object(obj) else None

    def _expand_starred(self, node):
        args = []
        for a in node.args:
            if isinstance(a, gast.Starred):
                elts = self.ctx.tuples.get(a.value.id) if isinstance(a.value, gast.Name) else None
                if elts is None:
                    raise self.ctx.error("*arguments in a call are only supported for the "
                                         "function's own *args", self.cur)
                args += [copy.deepcopy(e) for e in elts]
            else:
                args.append(a)
        return gast.Call(node.func, args, node.keywords)

    def method(self, node, out, dest, hint):
        f = node.func
        receiver = self.atom(f.value, out, hint)
        if f.attr == "pop" and isinstance(receiver, gast.Name) and not node.args and not node.keywords:
            self.ctx.containers.add(receiver.id)
            d = self._dest(dest, hint)
            call = gast.Call(gast.Attribute(receiver, "pop", gast.Load()), [], [])
            out.append(self._mark(T.assign(d, call), "pop"))
            self.varied.add(d)
            return d
        spec = derivatives.METHODS.get(f.attr)
        if spec is None:
            raise self.ctx.error(f"method `.{f.attr}()` of a differentiable value has no derivative "
                                 "rule", self.cur)
        fn, style = spec
        args = list(node.args)
        if style == "shape" and len(args) > 1:
            args = [gast.Tuple(args, gast.Load())]
        call = gast.Call(gast.Attribute(receiver, f.attr, gast.Load()), args, node.keywords)
        return self.prim_call(call, fn, self.ctx.rule(fn), out, dest, hint, receiver=receiver)

    def prim_call(self, node, fn, rule, out, dest, hint, receiver=None):
        fname = getattr(fn, "__name__", "call")
        base = f"{self.root}_{fname}" 
        ps = rule_params(rule)
        positional = [receiver] if receiver is not None else []
        positional += list(node.args)
        bound = {}
        i = 0
        for p in ps:
            if p.variadic:
                rest = positional[i:]
                elts = [self.atom(a, out, f"{base}_{p.name}") for a in rest]
                lst = self.ctx.namer.fresh(f"{base}_{p.name}")
                lit = self._mark(T.assign(lst, gast.List(elts, gast.Load())), "literal")
                out.append(lit)
                self._list_items[lst] = elts
                self.ctx.containers.add(lst)
                if any(isinstance(e, gast.Name) and e.id in self.varied for e in elts):
                    self.varied.add(lst)
                bound[p.name] = T.name(lst)
                i = len(positional)
                continue
            if i < len(positional):
                bound[p.name] = positional[i]
                i += 1
        if i < len(positional):
            raise self.ctx.error(f"too many arguments to `{fname}`", self.cur)
        kw_names = {p.name for p in ps}
        for kw in node.keywords:
            if kw.arg not in kw_names:
                raise self.ctx.error(f"keyword argument `{kw.arg}` of `{fname}` is not supported "
                                     "when differentiating", self.cur)
            bound[kw.arg] = kw.value
        args = {}
        for p in ps:
            if p.name in bound:
                value = bound[p.name]
                if value is receiver or (isinstance(value, gast.Name) and p.variadic):
                    args[p.name] = value
                else:
                    args[p.name] = self.atom(value, out, f"{base}_{p.name}")
            elif p.default is not None:
                args[p.name] = copy.deepcopy(p.default)
            elif not p.variadic:
                raise self.ctx.error(f"missing argument `{p.name}` of `{fname}`", self.cur)
        # The forward call keeps the user's spelling, with atoms in place of expressions.
        atoms = {id(bound[k]): args[k] for k in bound if k in args}
        variadic = next((p for p in ps if p.variadic), None)
        if variadic is not None and variadic.name in args:
            # The rule sees the varargs as one list (its adjoint is a list);
            # the forward call keeps them spread out.
            fixed = [args[p.name] for p in ps if not p.variadic and p.name in args
                     and any(bound.get(p.name) is a for a in positional)]
            if receiver is not None:
                fixed = fixed[1:]
            new_args = fixed + [copy.deepcopy(e) for e in self._list_items[args[variadic.name].id]]
        else:
            new_args = [atoms.get(id(a), a) for a in node.args]
        new_kw = [gast.keyword(k.arg, atoms.get(id(k.value), k.value)) for k in node.keywords]
        func = node.func
        if receiver is not None:
            func = gast.Attribute(receiver, func.attr, gast.Load())
        d = self._dest(dest, hint)
        stmt = T.assign(d, gast.Call(func, new_args, new_kw))
        return self._prim(stmt, fn, None, args, out, d, rule=rule)

    def _prim(self, stmt, fn, operands, args, out, d, rule=None):
        rule = rule or self.ctx.rule(fn)
        if rule is None:
            raise self.ctx.error(f"no derivative rule for `{_qualname(fn)}`", self.cur)
        if operands is not None:
            ps = rule_params(rule)
            args = dict(zip([p.name for p in ps], operands))
            for p in ps:
                if p.name not in args and p.default is not None:
                    args[p.name] = copy.deepcopy(p.default)
        self._mark(stmt, "prim", rule=rule, args=args, func=fn)
        out.append(stmt)
        if any(isinstance(a, gast.Name) and a.id in self.varied for k, a in args.items()
               if k in rule.grads):
            self.varied.add(d)
        return d

    # -- inlining --------------------------------------------------------------
    def inline(self, fn, receiver, node, out, dest):
        chain = getattr(self.cur, "sg_chain", ())
        key = fn if not isinstance(fn, gast.FunctionDef) else id(fn)
        label = fn.name if isinstance(fn, gast.FunctionDef) else fn.__name__
        if key in chain:
            raise self.ctx.error(f"recursive call to `{label}` is not supported", self.cur,
                                 "rewrite the recursion as a loop")
        if len(chain) > 40:
            raise self.ctx.error("calls nested too deeply to inline", self.cur)
        if isinstance(fn, gast.FunctionDef):
            callee = copy.deepcopy(fn)
            src = None
            defaults_src = list(callee.args.defaults)
        else:
            src = self.ctx.source(fn)
            callee = copy.deepcopy(src.node)
            defaults_src = None
        prefix = label if not label.startswith("__") else (
            type(self.scope.value(receiver)).__name__.lower() if receiver is not None
            and self.scope.value(receiver) is not MISSING else label.strip("_"))
        if label.startswith("__") and fn is not None and not isinstance(fn, gast.FunctionDef):
            prefix = fn.__qualname__.split(".")[0].lower()
        local = function_locals(callee)
        mapping = {n: self.ctx.namer.fresh(f"{prefix}_{n}") for n in sorted(local)}
        if src is not None:
            mapping.update(self.ctx.import_free_names(src, callee, local))
        callee = rename(callee, mapping)
        self.ctx.namer.reserve(n.id for n in gast.walk(callee) if isinstance(n, gast.Name))
        desugar(callee, self.ctx.namer, f"{prefix}_result")
        stamp = src.origin if src is not None else None
        for s in walk_stmts(callee.body):
            if stamp is not None and anno.origin(s) is None:
                anno.set_origin(s, stamp(s))
            elif anno.origin(s) is None:
                anno.like(s, self.cur)
            s.sg_chain = chain + (key,)
        # Bind parameters.
        a = callee.args
        pos_params = [p.id for p in a.posonlyargs + a.args]
        args = list(node.args)
        if receiver is not None:
            args.insert(0, receiver)
        binds = []
        if len(args) > len(pos_params) and a.vararg is None:
            raise self.ctx.error(f"too many arguments in call to `{label}`", self.cur)
        given = {}
        for p, v in zip(pos_params, args):
            given[p] = v
        for kw in node.keywords:
            target = mapping.get(kw.arg, kw.arg)
            if target not in pos_params + [k.id for k in a.kwonlyargs]:
                raise self.ctx.error(f"`{label}` got an unexpected keyword argument `{kw.arg}`",
                                     self.cur)
            given[target] = kw.value
        defaults = self._defaults(fn, callee, defaults_src)
        for p in pos_params + [k.id for k in a.kwonlyargs]:
            if p in given:
                value = given[p]
            elif p in defaults:
                value = defaults[p]
            else:
                raise self.ctx.error(f"missing argument for `{label}`", self.cur)
            binds.append((p, value))
        if a.vararg is not None:
            extra = args[len(pos_params):]
            binds.append((a.vararg.id, gast.Tuple(extra, gast.Load())))
            self.ctx.tuples[a.vararg.id] = [copy.deepcopy(e) for e in extra]
        for p, value in binds:
            bind = anno.like(T.assign(p, value), self.cur)
            bind.sg_chain = chain + (key,)
            obj = self.scope.value(value) if isinstance(value, (gast.Name, gast.Attribute)) else MISSING
            if obj is not MISSING and _is_static_object(obj):
                self.scope.static[p] = obj
            out.append(bind)
        body = callee.body
        ret = body[-1]
        out += body[:-1]
        if dest is not None:
            final = anno.like(T.assign(dest, ret.value if ret.value is not None else T.const(None)), ret)
            final.sg_chain = chain + (key,)
            out.append(final)
        self.changed = True
        return dest

    def _defaults(self, fn, callee, defaults_src):
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
            out[p] = self.ctx.constant(v)
        for p in a.kwonlyargs:
            kwd = fn.__kwdefaults__ or {}
            original = p.id
            for orig, val in kwd.items():
                if p.id.endswith("_" + orig) or p.id == orig:
                    original = orig
            if original in kwd:
                out[p.id] = self.ctx.constant(kwd[original])
        return out


def _is_static_object(obj):
    import numpy as np

    return not isinstance(obj, (int, float, complex, np.ndarray, np.generic, str, bytes, list,
                                dict, tuple, type(None)))


_VIEW_FUNCS = ("reshape", "transpose", "ravel", "squeeze", "expand_dims", "broadcast_to",
               "asarray", "moveaxis", "swapaxes", "flip", "diagonal", "matrix_transpose",
               "atleast_1d", "atleast_2d", "real")
_VIEW_METHODS = ("reshape", "transpose", "ravel", "squeeze", "view", "swapaxes")


def _is_view_call(call, scope):
    obj = scope.value(call.func)
    return getattr(obj, "__name__", None) in _VIEW_FUNCS


def _may_share(value, scope):
    """Can ``value`` evaluate to an array that another name also reaches?"""
    if isinstance(value, (gast.Name, gast.Attribute)):
        return True
    if isinstance(value, gast.Subscript):
        return not _scalar_index(value.slice)
    if isinstance(value, gast.Call):
        f = value.func
        if isinstance(f, gast.Attribute) and f.attr in _VIEW_METHODS:
            return True
        return _is_view_call(value, scope)
    return False


def _scalar_index(index):
    """An index of ints (a copy out of an array, not a view)... or unknown names."""
    if isinstance(index, gast.Tuple):
        return all(_scalar_index(e) for e in index.elts)
    return not isinstance(index, gast.Slice)


def _number(node):
    """The value of a numeric constant expression, or None."""
    try:
        value = eval(compile(gast.gast_to_ast(gast.Expression(node)), "<const>", "eval"), {})
    except Exception:
        return None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _is_simple_index(node):
    return isinstance(node, gast.Name) or _is_constant(node)


def _short(node):
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Constant):
        return "c"
    if isinstance(node, gast.Call):
        f = node.func
        return f.attr if isinstance(f, gast.Attribute) else getattr(f, "id", "call")
    if isinstance(node, gast.BinOp):
        return _OP_NAMES.get(type(node.op), "op")
    if isinstance(node, gast.Subscript):
        return _short(node.value) + "_item"
    if isinstance(node, gast.Attribute):
        return node.attr
    return "t"


def _root(s):
    """The user's name a statement computes: temporaries are named after it."""
    if isinstance(s, gast.Assign):
        t = s.targets[0]
        while isinstance(t, (gast.Subscript, gast.Attribute)):
            t = t.value
        names = [n.id for n in gast.walk(t) if isinstance(n, gast.Name)]
        if names:
            return names[0]
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
        f = s.value.func
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name):
            return f.value.id
    return "result"


def _hint(target):
    names = [n.id for n in gast.walk(target) if isinstance(n, gast.Name)]
    return "_".join(names) or "item"


def _qualname(obj):
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    if module and module not in ("builtins",):
        if module.startswith("numpy"):
            module = "np" + module[5:]
        return f"{module}.{name}"
    return name


def normalize(fn, ctx, wrt):
    """Normalize ``fn`` (desugared gast FunctionDef) in place for inputs ``wrt``."""
    return Normalizer(ctx).run(fn, wrt)
