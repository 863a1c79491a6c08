"""Lower early exits and sugar to the few forms the reverse pass knows.

After this pass a function body has:
- one ``return`` as its last statement (early and multiple returns become a
  result variable and a ``returned`` flag guarding the rest),
- no ``break``/``continue`` except ``if <flag>: break`` as the last statement of
  a loop body (the rest of the iteration is guarded by the flag instead),
- no augmented assignment (``x += v`` is ``x = x + v``),
- only plain names as ``for`` targets (``for i, x in ...`` unpacks in the body),
- no starred targets (``first, *rest = values`` binds each name to an item or slice),
- one target per assignment (``a = b = v`` is ``a = v; b = a``),
- no docstrings or ``pass``.

Before/after::

    for x in xs:              broke = False
        if x > 3:             for x in xs:
            break                 cond = x > 3
        s = s + x      ->         if x > 3:
                                      broke = True
                                  if not broke:
                                      s = s + x
                                  if broke:
                                      break
"""
import copy

import gast

from ..ir import templates as T
from ..ir.atoms import OP_SYMBOLS, is_sg_call
from .copied_params import rename_copied_params


def _walk_no_defs(node):
    """Walk a statement without entering nested function definitions."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for child in gast.iter_child_nodes(n):
            if not isinstance(child, (gast.FunctionDef, gast.Lambda)):
                todo.append(child)


def _own_exits(stmt, kind):
    """Does ``stmt`` contain a break/continue of the enclosing loop?"""
    todo = [stmt]
    while todo:
        n = todo.pop()
        if isinstance(n, kind):
            return True
        if isinstance(n, (gast.For, gast.While, gast.FunctionDef)):
            continue
        todo.extend(c for c in gast.iter_child_nodes(n) if isinstance(c, gast.stmt))
    return False


def _has_return(stmt):
    if isinstance(stmt, gast.FunctionDef):
        return False
    return any(isinstance(n, gast.Return) for n in _walk_no_defs(stmt))


class _Loop:
    def __init__(self, broke=None, skip=None):
        self.broke = broke
        self.skip = skip


class Desugar:
    def __init__(self, namer, result_name):
        self.namer = namer
        self.result = None
        self.returned = None
        self.result_name = result_name
        self.loops = []

    def run(self, fn):
        rename_copied_params(fn, self.namer)
        body = [s for s in fn.body if not _is_docstring(s)]
        needs_flag = any(_has_return(s) for s in body[:-1]) or (
            body and not isinstance(body[-1], gast.Return) and any(_has_return(s) for s in body)
        )
        if needs_flag:
            self.result = self.namer.fresh(self.result_name)
            self.returned = self.namer.fresh("returned")
            head = [T.assign(self.result, T.const(None)), T.assign(self.returned, T.const(False))]
            for h in head:
                gast.copy_location(h, fn)
            new = head + self.block(body) + [gast.copy_location(gast.Return(T.name(self.result)), fn)]
        else:
            last = body[-1:] if body and isinstance(body[-1], gast.Return) else []
            rest = body[:-1] if last else body
            new = self.block(rest) + (last or [gast.Return(T.const(None))])
        fn.body = new
        return fn

    # -- blocks ------------------------------------------------------------
    def _escape_flags(self, stmt):
        flags = []
        if self.returned and _has_return(stmt):
            flags.append(self.returned)
        if self.loops:
            loop = self.loops[-1]
            if loop.broke and _own_exits(stmt, gast.Break):
                flags.append(loop.broke)
            if loop.skip and _own_exits(stmt, gast.Continue):
                flags.append(loop.skip)
        return flags

    def block(self, stmts):
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, gast.Return):
                value = s.value if s.value is not None else T.const(None)
                out += self._located(s, [T.assign(self.result, value), T.assign(self.returned, T.const(True))])
                return out
            if isinstance(s, gast.Break):
                return out + self._located(s, [T.assign(self.loops[-1].broke, T.const(True))])
            if isinstance(s, gast.Continue):
                return out + self._located(s, [T.assign(self.loops[-1].skip, T.const(True))])
            if isinstance(s, gast.Pass) or _is_docstring(s):
                continue
            flags = self._escape_flags(s)
            out += self.stmt(s)
            rest = stmts[i + 1:]
            if flags and rest:
                guarded = self.block(rest)
                if guarded:
                    test = _not_any(flags)
                    out.append(gast.copy_location(gast.If(test, guarded, []), rest[0]))
                return out
        return out

    def _located(self, src, nodes):
        for n in nodes:
            gast.copy_location(n, src)
        return nodes

    # -- statements --------------------------------------------------------
    def stmt(self, s):
        if isinstance(s, gast.AnnAssign):
            # ``a: list = [x, y]`` is ``a = [x, y]`` (an annotation is only a note); ``a:
            # float`` alone binds nothing. (Left as it was, the compiler ran it without
            # an adjoint: a zero gradient through ``a``.)
            return [] if s.value is None else \
                self.stmt(self._located(s, [T.assign(s.target, s.value)])[0])
        if isinstance(s, gast.Assign) and len(s.targets) > 1:
            return [d for part in self._located(s, self.chained(s)) for d in self.stmt(part)]
        slots = _slots_as_items(s)
        if slots is not None:
            return self._located(s, slots)
        if _has_starred_target(s):
            return self._located(s, self.starred(s.targets[0], s.value))
        if _extend_by_display(s):
            # ``xs.extend([a, b])``: ``xs.append(a)``, ``xs.append(b)``, as it adds them
            # (appends are what the compiler models of a list growing).
            call = s.value
            return self._located(s, [gast.Expr(gast.Call(
                gast.Attribute(copy.deepcopy(call.func.value), "append", gast.Load()), [e], []))
                for e in call.args[0].elts])
        if _attributes_unpacked(s):
            # ``self.w, self.act = w, act``: each value first, then each attribute bound,
            # as Python runs it; an object's attributes are then set one by one, which
            # the normalizer keeps as locals (passes/normalize/objects.py).
            held = [self.namer.fresh(f"{getattr(t, 'attr', None) or t.id}_value")
                    for t in s.targets[0].elts]
            return self._located(s, [T.assign(h, v) for h, v in zip(held, s.value.elts)]
                                 + [T.assign(t, T.name(h)) for t, h in zip(s.targets[0].elts, held)])
        s = _as_augmented(s)
        if isinstance(s, gast.AugAssign):
            value = gast.BinOp(copy.deepcopy(s.target), s.op, s.value)
            node = T.assign(s.target, value)
            node.sg_inplace = True  # Python updates arrays in place here: see normalize
            return self._located(s, [node])
        if isinstance(s, gast.If):
            s.body = self.block(s.body) or [gast.Pass()]
            s.orelse = self.block(s.orelse)
            return [s]
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s)
        return [s]

    def chained(self, s):
        """``a = b = v`` as Python runs it: ``v`` once, bound to each target from the left
        (``a = v; b = a``: the same object under both names)."""
        first = s.targets[0]
        if isinstance(first, gast.Name):
            held, out = first.id, [T.assign(first, s.value)]
            rest = s.targets[1:]
        else:
            held = self.namer.fresh("value")
            out, rest = [T.assign(held, s.value)], s.targets
        return out + [T.assign(t, T.name(held)) for t in rest]

    def starred(self, target, value):
        """``first, *rest, last = values`` as Python runs it: the values taken into a list
        (``[*values]``), checked to be enough, then each name bound to its item or slice::

            items = [*values]
            _sg.check_unpack(items, 2)
            first = items[0]
            rest = items[1:-1]
            last = items[-1]
        """
        star = next((i for i, e in enumerate(target.elts) if isinstance(e, gast.Starred)), None)
        if star is None:  # ``a, (b, *c) = ...``: the outer unpacking as it is, then each part
            parts = [self.namer.fresh("part") for _ in target.elts]
            out = [T.assign(gast.Tuple([T.name(p, store=True) for p in parts], gast.Store()),
                            value)]
            for e, p in zip(target.elts, parts):
                bind = T.assign(e, T.name(p))
                out += self.starred(e, bind.value) if _has_starred_target(bind) else [bind]
            return out
        before, after = star, len(target.elts) - star - 1
        items = self.namer.fresh("_".join(n.id for n in gast.walk(target)
                                          if isinstance(n, gast.Name)) or "items")
        out = [T.assign(items, gast.List([gast.Starred(value, gast.Load())], gast.Load())),
               T.stmt("_sg.check_unpack(items, n)", items=items, n=T.const(before + after))]
        for i, e in enumerate(target.elts):
            if i < star:
                part = T.const(i)
            elif i == star:
                e = e.value
                part = gast.Slice(T.const(before) if before else None,
                                  T.const(-after) if after else None, None)
            else:
                part = T.const(i - len(target.elts))
            bind = T.assign(e, gast.Subscript(T.name(items), part, gast.Load()))
            out += self.starred(bind.targets[0], bind.value) if _has_starred_target(bind) \
                else [bind]
        return out

    def loop(self, s):
        broke = self.namer.fresh("broke") if _own_exits_any(s.body, gast.Break) else None
        skip = self.namer.fresh("skip_rest") if _own_exits_any(s.body, gast.Continue) else None
        returns_inside = self.returned and any(_has_return(b) for b in s.body)
        self.loops.append(_Loop(broke, skip))
        body = s.body
        if isinstance(s, gast.For) and not isinstance(s.target, gast.Name):
            body = list(body)
            item = self.namer.fresh("_".join(n.id for n in gast.walk(s.target) if isinstance(n, gast.Name)) or "item")
            unpack = gast.copy_location(T.assign(s.target, T.name(item)), s)
            s.target = T.name(item, store=True)
            body.insert(0, unpack)
        new_body = self.block(body)
        self.loops.pop()
        if skip:
            # After the unpacking of the loop target, which must stay first.
            at = 1 if body is not s.body and new_body else 0
            new_body.insert(at, gast.copy_location(T.assign(skip, T.const(False)), s))
        exit_flags = [f for f in (broke,) if f]
        if returns_inside:
            exit_flags.append(self.returned)
        if exit_flags:
            test = exit_flags[0] if len(exit_flags) == 1 else None
            test_node = T.name(test) if test else gast.BoolOp(gast.Or(), [T.name(f) for f in exit_flags])
            new_body.append(gast.copy_location(gast.If(test_node, [gast.Break()], []), s))
        s.body = new_body or [gast.Pass()]
        out = []
        if broke:
            out.append(gast.copy_location(T.assign(broke, T.const(False)), s))
        if isinstance(s, gast.For):
            out += self._displays_named(s)
        return out + [s]

    def _displays_named(self, s):
        """``for layer in [Dense(w1), Dense(w2)]:`` as ``layer_items = [...]`` then the
        loop, and so a display of calls ``zip`` or ``enumerate`` takes (Python evaluates
        them once, first, in this order): a display of objects bound to a name is what
        the normalizer knows when compiling. Returns the bindings."""
        def calls_in(node):
            return isinstance(node, (gast.List, gast.Tuple)) and any(
                isinstance(n, gast.Call) for e in node.elts for n in gast.walk(e))

        it = s.iter
        if calls_in(it):
            items = self.namer.fresh(f"{s.target.id}_items")
            s.iter = T.name(items)
            return [gast.copy_location(T.assign(items, it), s)]
        if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name)
                and it.func.id in ("zip", "enumerate") and not it.keywords):
            return []
        out = []
        for k, a in enumerate(it.args):
            if calls_in(a):
                items = self.namer.fresh("items")
                out.append(gast.copy_location(T.assign(items, a), s))
                it.args[k] = T.name(items)
        return out


def _extend_by_display(s):
    """``name.extend([a, b])`` (or a tuple display), as a statement."""
    call = s.value if isinstance(s, gast.Expr) else None
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) \
        and call.func.attr == "extend" and isinstance(call.func.value, gast.Name) \
        and len(call.args) == 1 and not call.keywords \
        and isinstance(call.args[0], (gast.List, gast.Tuple)) \
        and not any(isinstance(e, gast.Starred) for e in call.args[0].elts)


def _attributes_unpacked(s):
    """``a.x, a.y = u, v``: attributes (and names) bound to the items of a display."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], (gast.Tuple, gast.List))
            and isinstance(s.value, (gast.Tuple, gast.List))
            and len(s.targets[0].elts) == len(s.value.elts)):
        return False
    targets, values = s.targets[0].elts, s.value.elts
    return any(isinstance(t, gast.Attribute) for t in targets) \
        and all(isinstance(t, (gast.Name, gast.Attribute)) for t in targets) \
        and not any(isinstance(v, gast.Starred) for v in values)


