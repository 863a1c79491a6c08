"""Reverse-mode generation: walk the normalized body backwards, writing adjoint code.

Adjoints live in plain local variables (``dx`` for ``x``). Which adjoints are
non-zero is tracked at compile time, so a zero adjoint is never materialized:
the first contribution assigns, later ones add. Only where control flow joins
a branch or loop that did contribute with one that did not does the code
create an explicit zero (``_sg.zeros_like``).

The backward pass reads the forward values each rule needs *as they were* at
that statement: every statement that overwrites a value the backward pass
reads is undone, in reverse order, right after its adjoint (a ``restore``).
``record.py`` later decides how each restore gets its value (a local copy in
straight-line code, a stack inside loops) and drops those nobody needs.

Before/after (the normalized body of ``return np.sum(np.exp(x) * y)``)::

    z_exp = np.exp(x)              # grad of: return np.sum(np.exp(x) * y)
    z = z_exp * y                  dz = _sg.sum_grad(dresult, z, None, False)
    result = np.sum(z)             dz_exp = _sg.unbroadcast(dz * y, z_exp)
                                   dx = dz_exp * z_exp
"""
import copy

import gast
import numpy as np

from ..errors import CompileError
from ..ir import anno, templates as T
from ..ir.atoms import literal_items
from ..ir.names import walk_stmts, written_names
from ..rules import complexes
from ..rules.entry import params as rule_params
from ..rules.rows import row_form


def _casts(s):
    """``np.array(x, dtype=...)`` or ``ndmin=...``: anything but the plain conversion."""
    def given(name, default):
        v = s.sg_args.get(name)
        return v is not None and not (isinstance(v, gast.Constant) and type(v.value) is type(default)
                                      and v.value == default)
    return given("dtype", None) or given("ndmin", 0) or given("like", None)


class Restore:
    """Placeholder for 'undo what statement ``stmt`` did to ``name``'."""

    def __init__(self, stmt, name, how):
        self.stmt = stmt
        self.name = name
        self.how = how  # "rebind" | "slot" | "unappend" | "unpop" | "target"


def restore_marker(stmt, name, how):
    node = gast.Expr(T.const("__restore__"))
    node.sg_restore = Restore(stmt, name, how)
    return node


OWN = "own"  # see Reverse.acc


