"""Forward mode: the tangent of each statement of a normalized body, right after it.

Each varied variable ``x`` gets a tangent ``x_dot`` (its derivative along the
directions given for the inputs), computed as the statement runs; control flow
stays as written. What is known when compiling is used: an operand whose tangent
is known to be zero drops its term; where a tangent may or may not have been set
(after a branch, in a loop) it is read as ``_sg.tangent(x_dot, x)`` (zeros when unset).

Before/after (normalized body of ``return np.sum(np.sin(x) * y)``, ``y`` constant)::

    z_sin = np.sin(x)              z_sin = np.sin(x)
    z = z_sin * y                  z_sin_dot = x_dot * np.cos(x)
    result = np.sum(z)             z = z_sin * y
                                   z_dot = z_sin_dot * y
                                   result = np.sum(z)
                                   result_dot = np.sum(z_dot)
"""
import copy
import os

import gast

from ..errors import CompileError
from ..ir import anno, templates as T
from ..ir.atoms import literal_items
from ..ir.names import walk_stmts, written_names
from ..rules import tangents
from ..rules.entry import params as rule_params
from .reverse import _rule_expr

VALUE, ZERO, MAYBE = "value", "zero", "maybe"
_CATEGORIES = ("elementwise", "linear", "bilinear", "reduction", "determinant")