def _has_starred_target(s):
    """``a, *b = ...``, or a starred name deeper in the target (``a, (b, *c) = ...``)."""
    return isinstance(s, gast.Assign) and len(s.targets) == 1 \
        and isinstance(s.targets[0], (gast.Tuple, gast.List)) \
        and any(isinstance(n, gast.Starred) for n in gast.walk(s.targets[0]))


def _own_exits_any(stmts, kind):
    return any(_own_exits(s, kind) for s in stmts)


def _not_any(flags):
    if len(flags) == 1:
        return gast.UnaryOp(gast.Not(), T.name(flags[0]))
    return gast.UnaryOp(gast.Not(), gast.BoolOp(gast.Or(), [T.name(f) for f in flags]))


def _is_docstring(s):
    return isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant) and isinstance(s.value.value, str)


def desugar(fn, namer, result_name="result"):
    """Lower ``fn`` (a gast FunctionDef) in place; see the module docstring."""
    return Desugar(namer, result_name).run(fn)


_BY_SYMBOL = {symbol + "=": op for op, symbol in OP_SYMBOLS.items()}


def _as_augmented(s):
    """``a = _sg.update(a, '*=', c)`` (generated code run as Python runs ``a *= c``,
    where no gradient flowed) read as ``a *= c`` again when that code is differentiated
    in turn: there a gradient may flow through it, and the update must be modelled as
    the user's statement is, never as a function with no derivative."""
    value = getattr(s, "value", None)
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and is_sg_call(value)
            and value.func.attr == "update" and len(value.args) == 3 and not value.keywords
            and isinstance(value.args[1], gast.Constant) and value.args[1].value in _BY_SYMBOL):
        return s
    target, (a, _, b) = s.targets[0], value.args
    if isinstance(target, gast.Name) and isinstance(a, gast.Subscript):
        # ``z_update = _sg.update(z[::2], '+=', y)``, stored by ``z[::2] = z_update`` after
        # the slot is saved: the new value, computed (the store writes it; a view updated
        # in place there would have the slot saved as updated)
        return gast.copy_location(gast.Assign([target], gast.BinOp(
            a, _BY_SYMBOL[value.args[1].value](), b), None), s)
    # (``K[i] = _sg.update(K[i], '+=', c)``, ``d["k"] = ...``: an item's update, too)
    if not (isinstance(target, (gast.Name, gast.Subscript, gast.Attribute))
            and gast.unparse(target).strip() == gast.unparse(a).strip()):
        return s
    return gast.copy_location(gast.AugAssign(target, _BY_SYMBOL[value.args[1].value](), b), s)


def _slots_as_items(s):
    """``v = _sg.save_slot(d, k)`` and ``_sg.restore_slot(d, k, v)`` (generated code saving
    and restoring a dict item a write may add) read, when that code is differentiated
    in turn, as the item reads and writes they are (``v = _sg.copy_slot(d[k])``, ``d[k]
    = v``), which the compiler models; a key the write adds is refused when it runs
    (``_sg.check_has_key``): taking it out again is a ``del``, not modelled."""
    value = getattr(s, "value", None)
    if not is_sg_call(value) or value.keywords:
        return None
    if value.func.attr == "save_slot" and isinstance(s, gast.Assign) and len(value.args) == 2:
        d, k = value.args
        return [T.stmt("_sg.check_has_key(d, k, None)", d=d, k=k),
                T.assign(s.targets[0], T.expr("_sg.copy_slot(d[k])", d=d, k=k))]
    if value.func.attr == "restore_slot" and isinstance(s, gast.Expr) and len(value.args) == 3:
        d, k, v = value.args
        return [T.stmt("d[k] = v", d=d, k=k, v=v)]
    return None