class Reverse:
    def __init__(self, ctx, act):
        self.ctx = ctx
        self.act = act
        self.namer = ctx.namer
        self.zeroed = set()
        self.reaching = set()  # what the seeds are computed from (complex code only)
        self.enclosing = []  # source lines of the reverse if/for blocks being written
        self.ints = set()  # names always bound to ints (plain indices)
        # In-place updates of our own adjoint buffers: fast, but code meant to be
        # differentiated again (higher order) must not mutate arrays it shares.
        self.inplace = True
        self.ranks = {}  # name -> the rank of every value it is bound to (see ranks.py)
        self.scalars = set()  # names always bound to 0-d values
        self.shapes = {}  # name -> the shape of every value it is bound to, sizes known
        self.rebuilt = set()  # names reverse loops compute again (recompute.py), not saved
        self.grads_list = None  # tapes: where watch points report (source, adjoint)
        self.named_sources = None  # nested tapes: source name -> variable of its adjoint
        # tape.jacobian: the name of a seed whose leading axis holds the rows of
        # the identity; every adjoint then has that leading axis (runtime/rows.py).
        self.rows = None
        # Elementwise adjoints through ``_sg.strong_zero``: the code run again when the
        # usual code's gradient came out non-finite (runtime/strong.py).
        self.strong = False

    def d(self, name):
        return self.namer.adjoint(name)

    # -- accumulation ----------------------------------------------------------
    def acc(self, name, value, state, out):
        """``d[name] += value`` with compile-time zero tracking.

        ``state[name]`` is True for a live adjoint that may share its array
        with another, OWN for one whose buffer the backward pass allocated and
        nothing else references (only those are updated in place).
        """
        dn = self.d(name)
        if self.complex:  # a real value's adjoint is real, a complex one's complex
            value = T.expr("_sg.fit(v, x)", v=value, x=name)
        if name not in state:
            out.append(T.assign(dn, value))
            state[name] = True
        elif self._itemwise(name):
            out.append(T.assign(dn, T.expr("_sg.add(a, b)", a=dn, b=value)))
            state[name] = OWN
        elif self.inplace and state[name] is OWN and name not in self.scalars:
            # Into the buffer this code made (no other name holds it): not a new array
            # per accumulation, as ``dx += ...`` by hand. (Numbers: ``+``, no call.)
            out.append(T.assign(dn, T.expr("_sg.iadd(a, b)", a=dn, b=value)))
        else:
            out.append(T.assign(dn, gast.BinOp(T.name(dn), gast.Add(), value)))
            state[name] = OWN

    def _itemwise(self, name):
        """Are adjoints of ``name`` added item by item (``_sg.add``)? Unless it is known to
        be an array or a number: ``+`` on the adjoints of a tuple (one an inner gradient
        returned) would concatenate."""
        return name in self.ctx.containers or self._passed_container(name) \
            or self.ranks.get(name) is None

    def _sum(self, total, name):
        """``total`` plus ``name``'s adjoint, as ``acc`` adds (a nested tape's list of
        sources: item by item)."""
        if self._itemwise(name):
            return T.expr("_sg.add(a, b)", a=total, b=self.d(name))
        return T.expr("a + b", a=total, b=self.d(name))

    def _passed_container(self, name):
        return passed_container(self.ctx, name)

    def zero(self, name):
        # ``name`` may be unbound on this path (assigned only in the other
        # branch): it is pre-set to None at the top and zeros_like(None) is 0.0.
        self.zeroed.add(name)
        return T.assign(self.d(name), self.zeros_for(name))

    def zeros_for(self, name):
        if self.rows is not None:
            return T.expr("_sg.zeros_rows(x, s)", x=name, s=self.rows)
        return T.expr("_sg.zeros_like(x)", x=name)

    def item(self, g, index):
        """``g[index]`` of a list or array adjoint (row-wise when adjoints have rows)."""
        if self.rows is not None:
            return T.expr("_sg.take_rows(g, i)", g=g, i=_index_expr(index))
        return T.expr("g[i]", g=g, i=index)

    # -- blocks ----------------------------------------------------------------
    def block(self, stmts, state):
        out = []
        group = []
        group_origin = group_origin_obj = None
        for s in reversed(stmts):
            code = self.stmt(s, state)
            if not code:
                continue
            o = anno.origin(s)
            key = (o.filename, o.lineno) if o else None
            if key != group_origin and group:
                out += self._with_comment(group, group_origin_obj)
                group = []
            group_origin, group_origin_obj = key, o
            group += code
        if group:
            out += self._with_comment(group, group_origin_obj)
        return out

    def _with_comment(self, code, o):
        if o is None or all(getattr(c, "sg_restore", None) for c in code):
            return code
        if self.enclosing and self.enclosing[-1] == (o.filename, o.lineno):
            return code  # the block this code sits in already names the line
        return [T.comment(f"grad of: {o.text} ({o.short()})")] + code

    def stmt(self, s, state):
        kind = anno.kind(s)
        if isinstance(s, gast.If):
            return self.if_stmt(s, state)
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s, state)
        if kind is None or kind in ("opaque", "read", "custom_pair"):
            # Rebinding a name ends the life of its old value: whatever adjoint
            # flowed back to the name belongs to a value created here, with no
            # differentiable inputs.
            for n in written_names(s):
                state.pop(n, None)
            return [restore_marker(s, n, "rebind") for n in written_names(s)]
        return getattr(self, "_" + kind)(s, state)

    def constant_for_complex(self, body):
        """Refuse ``np.sign(z)`` of a differentiated value that may be complex where a
        seed is computed from it (in any statement: an inner gradient's code keeps it in
        a product): called as piecewise constant, which it is for real values only."""
        for s in walk_stmts(body):
            if not isinstance(s, (gast.If, gast.For, gast.While)):
                self._constant_for_complex(s)

    def _constant_for_complex(self, s):
        for node in gast.walk(s):
            if not isinstance(node, gast.Call):
                continue
            f = node.func
            name = f.attr if isinstance(f, gast.Attribute) else f.id if isinstance(f, gast.Name) \
                else None
            if name in complexes.CONSTANT_FOR_REALS and any(
                    isinstance(a, gast.Name) and a.id in self.act.varied for a in node.args) \
                    and self.reaching.intersection(written_names(s)):
                o = anno.origin(s)
                raise CompileError(
                    f"np.{name} of a differentiated value that may be complex (srcgrad "
                    "takes it as piecewise constant, which it is for real values only)",
                    o.filename if o else None, o.lineno if o else None,
                    remedy="write z / np.abs(z) for the sign of a complex z")

    # -- one statement per kind ------------------------------------------------
    def _finish(self, s, name, state, out, how="rebind"):
        state.pop(name, None)
        out.append(restore_marker(s, name, how))
        return out

    def _copy(self, s, state):
        t, a = s.targets[0].id, s.value.id
        out = []
        if t in state and a in self.act:
            self.acc(a, T.name(self.d(t)), state, out)
        return self._finish(s, t, state, out)

    def _prim(self, s, state):
        t = s.targets[0].id
        out = []
        if t in state:
            rule = s.sg_rule
            cast = self._cast_to(s)
            if cast is False:
                return self._finish(s, t, state, out)  # (to ints: piecewise constant)
            if cast is not None:
                out.append(T.assign(self.d(t), T.expr("_sg.real_grad(g, ans)", g=self.d(t),
                                                       ans=t)))
            subs = {p.name: s.sg_args[p.name] for p in rule_params(rule) if p.name in s.sg_args}
            grads, rows, exact, ans, real_only = self._forms(s, subs)
            for pname, text in grads.items():
                atom = s.sg_args.get(pname)
                if not (isinstance(atom, gast.Name) and atom.id in self.act):
                    continue
                if pname in exact:
                    value = _rule_expr(exact[pname], subs, T.name(self.d(t)), ans,
                                       self.ctx.module_names)
                    self.acc(atom.id, real_only(value, atom), state, out)
                    continue
                per_row = False
                if self.rows is not None:
                    text, per_row = row_form(text, rows.get(pname))
                row = self.namer.fresh("row") if per_row else None
                g = T.name(row or self.d(t))
                value = _rule_expr(text, subs, g, ans, self.ctx.module_names)
                if per_row:
                    fn = gast.Lambda(gast.arguments([T.name(row)], [], None, [], [], None, []),
                                     value)
                    fn.args.args[0].ctx = gast.Param()
                    value = T.expr("_sg.each_row(f, g)", f=fn, g=self.d(t))
                elif self.strong and rule.rank in ("elementwise", "scalar"):
                    value = T.expr("_sg.strong_zero(v, g)", v=value, g=g)
                others = [a for p, a in s.sg_args.items() if p != pname]
                same_shape = all(isinstance(a, gast.Constant) or isinstance(a, gast.Name) and (
                    a.id in self.scalars or a.id == atom.id) for a in others) or all(
                    isinstance(a, gast.Constant) or a.id in self.scalars
                    for a in s.sg_args.values() if isinstance(a, (gast.Name, gast.Constant)))
                if rule.broadcast and not same_shape:
                    # Against numbers, 0-d values and itself an operand broadcasts
                    # to nothing: the result, and its adjoint, have its shape already.
                    value = self.unbroadcast(value, atom.id,
                                             t if rule.rank == "elementwise" else None)
                self.acc(atom.id, real_only(value, atom), state, out)
        return self._finish(s, t, state, out)

    def unbroadcast(self, g, name, result):
        """``g``, an elementwise adjoint of ``result`` (so of its shape), summed down to the
        shape of operand ``name``: written out where both shapes are known (ranks.py), by
        the helper otherwise (``result`` None: ``g`` has some other shape)."""
        to, frm = self.shapes.get(name), self.shapes.get(result)
        if self.rows is not None or to is None or frm is None or len(frm) < len(to):
            helper = "unbroadcast" if self.rows is None else "unbroadcast_rows"
            return T.expr(f"_sg.{helper}(v, x)", v=g, x=name)
        lead = len(frm) - len(to)
        stretched = [k for k, n in enumerate(to) if n == 1 and frm[lead + k] != 1]
        # (``g`` has ``frm``'s shape, so it is an array here: its own ``sum`` method, which
        # costs half of ``np.sum``'s dispatch on small arrays.)
        if lead:
            axis = 0 if lead == 1 else tuple(range(lead))
            g = T.expr(f"g.sum(axis={axis!r})", g=g)
        if stretched:
            axis = stretched[0] if len(stretched) == 1 else tuple(stretched)
            g = T.expr(f"g.sum(axis={axis!r}, keepdims=True)", g=g)
        return g

    def _cast_to(self, s):
        """A ``dtype=`` the primitive's rule does not read (``np.sum(x, dtype=int)``):
        None if there is none or it is floating, False if it is known not to be (the
        result is then a constant), True if it is known only when the code runs (its
        adjoint passes through ``real_grad``)."""
        dtype = s.sg_args.get("dtype")
        if dtype is None or isinstance(dtype, gast.Constant) and dtype.value is None \
                or any("real_grad" in text for text in s.sg_rule.grads.values()):
            return None
        try:
            value = dtype.value if isinstance(dtype, gast.Constant) else self.ctx.scope.value(dtype)
            if value is None:
                return True
            return None if np.issubdtype(np.dtype(value), np.inexact) else False
        except (TypeError, ValueError, AttributeError):
            return True

    def _forms(self, s, subs):
        """The grads of the primitive of ``s``, their row forms, its grads by operand rank,
        the node for ``ans`` in them and a wrapper of each adjoint: for complex code, the
        forms ``rules/complexes.py`` gives (``subs`` then reads the holomorphic rules'
        operands conjugated)."""
        t = s.targets[0].id
        rule = s.sg_rule
        ans = T.name(t)
        if not self.complex:
            return rule.grads, rule.rows, self._by_rank(s), ans, lambda value, atom: value
        form = complexes.form(s.sg_func, rule)
        if form == "as_is":
            return rule.grads, rule.rows, self._by_rank(s), ans, lambda value, atom: value
        if form == "holomorphic":
            for p, atom in list(subs.items()):
                if p in rule.grads and not (isinstance(atom, gast.Constant)
                                           and not isinstance(atom.value, complex)):
                    subs[p] = T.expr("_sg.conj(a)", a=atom)
            return rule.grads, rule.rows, self._by_rank(s), T.expr("_sg.conj(a)", a=t), \
                lambda value, atom: value
        if form is not None:  # (row forms: derived from these, rules/rows.py)
            return form, {}, {}, ans, lambda value, atom: value
        o = anno.origin(s)
        what = getattr(s.sg_func, "__name__", "this function")
        what = f"{what} ({o.short()})" if o else what
        return rule.grads, rule.rows, self._by_rank(s), ans, lambda value, atom: T.expr(
            "_sg.real_rule(v, w, x, y)", v=value, w=T.const(what), x=atom, y=t)

    def _by_rank(self, s):
        """The grads of a product specialised on its operands' ranks (``Rule.by_rank``),
        and of ``np.array([a, b])`` of scalars (a vector: its adjoint is the list's)."""
        if s.sg_func in (np.array, np.asarray) and self.rows is None \
                and self.ranks.get(s.targets[0].id) == 1 and not _casts(s):
            # No ``real_grad``: no dtype asked for, so a vector of differentiable
            # (float) values is a float vector. No ``array_grad``: ``g[i]`` is
            # the adjoint of item i, so the backward pass needs neither ``ans``
            # nor the list (in loops: nothing saved for them).
            return {"object" if s.sg_func is np.array else "a": "g"}
        forms = s.sg_rule.by_rank if self.rows is None else s.sg_rule.by_rank_rows
        if forms is None:
            return {}
        atoms = [s.sg_args.get(p.name) for p in rule_params(s.sg_rule)[:2]]
        key = tuple(self.ranks.get(a.id) if isinstance(a, gast.Name) else None for a in atoms)
        return forms.get(key, {})

    def _getitem(self, s, state):
        t = s.targets[0].id
        base = s.value.value.id
        out = []
        if t in state and base in self.act:
            index = s.value.slice
            db = self.d(base)
            if self.inplace and state.get(base) is OWN and base not in self.ctx.containers \
                    and self.ranks.get(base) is not None and _basic_index(index, self.ints):
                # Our own buffer and a plain index: add in place, no copy. Only into an
                # array (its rank known): ``+=`` on an item of a list that is itself a
                # list or tuple (``layers[i]`` = (W, b)) would concatenate.
                if self.rows is None:
                    target = gast.Subscript(T.name(db), copy.deepcopy(index), gast.Store())
                    out.append(gast.AugAssign(target, gast.Add(), T.name(self.d(t))))
                else:  # a list's adjoint (rows inside its items) or an array's
                    out.append(T.stmt("_sg.add_rows_into(b, i, g)", b=db, i=_index_expr(index),
                                      g=self.d(t)))
            elif base not in state and self.rows is None:
                value = T.expr("_sg.add_at_zeros(b, i, g)", b=base, i=_index_expr(index),
                               g=self.d(t))
                out.append(T.assign(db, value))
            else:
                start = T.name(db) if base in state else self.zeros_for(base)
                helper = "add_at" if self.rows is None else "add_at_rows"
                value = T.expr(f"_sg.{helper}(b, i, g)", b=start, i=_index_expr(index),
                               g=self.d(t))
                out.append(T.assign(db, value))
            state[base] = OWN
        return self._finish(s, t, state, out)

    def _literal(self, s, state):
        t = s.targets[0].id
        out = []
        if t in state:
            items = literal_items(s.value)
            if isinstance(s.value, gast.Dict):
                # ``{1: x, 1.0: y}`` holds y alone (at the key 1): an item a later equal
                # key replaced gets no adjoint.
                last = {k.value: i for i, (k, _) in enumerate(items)}
                items = [items[i] for i in sorted(last.values())]
            for key, e in items:
                if isinstance(e, gast.Name) and e.id in self.act:
                    self.acc(e.id, self.item(T.name(self.d(t)), key), state, out)
        return self._finish(s, t, state, out)

    def _pop(self, s, state):
        t = s.targets[0].id
        lst = s.value.func.value.id
        out = []
        if lst in self.act and (t in state or lst in state):
            item = T.name(self.d(t)) if t in state else self.zeros_for(t)
            if self.inplace and state.get(lst) is OWN:
                out.append(T.stmt("a.append(b)", a=self.d(lst), b=item))
            else:
                start = T.name(self.d(lst)) if lst in state else self.zeros_for(lst)
                out.append(T.assign(self.d(lst), T.expr("a + [b]", a=start, b=item)))
                state[lst] = OWN
        state.pop(t, None)
        out.append(restore_marker(s, lst, "unpop"))
        out.append(restore_marker(s, t, "rebind"))
        return out

    def _setitem(self, s, state):
        target = s.targets[0]
        base = target.value.id
        out = []
        if base in state:
            index = _index_expr(target.slice)
            v = s.value
            rows = "" if self.rows is None else "_rows"
            value = None
            if isinstance(v, gast.Name) and v.id in self.act:
                if _basic_index(target.slice, self.ints) or _dict_key(target.slice):
                    part = self.item(T.name(self.d(base)), index)
                else:  # a fancy index may repeat a slot: the last write wins
                    part = T.expr(f"_sg.written{rows}(g, i)", g=self.d(base), i=_index_expr(index))
                if base not in self.ctx.containers:  # (a store into integers keeps none)
                    part = T.expr("_sg.stored_grad(g, b)", g=part, b=base)
                value = T.expr(f"_sg.unbroadcast{rows}(g, v)", g=part, v=v.id)
                if v.id == base:  # ``b[i] = b``: its adjoint comes after the slots are cleared
                    tmp = self.namer.fresh(f"{self.d(base)}_written")
                    out.append(T.assign(tmp, value))
                    value = T.name(tmp)
                else:
                    self.acc(v.id, value, state, out)
                    value = None
            if base in self.ctx.containers or self._passed_container(base) \
                    or _dict_key(target.slice):
                # An item of a list or dict may be rebound to another shape, or a key
                # added: its adjoint slot is cleared to the zeros of what the restore put
                # back (or dropped with a key the write added).
                out.append(restore_marker(s, base, "slot"))
                out.append(T.assign(self.d(base), T.expr(
                    f"_sg.zero_at{rows}(g, i, a)", g=self.d(base), i=copy.deepcopy(index),
                    a=base)))
                if value is not None:
                    self.acc(v.id, value, state, out)
                return out
            out.append(T.assign(self.d(base), T.expr(f"_sg.zero_at{rows}(g, i)", g=self.d(base),
                                                      i=copy.deepcopy(index))))
            if value is not None:
                self.acc(v.id, value, state, out)
        out.append(restore_marker(s, base, "slot"))
        return out

    def _custom(self, s, state):
        """``y = f(a, b)`` for a custom_gradient f: the user's grad_fn gives the adjoints."""
        t = s.targets[0].id
        out = []
        active = [(i, a) for i, a in enumerate(s.sg_operands)
                  if isinstance(a, gast.Name) and a.id in self.act]
        if t in state and active:
            grads = self.namer.fresh(f"{t}_grads")
            inputs = gast.Tuple([copy.deepcopy(a) for a in s.sg_operands], gast.Load())
            if self.rows is None:
                call = T.expr("_sg.custom_adjoints(_sg.upstream(p[1], g), inputs)", p=s.sg_pair,
                              g=self.d(t), inputs=inputs)
            else:  # the user's grad_fn knows nothing of rows
                call = T.expr("_sg.custom_adjoints(_sg.each_row(p[1], g), inputs, len(g))",
                              p=s.sg_pair, g=self.d(t), inputs=inputs)
            out.append(T.assign(grads, call))
            for i, a in active:
                self.acc(a.id, T.expr("g[i]", g=grads, i=T.const(i)), state, out)
        return self._finish(s, t, state, out)

    def _watch(self, s, state):
        """A tape's watch point: report the adjoint the value has here."""
        name = s.sg_watched
        if name not in state:
            return []
        if self.named_sources is not None:
            out = self.named_sources.get(name)
            if out is not None:
                return [T.assign(out, self._sum(out, name))]
            # A Variable read from where it is stored (``self.b`` in a method): the
            # adjoint of the sources it is when the code runs (given as the Variable or
            # as its array, or held in a list or dict of them bound to the source's name).
            return [T.assign(o, T.expr("_sg.add_to_sources(o, v, n, g)", o=o, v=name,
                                       n=source, g=self.d(name)))
                    for source, o in self.named_sources.items()]
        # A value the block computed is reported by its name (a str: watched values
        # never are), since it is matched to the value the block made when it ran.
        x = T.const(getattr(s, "sg_report_as", name)) if getattr(s, "sg_output", False) \
            else T.name(name)
        return [T.stmt("l.append((x, g))", l=self.grads_list, x=x, g=self.d(name))]

    def _append(self, s, state):
        lst = s.value.func.value.id
        arg = s.value.args[0]
        out = []
        if lst in state and self.inplace and state[lst] is OWN:
            # Our own list: take the last item off it, instead of copying the rest.
            if isinstance(arg, gast.Name) and arg.id in self.act:
                self.acc(arg.id, T.expr("g.pop()", g=self.d(lst)), state, out)
            else:
                out.append(T.stmt("g.pop()", g=self.d(lst)))
        elif lst in state:
            if isinstance(arg, gast.Name) and arg.id in self.act:
                self.acc(arg.id, self.item(T.name(self.d(lst)), T.const(-1)), state, out)
            rest = gast.Slice(None, T.const(-1), None)
            out.append(T.assign(self.d(lst), self.item(T.name(self.d(lst)), rest)))
            state[lst] = OWN
        out.append(restore_marker(s, lst, "unappend"))
        return out

    # -- control flow ----------------------------------------------------------
    def if_stmt(self, s, state):
        if len(s.body) == 1 and isinstance(s.body[0], gast.Break):
            return []
        restore_cond = restore_marker(s, s.sg_cond, "rebind")
        then_state, else_state = state.copy(), state.copy()
        self.enclosing.append(_key(s))
        then_code = self.block(s.body, then_state)
        else_code = self.block(s.orelse, else_state)
        self.enclosing.pop()
        for name in sorted(set(then_state) ^ set(else_state)):
            branch, other = (else_state, then_state) if name in then_state else (then_state, else_state)
            (else_code if name in then_state else then_code).append(self.zero(name))
            branch[name] = OWN
        state.clear()
        for name in then_state:
            state[name] = OWN if then_state[name] is OWN and else_state[name] is OWN else True
        if not (then_code or else_code):
            return []
        return [_rev_if(s, then_code, else_code), restore_cond]

    def loop(self, s, state):
        start = state.copy()
        self.enclosing.append(_key(s))
        for _ in range(100):
            trial = start.copy()
            body = self.block(s.body, trial)
            grown = set(trial) - set(start)
            # An adjoint owned at the top of the body must still be owned at its end.
            lost = {n for n in start if start[n] is OWN and n in trial and trial[n] is not OWN}
            if not grown and not lost:
                break
            start.update({n: OWN for n in grown if n not in state})
            start.update({n: True for n in grown if n in state})
            start.update({n: True for n in lost})
        self.enclosing.pop()
        before = [self.zero(n) for n in sorted(set(start) - set(state))]
        for name in sorted(set(start) - set(trial)):
            body.append(self.zero(name))
        state.clear()
        state.update(start)
        replay = getattr(s, "sg_range", None)
        if replay is not None:
            seq = T.expr("r[:n]", r=replay, n=s.sg_trips) if s.sg_early_exit else T.name(replay)
            node = gast.For(T.name(s.target.id, store=True), T.expr("reversed(r)", r=seq),
                            body or [gast.Pass()], [], None)
        else:
            if isinstance(s, gast.For):
                body.insert(0, restore_marker(s, s.target.id, "target"))
            node = gast.For(T.name("_", store=True), T.expr("range(n)", n=s.sg_trips),
                            body or [gast.Pass()], [], None)
        node.sg_loop = s
        anno.like(node, s)
        out = before + [node, restore_marker(s, s.sg_trips, "rebind")]
        if replay is not None:
            out.append(restore_marker(s, replay, "rebind"))
        if isinstance(s, gast.For):
            out.append(restore_marker(s, s.target.id, "rebind"))
            if s.target.id in state:
                # A trip binds the target anew: its adjoint belongs to the items (which
                # pass it on where they were bound), not to what the name held before
                # the loop, unless no trip ran.
                trips = T.name(s.sg_trips) if replay is None or s.sg_early_exit \
                    else T.expr("len(r)", r=replay)
                # (Zeros like the adjoint: the name's value before the loop may be gone.)
                dname = self.d(s.target.id)
                zero = T.assign(dname, T.expr("_sg.zeros_like(g)", g=dname))
                out.append(anno.like(gast.If(trips, [zero], []), s))
        return out