class Tangent:
    def __init__(self, ctx, varied, body, strong=False, shapes=None):
        self.ctx = ctx
        self.varied = varied
        self.shapes = shapes or {}  # name -> its shape, where known (passes/ranks.py)
        # Strong zeros (runtime/strong.py): an elementwise term ``d * f'(x)`` with ``d``
        # exactly 0 is 0, also where ``f'(x)`` is not finite (``sqrt`` at 0, masked).
        self.strong = strong
        self.body_index = {}  # name -> the statements binding it
        for s in walk_stmts(body):
            for n in written_names(s):
                self.body_index.setdefault(n, []).append(s)
        self.names = {}  # variable -> its tangent's name
        self.state = {}  # variable -> VALUE / ZERO / MAYBE
        self.maybe = set()  # variables whose tangent is read where it may be unset

    def dot(self, name):
        if name not in self.names:
            self.names[name] = self.ctx.namer.fresh(f"{name}_dot")
        return self.names[name]

    def read(self, atom):
        """The tangent of operand ``atom`` as an expression, or None when it is zero."""
        if not isinstance(atom, gast.Name) or atom.id not in self.varied:
            return None
        state = self.state.get(atom.id, ZERO)
        if state == ZERO:
            return None
        if state == VALUE:
            return T.name(self.dot(atom.id))
        self.maybe.add(atom.id)
        return T.expr("_sg.tangent(t, x)", t=self.dot(atom.id), x=atom.id)

    def read_or_zero(self, atom):
        found = self.read(atom)
        return found if found is not None else T.expr("_sg.tangent_zeros(x)",
                                                      x=copy.deepcopy(atom))

    def set(self, name, value, out):
        """``name_dot = value`` (None: a zero tangent, known as such)."""
        if name not in self.varied:
            return
        if value is None:
            if self.state.get(name, ZERO) != ZERO:
                out.append(T.assign(self.dot(name), T.const(None)))
            self.state[name] = ZERO
            return
        out.append(T.assign(self.dot(name), value))
        self.state[name] = VALUE

    # -- blocks ----------------------------------------------------------------
    def block(self, stmts):
        out, line = [], None
        for s in stmts:
            code = self.stmt(s)
            o = anno.origin(s)
            key = (o.filename, o.lineno) if o is not None else None
            if key is not None and key != line and len(code) > 1:
                out.append(T.comment(f"tangent of: {o.text} ({o.short()})"))
                line = key
            out += code
        return out

    def stmt(self, s):
        if isinstance(s, gast.If):
            before = dict(self.state)
            body = self.block(s.body)
            after_body, self.state = self.state, dict(before)
            orelse = self.block(s.orelse)
            self.state = _join(after_body, self.state)
            return [anno.like(gast.If(s.test, body or [gast.Pass()], orelse), s)]
        if isinstance(s, (gast.For, gast.While)):
            # From the second trip on, what the body set may be set: read it as maybe.
            for n in {n for st in walk_stmts(s.body) for n in _changed(st)}:
                if n in self.varied:
                    self.state[n] = MAYBE
            before = dict(self.state)
            body = self.block(s.body)
            self.state = _join(before, self.state)
            body = body or [gast.Pass()]
            if isinstance(s, gast.For):
                return [anno.like(gast.For(s.target, s.iter, body, [], None), s)]
            return [anno.like(gast.While(s.test, body, []), s)]
        kind = anno.kind(s)
        out = [s]
        if kind == "custom_pair" and all(self.read(a) is None for a in s.value.args):
            kind = None  # a custom_gradient function of constants: constant
        handler = getattr(self, f"_{kind}", None) if kind else None
        if handler is None:
            if kind == "custom_pair":
                raise self._through_custom(s)
            if kind in ("custom", "custom_pair", "watch", "read") or getattr(
                    s, "sg_norule", None) is not None and set(written_names(s)) & self.varied:
                raise self._unsupported(s, f"a statement of kind {kind}")
            for n in written_names(s):
                self.set(n, None, out)  # computed without a derivative
            return out
        handler(s, out)
        return out

    def _custom(self, s, out):
        """``y = pair[0]`` of a custom_gradient call: constant where the call's operands
        are (``_through_custom`` refused the others)."""
        self.set(s.targets[0].id, None, out)

    def _through_custom(self, s):
        """Forward mode through a custom_gradient function: its grad_fn gives
        vector-Jacobian products only. Final: the transposition of reverse mode would
        differentiate that grad_fn, which srcgrad never does."""
        pair = self.ctx.scope.value(s.value.func)
        fn = getattr(pair, "__srcgrad_custom_pair__", None)
        name = getattr(fn, "__name__", None) or "a custom_gradient function"
        code = getattr(fn, "__code__", None)
        where = f" ({os.path.basename(code.co_filename)}:{code.co_firstlineno})" if code else ""
        o = anno.origin(s)
        error = CompileError(
            f"forward mode (sg.jvp) through custom_gradient `{name}`{where} is not supported: "
            "its grad_fn gives vector-Jacobian products, not directional derivatives",
            o.short() if o else None,
            remedy=f"for a jvp, call a plain version of `{name}` (without custom_gradient); "
                   "sg.grad and GradientTape use its grad_fn (a directional derivative is the "
                   "gradient's dot product with the direction)")
        error.sg_final = True  # (sg.jvp raises it: no fallback computes this)
        return error

    def _unsupported(self, s, what):
        o = anno.origin(s)
        return CompileError(f"forward mode: {what} has no tangent rule yet",
                            o.filename if o else None, o.lineno if o else None,
                            remedy="sg.jvp computes it by transposing reverse mode")

    # -- one statement per kind --------------------------------------------------
    def _copy(self, s, out):
        self.set(s.targets[0].id, self.read(s.value), out)

    def _getitem(self, s, out):
        base = self.read(s.value.value)
        if base is None:
            value = None
        elif self._inserts_missing_keys(s.value.value.id):
            # A defaultdict (Counter...) inserts the key a read misses: its tangent, a
            # plain dict of the keys set so far, reads a missing key as zeros.
            value = T.expr("_sg.tangent(t.get(i), x)", t=base, i=copy.deepcopy(s.value.slice),
                           x=s.targets[0].id)
        else:
            value = gast.Subscript(base, copy.deepcopy(s.value.slice), gast.Load())
        self.set(s.targets[0].id, value, out)

    def _inserts_missing_keys(self, name, seen=None):
        """``name`` is bound to a dict that makes an item a read misses (``__missing__``:
        ``collections.defaultdict``, ``Counter``), here or through a copy of it."""
        seen = set() if seen is None else seen
        if name in seen:
            return False
        seen.add(name)
        for b in self.body_index.get(name, ()):
            value = getattr(b, "value", None)
            if anno.kind(b) == "copy" and isinstance(value, gast.Name):
                if self._inserts_missing_keys(value.id, seen):
                    return True
            elif isinstance(value, gast.Call):
                made = self.ctx.scope.value(value.func)
                if isinstance(made, type) and issubclass(made, dict) \
                        and hasattr(made, "__missing__"):
                    return True
        return False

    def _literal(self, s, out):
        items = literal_items(s.value)
        if all(self.read(e) is None for _, e in items):
            return self.set(s.targets[0].id, None, out)
        value = copy.deepcopy(s.value)
        parts = [self.read_or_zero(e) for _, e in items]
        if isinstance(value, gast.Dict):
            value.values = parts
        elif isinstance(value, gast.Call):  # a record built from its fields
            value.args = parts[:len(value.args)]
            for k, p in zip(value.keywords, parts[len(value.args):]):
                k.value = p
        else:
            value.elts = parts
        self.set(s.targets[0].id, value, out)

    def _setitem(self, s, out):
        base = s.targets[0].value.id
        item = self.read(s.value) if isinstance(s.value, gast.Name) else None
        if item is None and self.state.get(base, ZERO) == ZERO:
            return
        index = s.targets[0].slice
        slot = _index_expr(index)
        value = T.expr("_sg.set_tangent(t, b, i, v)", t=self.read_or_zero(T.name(base)), b=base,
                       i=slot, v=item if item is not None else T.const(None))
        self.set(base, value, out)

    def _append(self, s, out):
        lst = s.value.func.value.id
        item = s.value.args[0]
        if self.read(item) is None and self.state.get(lst, ZERO) == ZERO:
            return
        if self.state.get(lst, ZERO) != VALUE:
            # Before the append (the list's tangent has one item fewer): zeros if unset.
            out.insert(0, T.assign(self.dot(lst), self.read_or_zero(T.name(lst))))
            self.state[lst] = VALUE
        out.append(T.stmt("l.append(v)", l=self.dot(lst), v=self.read_or_zero(item)))

    def _pop(self, s, out):
        lst = s.value.func.value.id
        t = s.targets[0].id
        if self.state.get(lst, ZERO) == ZERO:
            return self.set(t, None, out)
        if self.state.get(lst) != VALUE:
            out.insert(0, T.assign(self.dot(lst), self.read(T.name(lst))))
            self.state[lst] = VALUE
        self.set(t, T.expr("l.pop()", l=self.dot(lst)), out)

    def _prim(self, s, out):
        t = s.targets[0].id
        rule = s.sg_rule
        form = tangents.form(s.sg_func, rule)
        dots = {p: self.read(a) for p, a in s.sg_args.items() if p in rule.grads}
        if all(d is None for d in dots.values()):
            return self.set(t, None, out)
        if isinstance(form, str) and form not in _CATEGORIES:
            # An explicit form may read the tangent of a parameter without a gradient
            # (``strong_zero``'s seed: where it stays 0).
            dots.update({p: self.read(a) for p, a in s.sg_args.items()
                         if p not in dots and f"{p}_dot" in form and isinstance(a, gast.Name)})
        dtype = s.sg_args.get("dtype")
        if form is None or dtype is not None and form in _CATEGORIES and not (
                isinstance(dtype, gast.Constant) and dtype.value is None):
            # (A cast to a dtype: linear only for a floating one; only the explicit
            # rules model it, rules/tangents.py.)
            name = getattr(s.sg_func, "__name__", "this function")
            raise self._unsupported(s, f"`{name}`" + (" with a dtype" if form else ""))
        subs = {p.name: s.sg_args[p.name] for p in rule_params(rule) if p.name in s.sg_args}
        if form == "elementwise":
            terms = [_rule_expr(rule.grads[p], subs, d, T.name(t), self.ctx.module_names)
                     for p, d in dots.items() if d is not None]
            if self.strong:
                terms = [T.expr("_sg.strong_zero(v, d)", v=v, d=copy.deepcopy(d))
                         for v, d in zip(terms, [d for d in dots.values() if d is not None])]
        elif form in ("linear", "bilinear"):
            terms = self._substituted(s, dots, form)
        elif form in ("reduction", "determinant"):
            terms = [self._weighted(s, p, d, subs, form) for p, d in dots.items() if d is not None]
        else:
            extra = {f"{p}_dot": d if d is not None else T.expr("_sg.zeros_like(x)",
                                                                   x=copy.deepcopy(s.sg_args[p]))
                     for p, d in dots.items()}
            terms = [_rule_expr(form, {**subs, **extra}, None, T.name(t), self.ctx.module_names)]
        value = terms[0]
        for term in terms[1:]:
            value = gast.BinOp(value, gast.Add(), term)
        if form == "elementwise" and rule.broadcast and any(d is None for d in dots.values()) \
                and not self._result_shaped(s, dots):
            # An operand without a tangent may be the one the result broadcasts to.
            value = T.expr("_sg.broadcast_like(v, y)", v=value, y=t)
        self.set(t, value, out)

    def _result_shaped(self, s, dots):
        """Do the operands with a tangent all have the result's shape (known: the terms of
        an elementwise rule then have it too)?"""
        shape = self.shapes.get(s.targets[0].id)
        return shape is not None and all(
            isinstance(a, gast.Name) and self.shapes.get(a.id) == shape
            for p, a in s.sg_args.items() if dots.get(p) is not None)

    def _weighted(self, s, p, dot, subs, form):
        """``sum(dot * W)`` over the reduced axes, ``W`` the adjoint of ones (a reduction
        or ``det``: see rules/tangents.py)."""
        t = s.targets[0].id
        # NumPy by the name the rules use (``module_names``): the user's ``np`` only where
        # it is NumPy (a module may say ``import numpy as onp``, or ``np = 4``).
        numpy = T.own_name(self.ctx.module_names["np"])
        ones = T.expr("np.ones_like(x)", np=numpy, x=t)
        weights = _rule_expr(s.sg_rule.grads[p], subs, ones, T.name(t), self.ctx.module_names)
        if form == "determinant":
            return T.expr("np.sum(d * w, axis=(-2, -1))", np=numpy, d=dot, w=weights)
        axis = subs.get("axis", T.const(None))
        keepdims = subs.get("keepdims", T.const(False))
        return T.expr("np.sum(d * w, axis=a, keepdims=k)", np=numpy, d=dot, w=weights,
                      a=copy.deepcopy(axis), k=copy.deepcopy(keepdims))

    def _substituted(self, s, dots, form):
        """The primitive's own call with operands replaced by their tangents: all at once
        (linear), or one operand at a time, the terms summed (bilinear, multilinear).

        An operand is found in the call by identity (the atom the rule's parameter is
        bound to), else by its name when that names no other operand (variadic
        arguments, spread out in the call: ``np.einsum(s, a, b)``)."""
        slots = {}  # id of a node in the call -> the tangent for it
        other = {a.id for p, a in s.sg_args.items() if p not in dots and isinstance(a, gast.Name)}
        for p, dot in dots.items():
            atom = s.sg_args[p]
            found = [n for n in gast.walk(s.value) if n is atom]
            if not found and isinstance(atom, gast.Name):
                found = [n for n in gast.walk(s.value) if isinstance(n, gast.Name)
                         and n.id == atom.id and n.id not in other]
            if not found and isinstance(atom, gast.Name):  # spread out: its items
                items = self._list_items(atom.id) or []
                found = [n for n in gast.walk(s.value) if isinstance(n, gast.Name)
                         and n.id in items and n.id not in other]
                dot = None
            if not found and dot is None and self.read(atom) is None:
                continue  # a constant operand the call leaves to its default
            if not found:
                raise self._unsupported(s, f"`{getattr(s.sg_func, '__name__', 'a call')}` "
                                           "(an operand not in its call)")
            for n in found:
                slots[id(n)] = dot if dot is not None else self.read(n)
        if form == "linear" and isinstance(s.value, gast.Subscript):
            # ``np.r_[0.3, x]``: its numbers are constants, whose tangent is 0 (not 0.3).
            for n in gast.walk(s.value.slice):
                if isinstance(n, gast.Constant) and type(n.value) in (int, float, complex):
                    slots[id(n)] = T.const(0.0)
        if form == "linear":
            nodes = {id(n): n for n in gast.walk(s.value)}
            return [_replace(s.value, {k: v if v is not None else self.read_or_zero(nodes[k])
                                       for k, v in slots.items()})]
        return [_replace(s.value, {k: v}) for k, v in slots.items() if v is not None]

    def _list_items(self, name):
        """The items of the list a variadic parameter was bound to (``operands`` of
        einsum: a list display the normalizer made), or None."""
        for s in self.body_index.get(name, ()):
            if anno.kind(s) == "literal" and isinstance(s.value, (gast.List, gast.Tuple)):
                return [e.id for e in s.value.elts if isinstance(e, gast.Name)]
        return None


def _changed(s):
    """The names a statement binds, writes an item of, or appends to or pops from."""
    kind = anno.kind(s)
    if kind in ("append", "pop"):
        return set(written_names(s)) | {s.value.func.value.id}
    if kind == "setitem":
        return set(written_names(s)) | {s.targets[0].value.id}
    return set(written_names(s))


def _join(a, b):
    out = {}
    for n in set(a) | set(b):
        x, y = a.get(n, ZERO), b.get(n, ZERO)
        out[n] = x if x == y else MAYBE
    return out


def _replace(node, mapping):
    """A copy of ``node`` with the nodes whose ids are in ``mapping`` replaced."""
    if id(node) in mapping:
        return T.clone(mapping[id(node)])
    if isinstance(node, list):
        return [_replace(n, mapping) for n in node]
    if not isinstance(node, gast.AST):
        return node
    new = copy.copy(node)
    for field, value in gast.iter_fields(node):
        setattr(new, field, _replace(value, mapping))
    return new


def _index_expr(index):
    from .reverse import _index_expr as index_expr

    return index_expr(index)