def _key(s):
    o = anno.origin(s)
    return (o.filename, o.lineno) if o else None


def _rev_if(s, then_code, else_code):
    node = gast.If(T.name(s.sg_cond), then_code or [gast.Pass()], else_code, )
    node.sg_if = s
    return anno.like(node, s)


def _basic_index(index, ints):
    """An index of ints and slices, for which ``a[i] += g`` adds once per element."""
    if isinstance(index, gast.Tuple):
        return all(_basic_index(e, ints) for e in index.elts)
    if isinstance(index, gast.Slice):
        return all(p is None or _basic_index(p, ints) for p in (index.lower, index.upper, index.step))
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub):
        return _basic_index(index.operand, ints)
    if isinstance(index, gast.Constant):
        return isinstance(index.value, int) and not isinstance(index.value, bool) \
            or index.value is Ellipsis
    return isinstance(index, gast.Name) and index.id in ints


def int_names(body, inputs=()):
    """Names every assignment of which gives an int: range loop targets, ``i + 1``, ``len(x)``.

    ``inputs``: names that hold values from outside ``body`` (parameters) not
    known to be ints. They are never ints, however ``body`` rebinds them:
    ``x = x * x`` refutes nothing by itself, and a float array taken for an
    int would lose its adjoint's reduction to a scalar.
    """
    defs = {}
    for s in walk_stmts(body):
        if isinstance(s, gast.For):
            it = s.iter
            is_range = isinstance(it, gast.Call) and isinstance(it.func, gast.Name) \
                and it.func.id == "range" or getattr(s, "sg_range", None) is not None
            defs.setdefault(s.target.id, []).append("int" if is_range else None)
        elif isinstance(s, gast.Assign):
            for t in s.targets:
                for n in gast.walk(t):
                    if isinstance(n, gast.Name):
                        value = s.value if t is n else None
                        defs.setdefault(n.id, []).append(value)
    ints = set(defs) - set(inputs)
    changed = True
    while changed:
        changed = False
        for name in list(ints):
            if not all(v == "int" or _int_expr(v, ints) for v in defs[name]):
                ints.discard(name)
                changed = True
    return ints


def _int_expr(node, ints):
    if isinstance(node, gast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool)
    if isinstance(node, gast.Name):
        return node.id in ints
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult,
                                                             gast.FloorDiv, gast.Mod)):
        return _int_expr(node.left, ints) and _int_expr(node.right, ints)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _int_expr(node.operand, ints)
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
        return node.func.id in ("len", "int") and not node.keywords
    return False


def passed_container(ctx, name):
    """A parameter passed a list, tuple or dict (``params`` of a step): its adjoints
    add item by item."""
    return any(isinstance((values or {}).get(name), (list, tuple, dict))
               for values in (getattr(ctx, "arg_values", None), ctx.param_values))


def _dict_key(index):
    """A string constant: a dict key, written once (``written`` is for fancy indices)."""
    return isinstance(index, gast.Constant) and isinstance(index.value, (str, bytes))


def _index_expr(index):
    """The index as an expression usable outside a subscript (slices become slice())."""
    if isinstance(index, gast.Slice):
        parts = [p if p is not None else T.const(None) for p in (index.lower, index.upper, index.step)]
        return gast.Call(T.name("slice"), [copy.deepcopy(p) for p in parts], [])
    if isinstance(index, gast.Tuple):
        return gast.Tuple([_index_expr(e) for e in index.elts], gast.Load())
    return copy.deepcopy(index)


class _RuleSubst(gast.NodeTransformer):
    def __init__(self, subs):
        self.subs = subs

    def visit_Name(self, node):
        if node.id in self.subs:
            return T.clone(self.subs[node.id])
        return node


def _rule_expr(text, subs, g, ans, modules):
    tree = T._parse(text)[0].value
    mapping = {name: T.own_name(alias) for name, alias in modules.items()}
    mapping.update(subs)
    mapping["g"] = g
    mapping["ans"] = ans
    new = _RuleSubst(mapping).visit(T.clone(tree))
    return T.fix_ctx(new)
