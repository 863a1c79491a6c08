"""The ``Normalizer``: the statement-by-statement rewriting the package docstring describes."""
import builtins
import copy
import dataclasses
import operator
import re
import types

import gast
import numpy as np

from ... import trees
from ...ir import anno, templates as T
from ...ir.aliasing import MUTATORS as _MUTATORS, last_reads, shared_names
from ...ir.private import private_updates
from .. import try_except
from ..reverse import _index_expr
from ...ir.effects import HiddenWrites
from ...ir.atoms import (OP_NAMES, OP_SYMBOLS, hint as _hint, is_constant as _is_constant,
                        is_simple_index as _is_simple_index, is_static_object as _is_static_object,
                        literal_items, number as _number, root as _root, short as _short)
from ...ir.names import bound_names, own_nodes, root_id, walk_stmts
from ...ir.resolve import MISSING, UNROLL_MAX, among, is_library
from ...ir.scopes import function_locals
from ...ir.varied import expr_varied
from ...rules import rewrites, table
from ...variables import Variable, stop_gradient
from .. import as_written
from . import (attributes, calls, dict_keys, functions, global_names, objects, order,
               properties, record_kinds, shared_lists, stores, unroll, views)
from .inline import rename
from .items import items_forwarded
from .structure import Facts

# The index-expression joiners that are primitives: the runtime function each stands for.
_JOINERS = {id(np.r_): "join_r", id(np.c_): "join_c"}


_LENGTH_CHANGERS = frozenset({"append", "extend", "insert", "pop", "remove", "clear"})


def _check_iterated_lengths(fn, error):
    """A loop over a list (``for v in xs``, over ``zip``, ``enumerate``, an ``itertools``
    iterator of it) runs over the items the list holds when it starts: refused where its
    body, once calls are inlined, may change that list's length (an append, a pop, under
    a name the body binds to the list: an inlined helper's parameter), which Python's
    loop would see. (A name bound to it before the loop may not be appended to at all.)"""
    for loop in walk_stmts(fn.body):
        iterated = getattr(loop, "sg_iterated", None)
        if not iterated:
            continue
        held, grew = set(iterated), True
        while grew:
            grew = False
            for st in walk_stmts(loop.body):
                if isinstance(st, gast.Assign) and isinstance(st.value, gast.Name) \
                        and st.value.id in held:
                    for t in st.targets:
                        if isinstance(t, gast.Name) and t.id not in held:
                            held.add(t.id)
                            grew = True
        for st in walk_stmts(loop.body):
            for n in own_nodes(st):
                if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                        and n.func.attr in _LENGTH_CHANGERS \
                        and isinstance(n.func.value, gast.Name) and n.func.value.id in held:
                    raise error(
                        "the loop's body changes the length of a list the loop iterates "
                        f"(`{n.func.value.id}.{n.func.attr}(...)`; Python's loop would see the "
                        "items added, or skip some): srcgrad takes the items the list holds "
                        "when the loop starts", loop,
                        "loop with an index, i = 0; while i < len(xs): v = xs[i]; ...; i += 1, "
                        "or over a copy, list(xs), if the items added are not meant")


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
                for n in T.walk(t):
                    if isinstance(n, gast.Name):
                        counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _written_into(target):
    """The names an assignment to ``target`` binds or writes into (``x[i + 1]``: ``x``)."""
    if isinstance(target, gast.Starred):
        target = target.value
    if isinstance(target, (gast.Tuple, gast.List)):
        return [n for e in target.elts for n in _written_into(e)]
    root = root_id(target)
    return [root] if root is not None else []


def _bound_to_other_than_sequences(body):
    """Names some assignment binds to a value that may not be a list or tuple: an item
    (``leaf = leaf[k]``, not a slice), an attribute, a constant other than None,
    arithmetic other than ``+`` and ``*``, or a name bound to one of these (followed
    until nothing changes)."""
    copies, out = [], set()
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name):
            v, t = s.value, s.targets[0].id
            if isinstance(v, gast.Name):
                copies.append((t, v.id))
            elif not (isinstance(v, (gast.List, gast.Tuple, gast.ListComp, gast.Call))
                      or isinstance(v, gast.BinOp) and isinstance(v.op, (gast.Add, gast.Mult))
                      or isinstance(v, gast.Constant) and v.value is None
                      or isinstance(v, gast.Subscript) and isinstance(v.slice, gast.Slice)):
                # (None: a placeholder generated code binds, never computed with; a
                # slice of a list is a list)
                out.add(t)
    while True:
        more = {t for t, n in copies if n in out} - out
        if not more:
            return out
        out |= more


class Normalizer:
    def __init__(self, ctx, desugar, load=None):
        self.ctx = ctx
        self.desugar = desugar  # the desugar pass, applied to each inlined callee
        self.load = load  # makes a function of a nested def lifted out (closures.py)
        self.scope = ctx.scope
        self.varied = set()
        self.changed = False
        self.attributes_stored = set()  # attribute names the code stores into (run)
        self.deciding = False  # in-place updates of maybe-shared arrays are decided (run)
        self.deferred = False
        self.counts = {}
        self._list_items = {}
        self.custom_pairs = {}  # name -> custom_gradient function whose (y, grad_fn) it holds
        self.not_sequences = set()  # containers' names also bound to other values
        self.function_tables = {}  # name -> its functions, by key (functions.py)
        self.loop_depth = 0  # loops around the statement normalized
        self.loop_closures = set()  # names bound to a closure a call makes in a loop
        # A callee's parameters bound to a list or dict the code is compiled for (static).
        self.compiled_containers = {}
        # Parameters of inlined calls bound to a constant of the code (``depth=3``,
        # ``k - 1`` of such a parameter): their tests are decided when compiling, which
        # is what lets recursion on them be inlined (inline.py).
        self.static_args = {}
        self.recursions = {}  # function -> how many times its recursion was inlined
        self.constants = {}  # name -> the constant the code run so far bound it to
        self.shared_with_defs = set()
        self.objects_pending = False
        self.maybe_records = set()  # results of calls inlined this round that may be records
        self.spelled = {}  # a name made for a view the user indexed -> the user's spelling
        self._displays = {}  # name -> the tuple displays it is bound to (``_varied``)

    # -- driver --------------------------------------------------------------
    def run(self, fn, wrt):
        global_names.lower(self, fn, self.ctx.src.globals)
        for _ in range(200):
            order.hoist_reads_before_calls(self, fn.body)
            objects.scalarize(self, fn)
            properties.inline_getters(self, fn)
            if self.ctx.mirrors:  # (names bound since the last round: locals, not globals)
                self.scope.locals = set(_assigned_names(fn.body)) | function_locals(fn)
                attributes.rewrite(self, fn)
            self.objects_pending = objects.pending(self, fn)
            _drop_dead_constants(fn.body)
            self.counts = _assigned_names(fn.body)
            self.scope.locals = set(self.counts) | function_locals(fn)
            self.facts = Facts(self, fn)
            dict_keys.rewrite(self, fn.body)  # (``a, b = d``, ``sum(d)``: its keys)
            self._find_static(fn.body)
            unroll.constant_getattrs(fn.body, self.scope)
            if unroll.comprehensions(self, fn.body) | unroll.object_index_loops(self, fn.body):
                self.deciding = False
                continue  # (objects made by a comprehension: ``objects.py`` sees them first)
            last = last_reads(fn.body)  # (what both analyses below start from)
            self.shared = shared_names(fn.body, self.scope, last)
            self.view_bindings = views.view_bindings(fn.body, self.scope)
            self.views_rewritten = False
            self.private = private_updates(fn.body, self.scope, last)
            self.varied = self._varied(fn.body, set(wrt) | set(self.ctx.objects)
                                       | set(self.ctx.object_lists) | self.scope.mirrored_names)
            global_names.check(self, fn)
            self.function_tables = functions.tables(self, fn.body)
            functions.note_items(self, fn.body)
            self.writes = HiddenWrites(fn.body, self.varied, self.scope)
            self.view_writes = views.pending(self, fn.body)
            fn.body, stored = stores.rewrite(self, fn.body)
            if stored:  # (``np.copyto(y, x)``, ``y.sort()``: the next round reads the stores)
                continue
            self.not_sequences = _bound_to_other_than_sequences(fn.body)
            self.attributes_stored = {n.attr for n in gast.walk(fn) if isinstance(n, gast.Attribute)
                                      and isinstance(n.ctx, gast.Store)}
            self.changed = False
            self.deferred = False
            self.constants = {}
            self.maybe_records = set()
            # (Names a nested def reads or writes, or declared global or nonlocal, may
            # change when a call runs: never a known constant.)
            self.shared_with_defs = _names_of_nested_defs(fn.body)
            # Parameters passed None or a string hold it until the code binds them (``if
            # acc is None: acc = []``): ``if act is not None:`` is decided when compiling
            # (the cache keys on the value), as for a name the code binds to a constant.
            self.constants.update({p: v for p, v in self.ctx.constant_params.items()
                                   if p not in self.shared_with_defs})
            shared_lists.check_stored_iterables(fn, self.scope, self.ctx.error)
            if self.ctx.watched_reads:
                self.ctx.note_written(fn.body)
            fn.body = self.block(fn.body)
            # An in-place update that may be of a shared array waits while calls are
            # inlined (what a helper returns may prove it private); then it is decided.
            self.deciding, deferred = not self.changed, self.deferred
            if deferred:
                continue
            if not self.changed:
                objects.check_escapes(self, fn)
                self._check_stored_out_read_elsewhere(fn)
                if not self.ctx.tape_region:
                    # (In a tape's block an item of a container may be asked for as a
                    # target or a source after it: its adjoint flows through the container.)
                    fn.body = items_forwarded(fn.body, self.scope.locals)
                fn.body = self._split_self_reference(fn.body)
                try_except.check_heads(fn, self.ctx.error, ("append", "pop", "setitem"))
                _check_iterated_lengths(fn, self.ctx.error)
                shared_lists.check_list_updates(fn, self.ctx.error)
                return fn
        raise self.ctx.error("function is too deeply nested to inline", fn)

    def _check_stored_out_read_elsewhere(self, fn):
        """Refuse a read, under another name (a default argument, an object's attribute),
        of a module's container the code stores differentiable values into: what it
        reads there is differentiated only through the name it was stored by."""
        if not self.ctx.stores_out:
            return
        stored = sorted(n for names in self.ctx.stores_out_names.values() for n in names)
        for s in walk_stmts(fn.body):
            for node in gast.walk(s):
                if isinstance(node, gast.Call) and self.scope.value(node.func) in (globals, vars):
                    raise self.ctx.error(
                        f"`{gast.unparse(node).strip()}` may read the module's container the "
                        f"code stores differentiable values into (`{stored[0]}`): srcgrad "
                        "follows what is stored there through its name only", s,
                        f"read it as `{stored[0]}`")
                if not (isinstance(node, (gast.Name, gast.Attribute))
                        and isinstance(node.ctx, gast.Load)):
                    continue
                value = self.scope.value(node)
                names = self.ctx.stores_out_names.get(id(value), ())
                if names and self.ctx.stores_out.get(id(value)) is value \
                        and not (isinstance(node, gast.Name) and node.id in names):
                    text = "a name a function has for it (a default argument, another " \
                        "module's global)" if isinstance(node, gast.Name) \
                        and node.id in self.ctx.cells else f"`{gast.unparse(node).strip()}`"
                    raise self.ctx.error(
                        f"{text} is the module's container the code stores differentiable "
                        f"values into as `{sorted(names)[0]}`: srcgrad follows what is "
                        "stored there through that name only", s,
                        f"read it as `{sorted(names)[0]}` where the values are read back, or "
                        "keep them in a container the function makes and passes on")

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
            if anno.kind(s) in ("prim", "getitem", "literal", "custom"):
                target = s.targets[0].id
                # (a custom_gradient's call: its operands are the pair's, ``x = sq(x)``)
                read = list(T.walk(s.value)) + list(getattr(s, "sg_operands", None) or ())
                if any(isinstance(n, gast.Name) and n.id == target for n in read):
                    tmp = self.ctx.namer.fresh(target + "_new")
                    s.targets[0].id = tmp
                    if target in self.ctx.containers:
                        self.ctx.containers.add(tmp)
                    out.append(anno.set_kind(anno.like(T.assign(target, T.name(tmp)), s), "copy"))
        return out

    def _find_static(self, body):
        """Single-assignment locals bound to a nested def or a static object (or a
        container of Variables a tape watches, which nothing changes)."""
        mutated = self.facts.mutated
        in_loops = _in_loops(body)
        self.loop_closures = set()
        rebound = {n.id for s in body for n in T.walk(s)  # (nested defs' too)
                   if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
        for s in walk_stmts(body):
            if getattr(s, "sg_made_closure", False) and id(s) in in_loops:
                self.loop_closures.add(s.targets[0].id)  # one name for closures of many trips
                continue
            if isinstance(s, gast.FunctionDef) and self.counts.get(s.name) == 1:
                self.scope.local_defs[s.name] = s
            elif (isinstance(s, gast.Assign) and len(s.targets) == 1
                  and isinstance(s.targets[0], gast.Name) and self.counts.get(s.targets[0].id) == 1
                  and isinstance(s.value, (gast.Name, gast.Attribute, gast.Subscript))):
                name = s.targets[0].id
                if name in self.scope.static:
                    continue
                obj = self.scope.value(self._keyed_index(s.value, rebound))
                if obj is not MISSING and (_is_static_object(obj) or self._of_sources(obj, s.value)
                                           and name not in mutated):
                    self.scope.static[name] = obj
            elif (isinstance(s, gast.Assign) and len(s.targets) == 1
                  and isinstance(s.targets[0], (gast.Tuple, gast.List))
                  and all(isinstance(e, gast.Name) and self.counts.get(e.id) == 1
                          for e in s.targets[0].elts)
                  and isinstance(s.value, (gast.Name, gast.Attribute, gast.Subscript))):
                # ``first, second = model.layers``: the objects a list or tuple known when
                # compiling holds, unpacked (each checked when it runs where it matters,
                # passes/normalize/attributes.py)
                items = self.scope.value(s.value)
                if type(items) in (list, tuple) and len(items) == len(s.targets[0].elts):
                    for e, obj in zip(s.targets[0].elts, items):
                        if e.id not in self.scope.static and _is_static_object(obj):
                            self.scope.static[e.id] = obj
            elif (isinstance(s, gast.Assign) and len(s.targets) == 1
                  and isinstance(s.targets[0], gast.Name) and self.counts.get(s.targets[0].id) == 1
                  and isinstance(s.value, (gast.List, gast.Tuple, gast.Dict))
                  and self.ctx.variable_sources and s.targets[0].id not in mutated):
                # ``model = {"dense": layer}`` of Variables a tape watches: its items are
                # known when compiling, so ``model["dense"][0]`` reads the Variable.
                obj = self._display_value(s.value)
                if obj is not MISSING and self._of_sources(obj):
                    self.scope.static[s.targets[0].id] = obj

    def _keyed_index(self, node, rebound):
        """``ACTS[name]`` with ``name`` a parameter passed a string (or None) the code
        never rebinds (``rebound``: the names it does): ``ACTS["tanh"]``, as the cache
        keys the code on it."""
        key = node.slice if isinstance(node, gast.Subscript) else None
        if isinstance(key, gast.Name) and key.id in self.ctx.constant_params \
                and key.id not in rebound:
            return gast.Subscript(node.value, T.const(self.ctx.constant_params[key.id]),
                                  gast.Load())
        return node

    def _display_value(self, node):
        """The value of a list/tuple/dict display, with MISSING for the items not known
        when compiling (reading one of them statically gives MISSING) and for reads of
        a Variable, which the display holds as an array once normalized (``read_value``)."""
        if isinstance(node, gast.Constant):
            return node.value
        if isinstance(node, (gast.List, gast.Tuple)):
            items = [self._display_value(e) for e in node.elts]
            return items if isinstance(node, gast.List) else tuple(items)
        if isinstance(node, gast.Dict):
            if not all(isinstance(k, gast.Constant) for k in node.keys):
                return MISSING
            return dict(zip([k.value for k in node.keys], map(self._display_value, node.values)))
        if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)) \
                and not self.scope.is_source(node):
            return self.scope.value(node)
        return MISSING

    def _of_sources(self, value, read_from=None):
        """Is ``value`` a list, tuple, dict or record holding a Variable a tape watches, or
        (read from ``read_from``, an expression) a list, tuple or dict holding a value it
        watches from the block's start (``l = lst`` of ``lst = [W, x]`` made before the
        block, a callee's parameter bound to it: its reads ``l[0]`` are sources; hunt 6)?
        Not one read from a name the code differentiates (``tape.watch(params)``): the
        gradient flows through that name's reads, slices too."""
        reads = self.ctx.watched_reads
        if reads is not None and read_from is not None and type(value) in (list, tuple, dict) \
                and root_id(read_from) not in self.varied and reads.watched.holds(value):
            return True
        if not self.ctx.variable_sources or not trees.is_tree(value):
            return False
        return any(self.ctx.is_variable(leaf) and getattr(leaf, "trainable", False)
                   for _, leaf in trees.flatten(value, strict=False)[0])

    def _varied(self, body, wrt):
        varied = set(wrt)
        changed = True
        # Item by item where that is known: ``pair = (k, ws[k])`` then ``i = pair[0]``, and
        # ``for pair in enumerate(ws): k, a = pair`` (``k`` counts, whatever ``ws`` holds):
        # an enumerate loop as generated code writes it, once unrolled or not.
        bindings = {}
        for s in walk_stmts(body):
            if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name):
                bindings.setdefault(s.targets[0].id, []).append(s.value)
            elif isinstance(s, gast.For) and isinstance(s.target, gast.Name):
                pairs = isinstance(s.iter, gast.Call) and len(s.iter.args) == 1 \
                    and self.scope.value(s.iter.func) is enumerate
                bindings.setdefault(s.target.id, []).append("enumerated" if pairs else None)
        self._displays = {n: vs for n, vs in bindings.items() if all(
            v == "enumerated" or isinstance(v, gast.Tuple) for v in vs)}
        # (A read by a loop's index may be of a known item once the loop is unrolled:
        # refused, if at all, when its statement is normalized.)
        self.ctx.deciding_varied = True
        try:
            while changed:
                changed = False
                for s in walk_stmts(body):
                    for name in self._writes_if_varied(s, varied):
                        if name not in varied:
                            varied.add(name)
                            changed = True
        finally:
            self.ctx.deciding_varied = False
        return varied

    def _item_varied(self, node, varied):
        """Is ``pair[k]`` varied, ``pair`` bound only to tuple displays (or to what an
        enumerate loop gives)? None where that is not known so."""
        if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
                and isinstance(node.slice, gast.Constant) and type(node.slice.value) is int
                and node.value.id in self._displays):
            return None
        k = node.slice.value
        out = False
        for v in self._displays[node.value.id]:
            if v == "enumerated":
                out = out or (k != 0 and node.value.id in varied)
            elif not -len(v.elts) <= k < len(v.elts):
                return None
            else:
                out = out or expr_varied(v.elts[k], varied, self.scope)
        return out

    def _writes_if_varied(self, s, varied):
        scope = self.scope
        if isinstance(s, gast.Assign):
            names = []
            for t in s.targets:
                while isinstance(t, gast.Subscript):  # (``K[i][j] = v`` writes into ``K``)
                    t = t.value
                names += [n.id for n in T.walk(t) if isinstance(n, gast.Name)
                          and isinstance(n.ctx, gast.Store)]
                if isinstance(t, gast.Name):
                    names.append(t.id)
            if anno.kind(s) == "prim":
                hit = any(isinstance(a, gast.Name) and a.id in varied for a in s.sg_args.values())
                return names if hit else []
            t, v = s.targets[0], s.value
            if self._keys_of_a_dict(v):
                return []
            shown = self._item_varied(v, varied)
            if shown is not None:
                return names if shown else []
            if isinstance(t, gast.Tuple) and isinstance(v, gast.Name) \
                    and v.id in self._displays:
                return [n for k, te in enumerate(t.elts)
                        if self._item_varied(gast.Subscript(v, T.const(k), gast.Load()), varied)
                        is not False for n in _written_into(te)]
            if isinstance(t, (gast.Tuple, gast.List)) and isinstance(v, (gast.Tuple, gast.List)) \
                    and len(t.elts) == len(v.elts):
                # (``x[i + 1], v[i + 1] = ...`` writes into ``x`` and ``v``, not ``i``)
                return [n for te, ve in zip(t.elts, v.elts) if expr_varied(ve, varied, scope)
                        for n in _written_into(te)]
            return names if expr_varied(s.value, varied, scope) else []
        if isinstance(s, gast.For):
            if expr_varied(s.iter, varied, scope):
                return [n.id for n in T.walk(s.target) if isinstance(n, gast.Name)]
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
        for i, s in enumerate(stmts):
            made = self.stmt(s)
            self._track_constants(made)
            out += made
            renamed = getattr(made[-1], "sg_renames", None) if made else None
            if renamed is not None:
                # A view made again under a new name (views.py), which the rest of the
                # block reads: what that name may share is found in the next round, so
                # the rest waits for it, as it is.
                rest = stmts[i + 1:]
                views.rename_reads(rest, *renamed)
                return out + rest
        return out

    def _track_constants(self, stmts):
        """Names bound to a constant by the code run so far, as it runs in order
        (``returned = True``, the flag an early return is desugared to): a test on one
        is decided when compiling, so that a recursion's base case ends its inlining."""
        for s in stmts:
            value = static_argument(s.value, self.known_constants()) \
                if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) else MISSING
            unpacked = _unpacked_constants(s, self.known_constants())
            copied = self._copied_length(s)
            self._forget([s])
            if value is not MISSING and s.targets[0].id not in self.shared_with_defs:
                self.constants[s.targets[0].id] = value
            elif unpacked:
                # ``act, k = None, 2.0``: each name its item's constant, all read before
                # any is bound, as Python does.
                self.constants.update({n: v for n, v in unpacked.items()
                                       if n not in self.shared_with_defs})
            elif isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Tuple) \
                    and not any(isinstance(e, gast.Starred) for e in s.value.elts) \
                    and s.targets[0].id not in self.shared_with_defs:
                # ``args = (x, y)``, a callee's *args: ``len(args)`` is known
                self.constants[("len", s.targets[0].id)] = len(s.value.elts)
            elif copied is not None and s.targets[0].id not in self.shared_with_defs:
                self.constants[("len", s.targets[0].id)] = copied

    def _copied_length(self, s):
        """``args = list(args)`` (or ``tuple(...)``) of a name whose length is known: that
        length (``f(*args)`` spreads it, checked when it runs), else None."""
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call)
                and len(s.value.args) == 1 and not s.value.keywords
                and isinstance(s.value.args[0], gast.Name)
                and any(self.scope.value(s.value.func) is t for t in (list, tuple))):
            return None
        return self.known_constants().get(("len", s.value.args[0].id))

    def known_constants(self):
        """Name -> constant, for the statement being normalized: parameters bound to
        constants, and names the code run so far bound to one."""
        return {**self.static_args, **self.constants}

    def _forget(self, stmts):
        """Names bound anywhere in ``stmts`` (handlers, comprehensions, ``:=`` included)
        no longer hold a known constant."""
        for s in stmts:
            for node in T.walk(s):
                if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
                    self.constants.pop(node.id, None)
                    self.constants.pop(("len", node.id), None)
                elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                        and node.func.attr in _MUTATORS and isinstance(node.func.value, gast.Name):
                    self.constants.pop(("len", node.func.value.id), None)  # (``xs.append``)
                elif isinstance(node, gast.Delete):
                    for t in node.targets:
                        if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name):
                            self.constants.pop(("len", t.value.id), None)
                elif isinstance(node, (gast.FunctionDef, gast.ClassDef)):
                    self.constants.pop(node.name, None)

    def loop_body(self, stmts):
        self.loop_depth += 1
        try:
            return self.block(stmts)
        finally:
            self.loop_depth -= 1

    def stmt(self, s):
        """``s`` normalized: the statements it becomes. One calling a function that a
        statement before it, inlined in this round, binds (``g = make(a)`` then
        ``g(x)``) waits for the next round, which knows the function."""
        if isinstance(s, (gast.Assign, gast.Expr, gast.Return, gast.For)):
            changed = self.changed
            if changed and any(self._pending_call(T.name(n)) or self._pending_merge(n)
                               for n in dict_keys.iterated_names(self, s)) and calls.waits(s):
                # ``for k in b`` / ``sum(b.values())`` of ``b = helper(x)`` inlined, or of
                # ``b = d1 | d2`` merged, this round: a dict gives its keys (its items),
                # which the next round knows it is (dict_keys.py)
                return [s]
            try:
                return self._stmt(s)
            except calls.Deferred:
                self.changed, self.deferred = changed, True
                return [s]
            except calls.NotYet:
                return [s]
        return self._stmt(s)

    def _stmt(self, s):
        self.cur = self.ctx.cur = s
        self.root = _root(s)
        written = getattr(s, "sg_as_written", None)
        if written is not None:  # a statement of a tape block run as written
            as_written.check(written, self.varied, self.scope,
                             lambda message, remedy: self.ctx.error(message, s, remedy))
        checked = getattr(s, "sg_check_item", None)
        if checked is not None and not getattr(s, "sg_item_checked", False):
            # ``a = x[i]`` where a write may reach ``x`` (ir/aliasing.py), once the calls
            # are inlined (which may show ``a`` written into: then shared instead).
            if not self.deciding:
                self.deferred = True
                return self._stmt_kind(s)
            root, text = checked
            s.sg_item_checked = self.changed = True
            o = anno.origin(s)
            name = self.ctx.in_user_names(s.targets[0].id)  # (named in messages if the user's)
            # (the read from ``root`` itself: ``t = M[0]; a = t[1]`` may copy the row ``t``)
            check = T.stmt("_sg.check_item_read(a, x, t, n, w)", a=T.clone(text), x=root,
                           t=T.const(self.ctx.in_user_names(gast.unparse(text).strip())),
                           n=T.const(name if o is not None and re.search(
                               rf"\b{re.escape(name)}\b", o.text or "") else ""),
                           w=T.const(o.short() if o else "?"))
            return [self._mark(check, "opaque"), s]
        return self._stmt_kind(s)

    def _stmt_kind(self, s):
        k = anno.kind(s)
        if k in (None, "copy") and isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name) \
                and s.value.id in self.ctx.read_values:
            # Another name for a Variable's array read (``x = params[0]; h = x``): that
            # array too, not the Variable its static value says (a second source).
            self.ctx.read_values.add(s.targets[0].id)
            if s.value.id in self.ctx.read_from:
                self.ctx.read_from[s.targets[0].id] = self.ctx.read_from[s.value.id]
            self.scope.static.pop(s.targets[0].id, None)
        if k in ("getitem", "copy") and self.scope.is_source(s.value):
            # An item found, since, to be a Variable a tape watches (``W = layer[0]`` once
            # ``layer`` is known to hold Variables): read as one.
            self.changed = True
            out = []
            self.variable_read(s.value, out, s.targets[0].id, s.targets[0].id)
            return out
        if k in ("getitem", "copy") and isinstance(s.targets[0], gast.Name):
            # (A name bound again, ``layer = items[1]`` of a loop unrolled: what it holds
            # from here on, in every round, not what its last binding left.)
            record_kinds.note_bound(self, s)
        elif getattr(s, "sg_record", None) is not None:
            calls.note_kind(self.ctx, s.targets[0].id, s.sg_record)  # (the same, once built)
        if (k is not None and k != "opaque") or getattr(s, "sg_norule", None) is not None:
            return [s]
        self._check_static_unchanged(s)
        updated = self._dict_update_as_stores(s)
        if updated is None:
            updated = self._extend_as_appends(s)
        if updated is not None:
            # (normalized in the next round, whose alias analysis sees the stores, not
            # a call handed the dict; one kept as it is waits for the deciding round)
            if updated == [s]:
                self.deferred = True
            else:
                self.changed = True
            return updated
        if stores.as_stores(self, s, build=False):
            # ``np.copyto(y, x)`` made in this round (an inlined helper's): the next
            # round writes it as a store, over the body it is then part of.
            self.changed = True
            return [s]
        self.writes.check(s, lambda message, remedy: self.ctx.error(message, s, remedy))
        if isinstance(s, gast.If):
            hoisted = self._object_calls_hoisted(s)
            if hoisted:
                return self.block(hoisted + [s])
            taken = self._static_truth(s.test)
            if taken is not None:
                # ``if self.activation is not None:`` with activation=None: the branch
                # that cannot run is not compiled (its calls may have no rule). The
                # values read are guarded (ir/resolve.py): another one compiles anew.
                self.changed = True
                return self.block(s.body if taken else s.orelse)
            known = dict(self.constants)
            kinds = record_kinds.snapshot(self.ctx)
            s.body = self.block(s.body)
            self.constants = dict(known)
            then_kinds = record_kinds.snapshot(self.ctx)
            record_kinds.restore(self.ctx, kinds)
            s.orelse = self.block(s.orelse)
            self.constants = known
            record_kinds.restore(self.ctx, record_kinds.merged(then_kinds,
                                                               record_kinds.snapshot(self.ctx)))
            return [s]
        if isinstance(s, (gast.While, gast.For)):
            self._forget([s])  # (what a later trip sees)
            kinds = record_kinds.snapshot(self.ctx)
            out = self._loop_stmt(s)
            record_kinds.check_loop(self.ctx, s, kinds)
            return out
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

    def _dict_update_as_stores(self, s):
        """``d.update(other, k=v)`` and ``d |= other`` of a dict, ``other``'s keys known
        when compiling: the stores ``d[k] = v`` they are, in order, after every value is
        read (``d |= {"a": d["b"], "b": d["a"]}`` swaps), so that what else holds ``d``
        sees them as Python's update does; ``v = d.setdefault("k", default)`` likewise.
        None for another statement."""
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
                and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "update" \
                and isinstance(s.value.func.value, gast.Name) and len(s.value.args) <= 1 \
                and all(k.arg is not None for k in s.value.keywords):
            call = s.value
            name = call.func.value.id
            pairs = self.facts.mapping(call.args[0]) if call.args else []
            if pairs is not None:
                pairs = list(pairs) + [(k.arg, k.value) for k in call.keywords]
        elif isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call) \
                and isinstance(s.value.func, gast.Attribute) \
                and s.value.func.attr == "setdefault" and len(s.value.args) == 2 \
                and not s.value.keywords and isinstance(s.value.func.value, gast.Name) \
                and isinstance(s.value.args[0], gast.Constant) \
                and self._only_a_dict(s.value.func.value.id) \
                and expr_varied(s.value, self.varied, self.scope):
            # ``v = d.setdefault("k", default)``: the default (read first, as Python
            # passes it) stored where the key is missing, then the item read.
            name, (key, default) = s.value.func.value.id, s.value.args
            t = self.ctx.namer.fresh(f"{name}_default")
            missing = gast.Compare(T.clone(key), [gast.NotIn()], [T.name(name)])
            store = T.assign(gast.Subscript(T.name(name), T.clone(key), gast.Store()), T.name(t))
            read = T.assign(s.targets[0].id, gast.Subscript(T.name(name), T.clone(key),
                                                            gast.Load()))
            return [anno.like(n, s) for n in (T.assign(t, default),
                                               gast.If(missing, [anno.like(store, s)], []),
                                               read)]
        elif isinstance(s, gast.Assign) and getattr(s, "sg_inplace", False) \
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.BinOp) \
                and isinstance(s.value.op, gast.BitOr) and isinstance(s.value.left, gast.Name) \
                and s.value.left.id == s.targets[0].id:
            name = s.targets[0].id
            pairs = self.facts.mapping(s.value.right)
        else:
            return None
        other = s.value.args[0] if isinstance(s, gast.Expr) and s.value.args else \
            s.value.right if isinstance(s, gast.Assign) else None
        if pairs is None and isinstance(other, gast.Call) and self._user_call(other) \
                and self._only_a_dict(name):
            # ``d |= helper(x)``: the helper's dict named, known once it is inlined
            holder, field = (s.value.args, 0) if isinstance(s, gast.Expr) else (s.value, "right")
            return self._named_first(s, holder, field, f"{name}_other")
        if pairs is None or not self._only_a_dict(name) \
                or not expr_varied(s.value, self.varied, self.scope):
            return None
        values = [self.ctx.namer.fresh(f"{name}_update") for _ in pairs]
        return [anno.like(T.assign(t, v), s) for t, (_, v) in zip(values, pairs)] + \
            [anno.like(T.assign(gast.Subscript(T.name(name), T.const(k), gast.Store()),
                                T.name(t)), s) for t, (k, _) in zip(values, pairs)]

    def _extend_as_appends(self, s):
        """``lst.extend(seq)`` of a list, ``seq`` a list or tuple whose length the code
        shows (``out.extend(layer.parameters())`` once the method is inlined): the appends
        of its items it makes. None for another statement."""
        call = s.value if isinstance(s, gast.Expr) else None
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
                and call.func.attr == "extend" and isinstance(call.func.value, gast.Name)
                and len(call.args) == 1 and not call.keywords
                and self._only_a_list(call.func.value.id)
                and expr_varied(call, self.varied, self.scope)):
            return None
        name, seq = call.func.value.id, call.args[0]
        if isinstance(seq, gast.Call) and self._user_call(seq):
            # (what the call returns is known once it is inlined: named until then)
            return self._named_first(s, call.args, 0, f"{name}_items")
        items = self.facts.items(seq)
        if items is None and self._pending_call(seq):
            self._wait()  # (bound to a call this round inlines)
        if items is None and not self.deciding:
            return [s]  # (maybe known once a later round inlines what it holds)
        if items is None:
            return None
        return [anno.like(gast.Expr(gast.Call(gast.Attribute(T.name(name), "append", gast.Load()),
                                              [item], [])), s) for item in items]

    def _named_first(self, s, holder, field, hint):
        """``s`` with the call at ``holder[field]`` (a list's index, or a node's field)
        bound to a new name before it: the name, once the call is inlined, shows what it
        returns."""
        call = holder[field] if isinstance(holder, list) else getattr(holder, field)
        bound = self.ctx.namer.fresh(hint)
        if isinstance(holder, list):
            holder[field] = T.name(bound)
        else:
            setattr(holder, field, T.name(bound))
        return [anno.like(T.assign(bound, call), s), s]

    def _only_a_list(self, name):
        """Is ``name`` bound only to new lists (displays, comprehensions, ``list(...)``)?"""
        values = self.facts.values.get(name, [])
        return bool(values) and len(values) == self.counts.get(name, 0) \
            and name not in self.facts.params and all(
                isinstance(v, (gast.List, gast.ListComp)) or isinstance(v, gast.Call)
                and self.scope.value(v.func) is list for v in values)

    def _only_a_dict(self, name):
        """Is ``name`` a dict wherever it is bound (each binding a dict display, a dict
        comprehension or ``dict(...)``), or a parameter passed one and never rebound?"""
        values = self.facts.values.get(name, [])
        updates = [v for v in values if isinstance(v, gast.BinOp) and isinstance(
            v.op, gast.BitOr) and isinstance(v.left, gast.Name) and v.left.id == name]
        made = [v for v in values if v not in updates]  # (``d |= other``: an update)
        if len(values) != self.counts.get(name, 0):
            return False
        if name in self.facts.params:
            ctx = self.ctx
            passed = ctx.param_values.get(name, ctx.arg_values.get(name))
            return not made and type(passed) is dict
        if any(isinstance(v, gast.Call) and self._user_call(v) for v in made):
            self._wait()  # (``p = helper(x)``: what it returns is known once inlined)
        return bool(made) and all(self._a_new_dict(v, name) for v in made)

    def _a_new_dict(self, value, name):
        """Does ``value``, bound to ``name``, make a dict: a display or comprehension,
        ``dict(...)``, a merge ``a | b`` of dicts, a copy of a dict (``copy.copy``,
        ``copy.deepcopy``, ``.copy()``; of ``name`` itself: it holds one), or a name
        whose keys the code shows?"""
        if isinstance(value, (gast.Dict, gast.DictComp)):
            return True
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.BitOr):
            return self._is_mapping(value.left) or self._is_mapping(value.right)
        if isinstance(value, gast.Call) and self.scope.value(value.func) is dict:
            return True
        copied = self.facts.copied(value)
        if copied is not None and (isinstance(copied, gast.Name) and copied.id == name
                                   or self._is_mapping(copied)):
            return True
        return self.facts.keys(value) is not None

    def _object_calls_hoisted(self, s):
        """``if np.mean(self.value) > 0:`` (or ``flag = ...``) where ``self.value`` is a
        property (or a method call) of an object built in the code (``objects.py``): the
        call, taking the object, bound to a name before the test, so that it is inlined
        (a boolean is never differentiated, and would run the call as written, on an
        object that does not exist). An ``and``/``or`` test is split part by part first;
        nothing is taken out of a conditional expression, which may not evaluate it."""
        held = set(self.ctx.objects) | set(self.ctx.object_aliases)
        if not held:
            return []
        out = []
        test = s.test if isinstance(s, gast.If) else s.value

        def takes_object(n):
            return isinstance(n, gast.Call) and any(isinstance(a, gast.Name) and a.id in held
                                                    for a in n.args)

        if isinstance(s, gast.If) and isinstance(test, gast.BoolOp) \
                and any(map(takes_object, T.walk(test))):
            # ``if a and obj.prop > 0:``: evaluated as Python does, part by part
            # (``cond = a; if cond: cond = obj.prop > 0``), each part then as below.
            cond = self.ctx.namer.fresh("test_value")
            first, *rest = test.values
            out.append(anno.like(T.assign(cond, first), s))
            for part in rest:
                go = T.name(cond) if isinstance(test.op, gast.And) else \
                    gast.UnaryOp(gast.Not(), T.name(cond))
                out.append(anno.like(gast.If(go, [anno.like(T.assign(cond, part), s)], []), s))
            s.test = T.name(cond)
            self.changed = True
            return out

        def visit(node):
            if isinstance(node, (gast.BoolOp, gast.IfExp, gast.Lambda)) or not isinstance(
                    node, gast.AST):
                return node
            if takes_object(node):
                name = self.ctx.namer.fresh("test_value")
                out.append(anno.like(T.assign(name, node), s))
                return T.name(name)
            for field, value in gast.iter_fields(node):
                if isinstance(value, list):
                    setattr(node, field, [visit(v) for v in value])
                elif isinstance(value, gast.AST):
                    setattr(node, field, visit(value))
            return node

        if isinstance(s, gast.If):
            s.test = visit(s.test)
        else:
            s.value = visit(s.value)
        if out:
            self.changed = True
        return out

    def _stopped(self, node):
        """``stop_gradient(e)`` of an expression reading what a tape watches."""
        return isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords \
            and not isinstance(node.args[0], (gast.Name, gast.Constant)) \
            and self.scope.value(node.func) is stop_gradient \
            and (self.ctx.variable_sources or self.ctx.watched_reads is not None) \
            and expr_varied(node.args[0], self.varied, self.scope)

    def _loop_stmt(self, s):
        if isinstance(s, gast.While):
            s.body = self.loop_body(s.body)
            return [s]
        return self.for_loop(s)

    def _check_static_unchanged(self, s):
        """Refuse ``acts.append(f)`` (or an item written) into a list or dict the code is
        compiled for as it was when compiling (loops over it unrolled, its items read):
        a helper the block calls changing it would leave the code reading the old items."""
        f = s.value.func if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) else None
        if isinstance(f, gast.Attribute) and f.attr in _MUTATORS and isinstance(f.value, gast.Name):
            name = f.value.id
        elif isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript) \
                and isinstance(s.targets[0].value, gast.Name):
            name = s.targets[0].value.id
        else:
            return
        value = self.scope.static.get(name, self.compiled_containers.get(name))
        if type(value) in (list, dict) and unroll.compiled_in(value):
            raise self.ctx.error(
                f"`{gast.unparse(s).strip()}` changes a container srcgrad compiled the code "
                "for as it was when the code started (its items are read when compiling)", s,
                "build a new list or dict instead (`acts = acts + [f]`), or change it "
                "before the GradientTape block")

    def _rebind_aliases(self, s, name):
        """After an in-place update of ``name``'s private object: its other names
        (``b = a`` before ``a += v``; ``ir/private.py``) bound to the result, as NumPy's
        update reaches them. ``a += v`` updates an array (or a list) in place but binds a
        new number: there, only if the other name's value is one of those (it still is
        the object before the update: the compiled ``a += v`` binds a new one)."""
        others = self.private.get(id(s), ())
        return [anno.like(gast.If(T.expr("_sg.updated_in_place(o)", o=o),
                                  [T.assign(o, T.name(name))], []), s) for o in others]

    def _updated_as_written(self, s, base):
        """``a -= d`` (desugared to ``a = a - d``) that no gradient flows through, run as
        Python runs it: into ``a``'s array, which its views and other names share
        (``g = b.reshape(-1); g -= d`` changes ``b``). Where the backward pass may
        read that array as it was before (``store_harmless``), ``a`` must hold a
        number, which the update rebinds (``t += h`` in a loop): checked when it runs.

        Decided once nothing else changes: a loop unrolled or a call inlined in this
        round may make the value differentiable (``args.append(w)`` of a Variable,
        then ``c += np.sum(args[0])``), which the next round sees."""
        if not self.deciding:
            self.deferred = True
            return [s]
        o = anno.origin(s)
        if isinstance(base, gast.Name) and not self.writes.store_harmless(s, base):
            guard = T.stmt("_sg.check_not_array(x, n, w, op)", x=base.id, n=T.const(base.id),
                           w=T.const(o.short() if o else "?"),
                           op=T.const(OP_SYMBOLS.get(type(s.value.op), "+")))
            s.sg_inplace = False
            return [self._mark(guard, "opaque"), anno.set_kind(s, "opaque")]
        value = s.value
        s.value = gast.copy_location(T.expr("_sg.update(a, op, b)", a=value.left, b=value.right,
                                            op=T.const(OP_SYMBOLS[type(value.op)] + "=")), value)
        s.sg_inplace = False
        return [anno.set_kind(s, "opaque")]

    def assign(self, s):
        if len(s.targets) != 1:
            raise self.ctx.error("chained assignment (a = b = ...) is not supported", s,
                                 "assign each name separately")
        if isinstance(s.value, (gast.Compare, gast.BoolOp, gast.UnaryOp)):
            hoisted = self._object_calls_hoisted(s)  # (a boolean: never differentiated)
            if hoisted:
                return self.block(hoisted + [s])
        target, value = s.targets[0], s.value
        if isinstance(target, gast.Attribute) and isinstance(self.scope.value(target.value), type):
            # (``C.k = 7.0``, ``cls.k = v`` in a classmethod: the compiled code reads a
            # class's attributes as they are when it compiles, through every instance)
            cls = self.scope.value(target.value)
            raise self.ctx.error(
                f"assigning `{cls.__qualname__}.{target.attr}`, an attribute of a class, in "
                "differentiated code is not supported: srcgrad reads a class's attributes "
                "when it compiles", s,
                "set it before calling the differentiated function, or keep the value in "
                "an object's attribute (self.k = ...) or a variable")
        made = self._functions_made(s)
        if made is not None:
            return made
        if (isinstance(target, gast.Subscript) or getattr(s, "sg_inplace", False)) \
                and self._waits_for_objects():
            return [s]
        varied_value = expr_varied(value, self.varied, self.scope) \
            and not self._keys_of_a_dict(value)
        if varied_value and getattr(s, "sg_bitwise", False) and not self.deciding:
            self.deferred = True  # (``_split_binop``: decided when nothing else changes)
            return [s]
        if not varied_value and self._record_of_a_varied_name(target, value):
            out = []
            self.changed = True
            calls.record(self, value, self.scope.value(value.func), out, target.id, target.id)
            return out
        if not varied_value and isinstance(target, gast.Name) and getattr(value, "sg_inline", False):
            # (``m = make_model(w)`` whose object's method a differentiable value reaches:
            # calls._inline_the_maker)
            out = []
            self.changed = True
            calls.call(self, value, out, target.id)
            return out
        if isinstance(target, gast.Name) and self._stopped(value):
            out = []
            self.expr(value, out, target.id)
            self.changed = True
            return out
        if isinstance(target, gast.Name):
            if not varied_value:
                if getattr(s, "sg_inplace", False):
                    return self._updated_as_written(s, target)
                if isinstance(value, (gast.List, gast.Tuple, gast.ListComp)):
                    self.ctx.containers.add(target.id)
                elif isinstance(value, gast.Call) and value.args:
                    calls.note_container(self, target.id, self.scope.value(value.func),
                                         value.args[0])
                return [anno.set_kind(s, "opaque")]
            # A deferred update is decided by the flow analysis alone: the flow-insensitive
            # one takes a view copied once (``b_item = a[0]; b = b_item``, how unpacking
            # is normalized) for moved, which only user code it sees in the first pass
            # makes safe.
            inplace = getattr(s, "sg_inplace", False) and id(s) not in self.private and (
                target.id in self.shared or getattr(s, "sg_deferred", False))
            if inplace and not self.deciding:
                self.deferred = s.sg_deferred = True
                if isinstance(value, gast.BinOp) and not _is_constant(value.right) \
                        and not isinstance(value.right, gast.Name):
                    # ``x += dt * rhs(x)``: the operand computed first, as Python does, so
                    # that the calls in it are inlined before the update is decided (what
                    # the helper does with ``x`` may leave it private).
                    op = OP_NAMES.get(type(value.op), "op")
                    operand = self.ctx.namer.fresh(f"{target.id}_{op}")
                    first = anno.like(T.assign(operand, value.right), s)
                    value.right = T.name(operand)
                    self.changed = True
                    return [first, s]
                return [s]
            if inplace and views.array_view(self, target.id):
                # ``w *= 3`` of a view ``w = v[:, 0]``: a write of all of ``w``, which the
                # next round writes into ``v`` (views.py).
                self.changed = True
                whole = anno.like(T.assign(gast.Subscript(T.name(target.id), T.const(Ellipsis),
                                                          gast.Store()), value), s)
                whole.sg_inplace = True
                whole.sg_call = getattr(s, "sg_call", None) or \
                    f"{self._spelling(target, s)} {OP_SYMBOLS.get(type(value.op), '+')}= ..."
                return [whole]
            out = []
            self.changed = True
            o = anno.origin(s)
            if inplace:
                # ``x += v`` is rebinding only if x is not an array: check at run time.
                guard = T.stmt("_sg.check_not_array(x, n, w, op)", x=target.id,
                               n=T.const(self.ctx.in_user_names(target.id)),
                               w=T.const(o.short() if o else "?"),
                               op=T.const(OP_SYMBOLS.get(type(value.op), "+")))
                out.append(self._mark(guard, "opaque"))
                s.sg_inplace = False
            elif getattr(s, "sg_inplace", False):
                # A private array updated as ``x = x + v``: exact, except that NumPy's
                # ``x += v`` keeps a 0-d array an array where ``x + v`` gives a number
                # (its other names then no longer see the next update): checked.
                guard = T.stmt("_sg.check_not_0d(x, n, w, op)", x=target.id,
                               n=T.const(self.ctx.in_user_names(target.id)),
                               w=T.const(o.short() if o else "?"),
                               op=T.const(OP_SYMBOLS.get(type(value.op), "+")))
                out.append(self._mark(guard, "opaque"))
            self.expr(value, out, target.id)
            return out + self._rebind_aliases(s, target.id)
        if isinstance(target, (gast.Tuple, gast.List)):
            if not varied_value and not self._holds_sources(value):
                return [anno.set_kind(s, "opaque")]
            self.changed = True
            out = []
            self.unpack(target, value, out)
            return out
        if isinstance(target, gast.Subscript):
            base = target.value
            written = base
            while isinstance(written, gast.Subscript):  # (``K[i][j] = v`` writes into ``K``)
                written = written.value
            base_varied = isinstance(written, gast.Name) and written.id in self.varied
            if not (varied_value or base_varied):
                if getattr(s, "sg_inplace", False):
                    self.writes.check_store(s, base, lambda message, remedy:
                                            self.ctx.error(message, s, remedy))
                    return self._updated_as_written(s, base)
                self.writes.check_store(s, base, lambda message, remedy:
                                        self.ctx.error(message, s, remedy))
                return [anno.set_kind(s, "opaque")]
            merged = self._through_a_row(s, target) if not isinstance(base, gast.Name) else None
            if merged is not None:
                self.changed = True
                return merged
            if isinstance(base, gast.Subscript) and isinstance(written, gast.Name) \
                    and written.id not in self.ctx.containers \
                    and views.view_base(base, self.scope) == written.id \
                    and not any(isinstance(n, gast.Constant) and isinstance(n.value, str)
                                for n in T.walk(base)):  # (``d["w"][0]``: a key, refused)
                # ``M[:, 1][2] = v``: the write into the view ``M[:, 1]``, named, which the
                # next rounds write into ``M`` (views.py; refused when it runs where the
                # view is a copy, ``M[[0, 1]][0]``, as Python writes into the copy alone).
                self.changed = True
                view = self.ctx.namer.fresh(f"{written.id}_view")
                self.spelled[view] = self._spelling(base, s)  # (named so in messages)
                bind = anno.like(T.assign(view, base), s)
                store = anno.like(T.assign(gast.Subscript(T.name(view), target.slice,
                                                          gast.Store()), value), s)
                store.sg_inplace = getattr(s, "sg_inplace", False)
                store.sg_call = getattr(s, "sg_call", None) or f"{self._spelling(target, s)} = ..."
                return [bind, store]
            if isinstance(base, gast.Subscript) and isinstance(written, gast.Name):
                name = self._spelling(written, s)
                raise self.ctx.error(
                    f"`{self._spelling(target, s)} = ...` writes through "
                    f"`{self._spelling(base, s)}`: srcgrad merges a chained write into one "
                    f"write into `{name}` only where the indices before the last are integers "
                    "(`K[i][j] = v` is `K[i, j] = v`) or make a view (`M[:, 1][2] = v`), not "
                    "where they hold a key or a call",
                    s, f"index `{name}` at once, with one subscript (`{name}[i, j] = v`)")
            if not isinstance(base, gast.Name):
                raise self.ctx.error("writing a differentiable value into "
                                     f"`{gast.unparse(base).strip()}[...]` is not supported", s,
                                     "build the array in a local variable first")
            if id(s) not in self.private and (base.id in self.shared
                                              or getattr(s, "sg_deferred", False)):
                if self.view_writes:
                    # A write into a view is written into the array it views, one a round
                    # (views.py); until all are, what else may be shared is not known.
                    through = views.through_view(self, s, target) \
                        if self.deciding and not self.views_rewritten else None
                    if through is not None:
                        self.changed = self.views_rewritten = True
                        return through
                    self.deferred = True
                    return [s]
                if not self.deciding:
                    self.deferred = s.sg_deferred = True
                    return [s]
                name = self._spelling(base, s)
                if _derivative_code(self.ctx.src.filename):
                    # (Differentiating a first derivative's code: the write is the user's,
                    # the sharing the first derivative's, which a copy does not undo.)
                    o = anno.origin(s)
                    if o is not None and o.text and \
                            not re.search(rf"\b{re.escape(name)}\b", o.text):
                        # (``name`` is the derivative's, an argument bound to the user's
                        # parameter, ``a0``: the user's line names the write.)
                        what, built = f"`{o.text.strip()}` writes into an array that", "the array"
                    else:
                        what, built = f"writing into `{name}[...]`, whose array", f"`{name}`"
                    error = self.ctx.error(
                        f"{what} may be shared with another variable in a first derivative's "
                        "code, and is not differentiated again", s,
                        f"for second derivatives, write into a copy the code makes "
                        f"(`a = x.copy()`: writes into its own arrays are differentiated "
                        f"again), or build {built} without writing into it "
                        "(np.concatenate, np.where, or a list then np.stack)")
                    error.sg_in_derivative = True  # (sg.jvp names forward mode's instead)
                    raise error
                call = getattr(s, "sg_call", None)  # a call written as this store
                raise self.ctx.error(
                    f"{f'`{call}`, ' if call else ''}writing into `{name}[...]`, whose array "
                    "may be shared with another variable (a view, a copy of the name, or an "
                    "item of a container), is not supported", s,
                    f"make a private copy first: {name} = {name}.copy()")
            self.changed = True
            out = []
            index = self.index(target.slice, out)
            if getattr(s, "sg_inplace", False):
                # ``a[i] += v`` of an array is ``a[i] = a[i] + v``; of a list holding an
                # array, it updates that array, which others may hold: checked when it runs.
                o = anno.origin(s)
                out.append(self._mark(T.stmt("_sg.check_item_update(a, i, n, w)", a=base.id,
                                             i=_index_expr(index),
                                             n=T.const(self._spelling(base, s)),
                                             w=T.const(o.short() if o else "?")), "opaque"))
            atom = self.atom(value, out, hint=base.id + "_item")
            if isinstance(index, gast.Slice) and base.id in self.ctx.containers \
                    and base.id not in self.ctx.dicts:
                o = anno.origin(s)
                out.append(self._mark(T.stmt("_sg.check_slice_length(a, i, v, n, w)", a=base.id,
                                             i=_index_expr(index), v=atom,
                                             n=T.const(self._spelling(base, s)),
                                             w=T.const(o.short() if o else "?")), "opaque"))
            node = T.assign(gast.Subscript(T.name(base.id), index, gast.Store()), atom)
            # A dict's key known only when running may be one the write adds (record.py);
            # so may a global's (``CACHE[name] = out`` into a module's dict).
            by_key = base.id in self.ctx.dicts or isinstance(self.facts.bound.get(base.id),
                                                             gast.Dict) \
                or base.id not in self.scope.locals \
                or type(self.ctx.arg_values.get(base.id, self.ctx.param_values.get(base.id))) \
                is dict  # (a dict argument: ``d[k] = ...`` may add the key)
            if base.id not in self.scope.locals and expr_varied(value, self.varied, self.scope):
                # (what user code it calls after may read it back: inlined, differentiated)
                self.changed |= self.ctx.store_out(self.scope.value(base), base.id)
            if base.id not in self.scope.locals and self.ctx.tape_region:
                raise self.ctx.error(
                    f"`{self._spelling(base, s)}[...] = ...` writes a differentiable value into "
                    "a module's container in a GradientTape block: the tape's backward code "
                    "takes its writes back, which would change what the block left there", s,
                    "keep the values in a variable of the block (a dict made in it), or "
                    "compute the gradient with sg.grad")
            out.append(self._mark(node, "setitem", by_key=by_key))
            return out
        if isinstance(target, gast.Attribute) and hasattr(np.ndarray, target.attr) \
                and self._an_array(target.value) \
                and expr_varied(target.value, self.varied, self.scope):
            # ``w.real = c``, ``y.flat = c``, ``y.shape = (2, 2)``: a write into the array
            raise self.ctx.error(
                f"assigning `{gast.unparse(target).strip()}` of a differentiable array (a "
                "write into it) is not supported", s,
                "bind a new array: w = c + 1j * w.imag, y = np.full_like(y, c), "
                "y = y.reshape(shape)")
        if isinstance(target, gast.Attribute):
            mirrored = attributes.store(self, s, target, varied_value)
            if mirrored is not None:
                return mirrored
            if varied_value and not self.deciding:
                # (The object may be known once calls are inlined: ``first, second =
                # model.layers`` unpacked, a helper's parameter.)
                self.deferred = True
                return [s]
            if varied_value:
                why, remedy = attributes.why_not(self, target)
                raise self.ctx.error(
                    f"assigning a differentiable value to attribute `{self._spelling(target, s)}`"
                    f"{why} is not supported", s, remedy)
            return [anno.set_kind(s, "opaque")]
        raise self.ctx.error("unsupported assignment target", s)

    def _an_array_argument(self, node):
        """Is ``node`` a parameter passed an array (a slice of it is one)?"""
        if not isinstance(node, gast.Name):
            return False
        value = self.ctx.arg_values.get(node.id, self.ctx.param_values.get(node.id))
        return isinstance(value, np.ndarray) and node.id not in self.counts

    def _an_array(self, node):
        """Is ``node`` an array (known so, or a variable the code computed), not an object
        of the user's that may name an attribute as an array's (``self.shape = ...``)?"""
        value = self.scope.value(node)
        if value is not MISSING:
            return isinstance(value, np.ndarray)
        return isinstance(node, gast.Name) and node.id not in self.ctx.objects \
            and node.id not in self.ctx.records and node.id not in self.scope.mirrored_names

    def _through_a_row(self, s, target):
        """``K[i][j] = v`` (``T[i][j][k] = v``, ``K[i][j] += v``) as ``K[i, j] = v``: the
        same write where ``K`` is an array and ``i`` an integer (``K[i]`` is then a view of
        its row), checked when it runs (a list's item, or a slice or an index array for
        ``i``, is another write: ``K[[0, 1]][0] = v`` writes into a copy). The last index
        ``j`` is checked too where it may be a tuple (``T[i][(1, 2)]`` is ``T[i, 1, 2]``,
        not ``T[i, (1, 2)]``), and may be an index array only alone (``K[i][:, idx]``
        orders its axes otherwise than ``K[i, :, idx]``). An index computed
        (``K[i + 1][j]``) is bound to a name first, as it is checked and then used. The
        store is decided in the next round, over the body it is then part of. None for
        other targets (refused as before)."""
        parts, root = [], target.value
        while isinstance(root, gast.Subscript):
            parts.insert(0, root.slice)
            root = root.value
        rows = [e for p in parts for e in (p.elts if isinstance(p, gast.Tuple) else [p])]
        last = target.slice.elts if isinstance(target.slice, gast.Tuple) else [target.slice]
        if not (isinstance(root, gast.Name) and parts) \
                or any(isinstance(e, (gast.Slice, gast.Starred)) or _literal_index(e)
                       and _int_constant(e) is None for e in rows) \
                or any(_literal_index(e) and isinstance(getattr(e, "value", None), bool)
                       for e in last) or any(isinstance(e, gast.Starred) for e in last):
            return None
        out = []

        def named(e, hint):  # (``i`` as it is, ``i + 1`` bound to a name first)
            if isinstance(e, gast.Name) or _literal_index(e):
                return copy.deepcopy(e)
            fresh = self.ctx.namer.fresh(hint)
            out.append(anno.like(T.assign(fresh, copy.deepcopy(e)), s))
            return T.name(fresh)

        rows = [named(e, f"{root.id}_row") for e in rows]
        checked = list(rows)  # (constants too: named in the message)
        index = {}
        if len(last) == 1 and not _literal_index(last[0]):
            last = [named(last[0], f"{root.id}_index")]
            index = {"index": last[0]}
        else:
            last = [named(e, f"{root.id}_index") for e in last]
            checked += [e for e in last if not _literal_index(e)]  # (integers only)
        o = anno.origin(s)
        check = T.stmt("_sg.check_row_index(a, written, where)", a=root.id,
                       written=T.const(self.ctx.in_user_names(gast.unparse(target).strip())),
                       where=T.const(o.short() if o else "?"))
        check.value.args += [copy.deepcopy(e) for e in checked]
        check.value.keywords += [gast.keyword(k, copy.deepcopy(v)) for k, v in index.items()]
        value = s.value
        inplace = getattr(s, "sg_inplace", False)
        if inplace and isinstance(value, gast.BinOp) \
                and gast.unparse(value.left).strip() == gast.unparse(target).strip():
            # ``K[i][j] += v``: read as ``K[i, j]`` too (the row read is not kept)
            value = gast.BinOp(gast.Subscript(T.name(root.id), gast.Tuple(
                copy.deepcopy(rows + last), gast.Load()), gast.Load()), value.op, value.right)
        store = T.assign(gast.Subscript(T.name(root.id), gast.Tuple(rows + last, gast.Load()),
                                        gast.Store()), value)
        store.sg_inplace = inplace
        return out + [self._mark(T.fix_ctx(check), "opaque"), anno.like(T.fix_ctx(store), s)]

    def _waits_for_objects(self):
        """Does a write wait for the methods of objects (objects.py) still to be inlined?
        One may make another name for the array written (``self.b = self.a``), which
        decides whether the write is allowed; it is decided once they are inlined."""
        if self.objects_pending and not self.deciding:
            self.deferred = True
            return True
        return False

    def _functions_made(self, s):
        """``g = make(a)``, ``fs = [make(a), make(b)]``, ``fs = [make(w) for w in (a, b)]``
        of a user function returning a closure (``functions.py``): each call inlined on
        its own, so that ``g`` and the items of ``fs`` are functions known when compiling.
        None for other statements."""
        target, value = s.targets[0], s.value
        if not isinstance(target, gast.Name):
            return None
        display = functions.made_display(self, value)
        if display is not None:
            value = display
        if isinstance(value, (gast.List, gast.Tuple)) \
                and any(functions.makes_function(self, e) for e in value.elts):
            self.changed = True
            binds, elts = [], []
            for e in value.elts:
                if functions.makes_function(self, e):
                    name = self.ctx.namer.fresh(f"{target.id}_item")
                    binds.append(anno.like(T.assign(name, e), s))
                    e = T.name(name)
                elts.append(e)
            whole = anno.like(T.assign(target.id, type(value)(elts, gast.Load())), s)
            return self.block(binds + [whole])
        if functions.makes_function(self, value) and self.loop_depth == 0 \
                and not expr_varied(value, self.varied, self.scope):
            out = []
            calls.call(self, value, out, target.id)
            return out
        return None

    def _keys_of_a_dict(self, value):
        """Is ``value`` ``list(d)``, ``tuple(d)``, ``sorted(d)`` (or of ``d.keys()``) of a
        dict whose keys the code shows? Keys carry no gradient, however ``d``'s values do."""
        if not (isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords
                and self.scope.value(value.func) in (builtins.list, builtins.tuple,
                                                     builtins.sorted)):
            return False
        d = value.args[0]
        if isinstance(d, gast.Call) and isinstance(d.func, gast.Attribute) \
                and d.func.attr == "keys" and not d.args and not d.keywords:
            d = d.func.value
        return isinstance(d, gast.Name) and self.facts.keys(d) is not None

    def _spelling(self, node, stmt):
        """``node`` as the user wrote it (inlined code has renamed variables)."""
        text = gast.unparse(node).strip()
        if isinstance(node, gast.Name) and node.id in self.spelled:
            return self.spelled[node.id]
        o = anno.origin(stmt)
        if o is None or text in o.text:
            return text
        left = o.text.split("=")[0].strip()
        if isinstance(node, gast.Attribute) and left.endswith("." + node.attr):
            return left
        if isinstance(node, gast.Name):
            # An inlined callee's ``x`` is renamed ``callee_x``: find the suffix the user wrote.
            parts = node.id.split("_")
            for k in range(1, len(parts)):
                name = "_".join(parts[k:])
                # (A name, not the ``0`` of ``args_0`` found in the line's ``1.0``.)
                if name.isidentifier() and re.search(rf"\b{re.escape(name)}\b", o.text):
                    return name
        return text

    def unpack(self, target, value, out):
        if isinstance(value, gast.Call) and any(self.scope.value(value.func) is f
                                                for f in (zip, map, reversed, enumerate)):
            # ``xs, ys = zip(*pairs)``: the iterator's items, as ``list(...)`` has them.
            value = T.expr("list(v)", v=value)
        if isinstance(value, gast.Name) and value.id in self.ctx.dicts:
            # ``k, j = d`` of a dict built this round (dict_keys.py does the rest): its keys
            value = dict_keys.keys_if_dict(self, value)
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts) \
                and not any(isinstance(e, gast.Starred) for e in value.elts):
            atoms = [self.atom(e, out, hint=_hint(t)) for e, t in zip(value.elts, target.elts)]
            # Evaluate every element before binding any name: ``a, b = b, a``.
            atoms = [self._pin(a, out, _hint(t)) for a, t in zip(atoms, target.elts)]
            out += self._views_of_written(target, value, atoms)
        elif self._holds_sources(value):
            # ``W, b = layer`` of a tuple of Variables known when compiling: each item
            # read as itself (``layer[0]``), a read of the Variable a tape watches.
            atoms = [gast.Subscript(copy.deepcopy(value), T.const(i), gast.Load())
                     for i in range(len(target.elts))]
        else:
            if not self.deciding and self._may_become_a_dict(value):
                # (``a, b = d`` of a dict known as one in a later round, once the call or
                # merge making it is: its keys then, dict_keys.py. By position, its values.)
                raise calls.Deferred
            start = len(out)
            whole = self.atom(value, out, hint=_hint(target))
            if not self._tuple_of(whole, len(target.elts), out[start:]):
                o = anno.origin(self.cur)
                out.append(self._mark(T.stmt("_sg.check_unpacked(v, n, w)", v=T.clone(whole),
                                             n=T.const(len(target.elts)),
                                             w=T.const(o.short() if o else "?")), "opaque"))
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

    def _static_truth(self, test):
        """The truth of an ``if`` test known when compiling (a flag, ``x is None``,
        ``mode == "train"``, ``not``/``and``/``or`` of those), or None."""
        if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
            inner = self._static_truth(test.operand)
            return None if inner is None else not inner
        arg = static_argument(test, self.known_constants())
        if arg is not MISSING:
            return bool(arg)
        tested = calls.type_test_of_variable(self, test)
        if tested is not None:
            return tested
        tested = self._type_test_of_container(test)
        if tested is not None:
            return tested
        if isinstance(test, gast.BoolOp):
            # Decided by the first part that decides it, as Python evaluates it
            # (``depth <= 0 or abs(err) < tol``: the rest is not run).
            settles = isinstance(test.op, gast.Or)
            for v in test.values:
                part = self._static_truth(v)
                if part is None:
                    return None
                if part == settles:
                    return settles
            return not settles
        if isinstance(test, gast.Compare) and len(test.ops) == 1 and all(
                isinstance(n, gast.Constant) for n in (test.left, test.comparators[0])) \
                and type(test.ops[0]) in _COMPARE:  # literals (a comprehension's keys)
            try:
                return bool(_COMPARE[type(test.ops[0])](test.left.value,
                                                        test.comparators[0].value))
            except TypeError:
                return None
        if isinstance(test, gast.Compare) and len(test.ops) == 1:
            known = self.known_constants()  # (``y is None`` of a parameter left to None)
            left, right = (known[n.id] if isinstance(n, gast.Name) and n.id in known
                           else self._static_value(n) for n in (test.left, test.comparators[0]))
            if left is MISSING or right is MISSING:
                return None
            op = type(test.ops[0])
            if op in (gast.Is, gast.IsNot) and (left is None or right is None):
                return (left is right) == (op is gast.Is)
            if op in (gast.Eq, gast.NotEq) and all(
                    type(v) in _PLAIN_CONSTANTS for v in (left, right)):
                return (left == right) == (op is gast.Eq)
            return None
        if isinstance(test, gast.Call) and len(test.args) == 2 and not test.keywords \
                and self.scope.value(test.func) is hasattr \
                and isinstance(self._static_value(test.args[0]), types.ModuleType) \
                and isinstance(test.args[1], gast.Constant) and type(test.args[1].value) is str:
            # ``np.trapezoid(y) if hasattr(np, "trapezoid") else np.trapz(y)``: the branch
            # for this NumPy alone (the other calls a function that does not exist here)
            return hasattr(self._static_value(test.args[0]), test.args[1].value)
        value = self._static_value(test)
        if value is MISSING:
            return None
        if type(value) in _PLAIN_CONSTANTS:
            return bool(value)
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc, type)):
            return True  # a function or class set (``if self.activation:``)
        return None

    def _type_test_of_container(self, test):
        """``isinstance(p, dict)`` of a name the code shows holds a list, tuple or dict
        (``Facts.container_type``: a parameter tree, a display bound once): known when
        compiling, so that the branch for the other kinds of container is not compiled
        (its reads may mean nothing for this one: ``p[k]`` over a tuple's items); None
        otherwise."""
        if not (isinstance(test, gast.Call) and len(test.args) == 2 and not test.keywords
                and isinstance(test.args[0], gast.Name)
                and self.scope.value(test.func) is isinstance):
            return None
        held = self.facts.container_type(test.args[0])
        classes = test.args[1].elts if isinstance(test.args[1], gast.Tuple) else [test.args[1]]
        cls = tuple(self._static_value(c) for c in classes)
        if held is None or MISSING in cls:
            return None
        try:
            return issubclass(held, cls)
        except TypeError:  # (not a class or tuple of classes: as Python raises, when run)
            return None

    def _static_value(self, node):
        """A constant, or the value of a name/attribute/item known when compiling (never
        a differentiated one), or MISSING."""
        if isinstance(node, gast.Constant):
            return node.value
        if not isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)) \
                or expr_varied(node, self.varied, self.scope) or self._set_by_the_code(node):
            return MISSING
        return self.scope.value(node)

    def _set_by_the_code(self, node):
        """Is ``node`` an attribute of an object that the code, or a method of the object's
        class, sets (``self.prev = err``, ``self.contact = True``)? Its value when
        compiling is then not the one every read of it gives when running."""
        if not isinstance(node, gast.Attribute):
            return False
        if node.attr in self.attributes_stored:
            return True
        base = self.scope.value(node.value)
        return base is not MISSING and not isinstance(base, (types.ModuleType, type)) \
            and _is_static_object(base) and node.attr in attributes.set_in_methods(type(base))

    def _holds_sources(self, node):
        """Is ``node`` a list or tuple (a namedtuple too) known when compiling that holds a
        Variable a tape watches (at any depth), or a value it watches from the block's
        start (``pair = (W, x)`` before the block, ``a, b = pair`` in it: hunt 6)?"""
        if not (self.ctx.variable_sources or self.ctx.watched_reads is not None) or \
                not isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)):
            return False
        value = self.scope.value(node)
        return isinstance(value, (list, tuple)) and self._of_sources(value, node)

    def _views_of_written(self, target, value, atoms):
        """Run-time checks that no item read is a view of an array the targets write into.

        ``a[0], a[1] = a[1], a[0]`` swaps the items of a 1-D array, but on a
        2-D one ``a[0]`` is a view that the first write changes.
        """
        written = {t.value.id for t in target.elts
                   if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name)}
        checks = []
        for e, a in zip(value.elts, atoms):
            if not isinstance(a, gast.Name):
                continue
            for base in sorted(written & {n.id for n in T.walk(e) if isinstance(n, gast.Name)}):
                o = anno.origin(self.cur)
                check = T.stmt("_sg.check_not_view(v, a, n, w)", v=a.id, a=base,
                               n=T.const(gast.unparse(e).strip()), w=T.const(o.short() if o else "?"))
                checks.append(self._mark(check, "opaque"))
        return checks

    def _pin(self, atom, out, hint):
        if isinstance(atom, gast.Name):
            tmp = self.ctx.namer.fresh(hint)
            out.append(self._mark(T.assign(tmp, atom), "copy"))
            if atom.id in self.varied:
                self.varied.add(tmp)
            self._same_kind(atom.id, tmp)
            return T.name(tmp)
        return atom

    def _same_kind(self, name, copy_name):
        """``copy_name = name``: a container, dict or record as ``name`` is."""
        if name in self.ctx.containers:
            self.ctx.containers.add(copy_name)
        if name in self.ctx.dicts:
            self.ctx.dicts.add(copy_name)
        for kinds in (self.ctx.records, self.ctx.record_items, self.ctx.dict_keys,
                      self.ctx.record_fields):
            if name in kinds:
                kinds[copy_name] = kinds[name]

    def expr_stmt(self, s):
        call = s.value
        f = getattr(call, "func", None)
        # (An append of a constant to a list holding differentiated values, ``stack.append
        # (1.0)`` beside ``stack.append(p)``: its item is popped off the list's adjoint too,
        # which otherwise gives the next pop this item's adjoint.)
        appended = isinstance(f, gast.Attribute) and f.attr == "append" \
            and isinstance(f.value, gast.Name) and f.value.id in self.varied
        if not expr_varied(call, self.varied, self.scope) and not appended:
            return [anno.set_kind(s, "opaque")]
        f = call.func
        if isinstance(f, gast.Attribute) and f.attr in _MUTATORS and self._waits_for_objects():
            return [s]
        if isinstance(f, gast.Attribute) and f.attr == "append" and isinstance(f.value, gast.Name) \
                and len(call.args) == 1 and not call.keywords:
            self.changed = True
            if f.value.id not in self.scope.locals:
                self.ctx.store_out(self.scope.value(f.value), f.value.id)  # (``setitem``: why)
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
            cls = self.ctx.records.get(f.value.id)
            if cls is not None and dataclasses.is_dataclass(cls):
                # (a dataclass object the code changes is kept as its attributes, unless
                # it is also used as a value: objects.py, dataclass_objects.py)
                who = self._spelling(f.value, s)
                raise self.ctx.error(
                    f"`{gast.unparse(f).strip()}()` may change the `{cls.__name__}` object "
                    f"`{who}`, which the code also uses as a value (returns it, keeps it in a "
                    "list or dict, passes it to code srcgrad does not compile, or binds its "
                    "name twice): srcgrad compiles a dataclass object the code changes into "
                    "its attributes, which only its methods and attribute reads and writes "
                    "may use", s, "return or keep its fields instead of the object, or "
                    f"build a new one (dataclasses.replace({who}, ...)) instead of changing it")
            raise self.ctx.error(f"calling `{gast.unparse(f).strip()}()` on a differentiable value "
                                 "is not supported", s)
        fn = self.scope.value(call.func)
        if isinstance(fn, types.MethodType) and isinstance(fn.__self__, Variable) \
                and fn.__name__ in ("assign", "assign_add", "assign_sub"):
            # ``moving_mean.assign(0.9 * moving_mean + 0.1 * mu)`` (a batch norm's statistics
            # in training): a Variable's new value, no gradient through it, as TensorFlow's
            # assign; its reads after it are of the Variable again.
            return [anno.set_kind(s, "opaque")]
        self.changed = True
        out = []
        calls.call(self, call, out, None)
        if out and anno.kind(out[-1]) == "opaque" and getattr(out[-1], "sg_norule", None):
            # Called for its effect on differentiable values, through code srcgrad
            # cannot see (np.add.at, np.copyto, np.fill_diagonal, setattr, ...).
            raise self.ctx.error(
                f"`{gast.unparse(call.func).strip()}(...)` is called for its effect on "
                "differentiable values, which srcgrad cannot model", s,
                "assign the new value instead (a = a + ..., a[i] = ..., np.where(...)), or "
                "make the call outside the differentiated code")
        return out

    def for_loop(self, s):
        # Over objects, or a container of Variables or watched values: unrolled, so that
        # what each iteration reads is known (before ``_dict_loop``'s loop over the keys).
        unrolled = unroll.loop(self, s)
        if unrolled is not None:
            return unrolled
        if self.scope.iterates_sources(s.iter):
            # Not unrolled: which item each trip reads is not known when compiling.
            raise self.ctx.error(
                f"a loop over `{gast.unparse(s.iter).strip()}`, which holds values the "
                "GradientTape watches, that srcgrad cannot unroll (a `break`, more than "
                f"{UNROLL_MAX} items, or a container the block changes in place)", s,
                "loop without `break` (skip trips with `continue` or an `if`), build the "
                "container before the block, or read the values by a constant index")
        over_dict = self._dict_loop(s)
        if over_dict is not None:
            return over_dict
        if not expr_varied(s.iter, self.varied, self.scope):
            s.body = self.loop_body(s.body)
            return [s]
        if self.changed and functions.pending(self, s.iter) and calls.waits(self.cur):
            raise calls.NotYet  # a loop over functions made in this round: unrolled in the next
        # Iterating over a differentiable sequence: index it, so each item's
        # adjoint lands in its slot of the sequence's adjoint.
        self.changed = True
        out = []
        target = s.target.id
        index = self.ctx.namer.fresh(target + "_index")
        # Python evaluates the iterable once: a name the body rebinds
        # (``for p in a: a = a + p``) is read through a copy bound before the loop.
        # (``a += p`` updates the array iterated over, in place: read it again.)
        rebound = {n for st in walk_stmts(s.body) if not getattr(st, "sg_inplace", False)
                   for n in bound_names(st)}
        lengths, item = self._indexed(s.iter, T.name(index), out, target + "_seq", rebound)
        length = lengths[0] if len(lengths) == 1 else gast.Call(T.name("min"), lengths, [])
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
        # (the lists whose length it took: ``_check_iterated_lengths``)
        loop.sg_iterated = frozenset(n.id for n in T.walk(s.iter) if isinstance(n, gast.Name))
        # The body is normalized in the next round, once variedness has been
        # recomputed for the new bindings (the index is not varied).
        return out + [loop]

    def _first_item(self, key):
        """Is ``key`` (a sort key) the first item of what it is given: ``operator.
        itemgetter(0)`` or ``lambda kv: kv[0]`` (items sorted by their keys)?"""
        if isinstance(key, gast.Call) and self.scope.value(key.func) is operator.itemgetter:
            return len(key.args) == 1 and not key.keywords \
                and isinstance(key.args[0], gast.Constant) and key.args[0].value == 0
        if isinstance(key, gast.Name):  # (lambdas are hoisted to defs: passes/lambdas.py)
            fn = self.scope.value(key)
            key = fn if isinstance(fn, gast.FunctionDef) else None
        if not isinstance(key, gast.FunctionDef) or len(key.body) != 1:
            return False
        a, ret = key.args, key.body[0]
        if len(a.args) != 1 or a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg \
                or not isinstance(ret, gast.Return):
            return False
        v = ret.value
        return isinstance(v, gast.Subscript) and isinstance(v.value, gast.Name) \
            and v.value.id == a.args[0].id and isinstance(v.slice, gast.Constant) \
            and v.slice.value == 0

    def _dict_loop(self, s):
        """``for k in d``, ``for v in d.values()``, ``for k, v in d.items()`` over a dict of
        differentiable values, as a loop over its keys (a list carrying no gradient,
        taken when the loop starts, as Python's iterator does)::

            for k_v in params.items():        for key in _sg.dict_keys(params):
                k, v = k_v              ->        k_v = (key, params[key])
                                                  k, v = k_v

        ``for k in d`` only where ``d`` is known to be bound to a dict display or is a
        parameter passed a dict (the gradient of a gradient of it);
        ``dict_keys`` checks at run time that it is a dict. ``sorted(...)`` and
        ``list(...)`` of ``d``, ``d.keys()``, ``d.items()`` (``list`` also of
        ``d.values()``) go over its keys sorted, or as they are; ``for i, k in
        enumerate(...)`` of any of these counts them too."""
        counter = None
        it = s.iter
        if isinstance(it, gast.Call) and self.scope.value(it.func) is builtins.enumerate \
                and len(it.args) == 1 and not it.keywords:
            pair, body = unroll.loop_target(s)
            if not (isinstance(pair, (gast.Tuple, gast.List)) and len(pair.elts) == 2):
                return None
            counter, it = pair.elts[0], it.args[0]
            s = anno.like(gast.For(pair.elts[1], it, body, s.orelse, None), s)
        order = "keys"
        wrapper = self.scope.value(it.func) if isinstance(it, gast.Call) else MISSING
        by_key = False
        if wrapper in (builtins.sorted, builtins.list):
            by_key = wrapper is builtins.sorted and len(it.keywords) == 1 \
                and it.keywords[0].arg == "key" and self._first_item(it.keywords[0].value)
            if len(it.args) != 1 or it.keywords and not by_key:
                return None
            order = "sorted" if wrapper is builtins.sorted else "keys"
            it = it.args[0]
        f = getattr(it, "func", None)
        if isinstance(it, gast.Call) and isinstance(f, gast.Attribute) and not it.args \
                and not it.keywords and f.attr in ("keys", "values", "items") \
                and expr_varied(f.value, self.varied, self.scope):
            base, kind = f.value, f.attr
        elif isinstance(it, gast.Name) and it.id in self.varied and (
                it.id in self.ctx.dicts or it.id in self.ctx.dict_keys
                and self.facts.stable(it.id)):  # (a parameter passed a dict: keyed on it)
            base, kind = it, "keys"
        else:
            return None
        if order == "sorted" and kind == "values" or by_key and kind != "items":
            return None  # sorted by the arrays' values: not a loop over keys
        self.changed = True
        out = []
        seq = self.atom(base, out, hint="dict")
        rebound = {n for st in walk_stmts(s.body) for n in bound_names(st)}
        if isinstance(seq, gast.Name) and seq.id in rebound:
            # Python iterates the dict the loop started with.
            seq = T.name(self.expr(seq, out, self.ctx.namer.fresh(f"{seq.id}_iterated")))
        target, body = unroll.loop_target(s)
        key = self.ctx.namer.fresh(f"{getattr(s.target, 'id', 'k')}_key")
        item = gast.Subscript(copy.deepcopy(seq), T.name(key), gast.Load())
        if kind == "items" and isinstance(target, (gast.Tuple, gast.List)) \
                and len(target.elts) == 2:
            # The key and the value bound apart: only the value carries a gradient.
            binds = [T.assign(copy.deepcopy(target.elts[0]), T.name(key)),
                     T.assign(copy.deepcopy(target.elts[1]), item)]
        else:
            target, body = s.target, s.body
            value = {"keys": T.name(key), "values": item,
                     "items": gast.Tuple([T.name(key), item], gast.Load())}[kind]
            binds = [T.assign(copy.deepcopy(target), value)]
        for b in binds:
            anno.like(b, s)
            T.fix_ctx(b)
        keys = T.expr(f"_sg.dict_{order}(d)", d=seq)
        head = T.name(key, store=True)
        if counter is not None:  # desugar's form: ``for c_key in counted: c, key = c_key``
            pair = self.ctx.namer.fresh(f"{key}_counted")
            unpack = anno.like(T.assign(gast.Tuple([copy.deepcopy(counter), T.name(key)],
                                                   gast.Store()), T.name(pair)), s)
            T.fix_ctx(unpack)
            head, keys, binds = T.name(pair, store=True), T.expr("_sg.dict_counted(k)", k=keys), \
                [unpack] + binds
        loop = anno.like(gast.For(head, keys, binds + list(body), s.orelse, None), s)
        return out + [loop]

    def _indexed(self, it, index, out, hint, rebound):
        """(lengths, item at ``index``) of an iterable: zip and enumerate nest.

        A sequence named in ``rebound`` is read through a copy of the name."""
        fn = self.scope.value(it.func) if isinstance(it, gast.Call) else MISSING
        if fn is builtins.zip and any(isinstance(a, gast.Starred) for a in it.args):
            it = calls.spread(self, it, out)  # (``zip(*rows)``: where the code shows how many)
        if fn is builtins.zip and it.args and not it.keywords:
            # (``zip(x, d.values())`` of a dict whose keys are known: its items, in order)
            args = [gast.Tuple(self.facts.items(a), gast.Load()) if self._dict_view(a)
                    and self.facts.items(a) is not None else self._iterated_as_list(a, rebound)
                    for a in it.args]
            parts = [None if self._one_pass(a) else self._indexed(a, index, out, hint, rebound)
                     for a in args]
            sized = [n for p in parts if p is not None for n in p[0]]
            for k, a in enumerate(args):
                if parts[k] is None:
                    # ``zip(x, itertools.cycle(signs))``, ``zip(x, d.values())``: an iterator
                    # made where it is zipped, which nothing else reads, taken item by item
                    # as zip would take it (as many items as the sized parts hold: it may be
                    # endless) into a list the loop indexes.
                    count = T.const(None) if not sized else sized[0] if len(sized) == 1 \
                        else gast.Call(T.name("min"), [copy.deepcopy(n) for n in sized], [])
                    seq = self.atom(T.expr("_sg.taken(it, n)", it=a, n=copy.deepcopy(count)),
                                    out, hint=hint)
                    parts[k] = ([T.expr("len(s)", s=seq)],
                                gast.Subscript(seq, copy.deepcopy(index), gast.Load()))
            return [n for p in parts for n in p[0]], gast.Tuple([p[1] for p in parts], gast.Load())
        start = _enumerate_start(it) if fn is builtins.enumerate else MISSING
        if start is not MISSING:
            lengths, item = self._indexed(it.args[0], index, out, hint, rebound)
            count = copy.deepcopy(index) if start is None else \
                gast.BinOp(copy.deepcopy(index), gast.Add(), copy.deepcopy(start))
            return lengths, gast.Tuple([count, item], gast.Load())
        if fn is builtins.map and len(it.args) >= 2 and not it.keywords \
                and not any(isinstance(a, gast.Starred) for a in it.args):
            # ``map(f, xs, ys)`` is ``f`` called on the items ``zip(xs, ys)`` gives, one
            # item at a time as the loop asks (``f`` read once, when the map is made).
            func = self._mapped_function(it.args[0], out, rebound)
            parts = [self._indexed(a, index, out, hint, rebound) for a in it.args[1:]]
            return [n for p in parts for n in p[0]], \
                anno.like(gast.Call(func, [p[1] for p in parts], []), self.cur)
        if fn is builtins.reversed and len(it.args) == 1 and not it.keywords:
            return self._reversed(it.args[0], index, out, hint, rebound)
        # ``zip(d, values)``, ``enumerate(d)``: a dict gives its keys, in order (read by
        # position they were its values: ``d[0]`` of int keys, silently)
        it = dict_keys.keys_if_dict(self, it)
        seq = self.atom(it, out, hint=hint)
        if isinstance(seq, gast.Name) and seq.id in rebound:
            seq = T.name(self.expr(seq, out, self.ctx.namer.fresh(f"{seq.id}_iterated")))
        if isinstance(seq, gast.Name) and (seq.id not in self.ctx.containers
                                           or self._may_become_a_dict(seq)):
            # (read by position: as Python iterates it only if it is no dict or set)
            o = anno.origin(self.cur)
            out.append(self._mark(T.stmt("_sg.check_positional(s, w)", s=T.clone(seq),
                                         w=T.const(o.short() if o else "?")), "opaque"))
        return [T.expr("len(s)", s=seq)], gast.Subscript(seq, copy.deepcopy(index), gast.Load())

    def _one_pass(self, node):
        """Is ``node`` an iterator made where a loop's zip takes it (no ``len``, no
        indexing), of values no gradient flows through: a generator expression,
        ``iter``/``filter`` of one sequence, anything of ``itertools``, or a dict's
        ``keys()``/``values()``/``items()``?"""
        return self._iterator(node) and not expr_varied(node, self.varied, self.scope)

    def _iterator(self, node):
        if isinstance(node, gast.GeneratorExp):
            return True
        if not isinstance(node, gast.Call):
            return False
        fn = self.scope.value(node.func)
        return among(fn, builtins.iter, builtins.filter) \
            or getattr(fn, "__module__", None) == "itertools" or self._dict_view(node)

    def _iterated_as_list(self, node, rebound):
        """An iterator of differentiable values a loop's zip takes, as the sequence it
        gives: ``(f(v) for v in xs)`` as the list comprehension (the loop's body rebinds
        none of its names, which the generator would read as it runs), ``iter(xs)`` as
        ``xs``. Another is refused: taken as it is, it would carry no gradient."""
        if not self._iterator(node) or not expr_varied(node, self.varied, self.scope):
            return node
        if isinstance(node, gast.GeneratorExp) and not {
                n.id for n in T.walk(node) if isinstance(n, gast.Name)} & rebound:
            return anno.like(gast.ListComp(node.elt, node.generators), node)
        if isinstance(node, gast.Call) and self.scope.value(node.func) is builtins.iter \
                and len(node.args) == 1 and not node.keywords:
            return node.args[0]
        if isinstance(node, gast.Call) and rewrites.is_iterator(self.scope.value(node.func)):
            return node  # (``zip(itertools.chain(a, b), c)``: written out as a list)
        raise self.ctx.error(
            f"a loop zipping `{gast.unparse(node).strip()}`, an iterator of differentiable "
            "values srcgrad cannot index, is not supported", self.cur,
            "make a list of it first: list(...), or a list comprehension")

    def _dict_view(self, node):
        """``d.keys()``, ``d.values()`` or ``d.items()`` of a dict."""
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
            and node.func.attr in ("keys", "values", "items") and not node.args \
            and not node.keywords and self._is_mapping(node.func.value)

    def _mapped_function(self, func, out, rebound):
        """The function ``map(func, ...)`` calls, as a name the loop does not rebind."""
        if not functions.known_function(self, func) \
                and expr_varied(func, self.varied, self.scope):
            raise self.ctx.error(
                f"`map({gast.unparse(func).strip()}, ...)`: the function mapped is made from "
                "differentiable values", self.cur,
                "call it in a loop or a comprehension: [f(v) for v in xs]")
        if isinstance(func, gast.Name) and func.id in rebound:
            raise self.ctx.error(
                f"`map({func.id}, ...)`: the loop rebinds `{func.id}`, so srcgrad cannot tell "
                "which function the map holds", self.cur,
                "give the function mapped a name the loop does not rebind")
        return func

    def _reversed(self, arg, index, out, hint, rebound):
        """``reversed(seq)`` of a list, tuple or array: its items from the last, by
        index, over the length it had when the loop started (as Python's reverse
        iterator reads it)."""
        fn = self.scope.value(arg.func) if isinstance(arg, gast.Call) else MISSING
        if among(fn, builtins.zip, builtins.enumerate, builtins.map, builtins.reversed,
                 builtins.filter) or isinstance(arg, gast.GeneratorExp) or \
                self._is_mapping(arg):
            raise self.ctx.error(
                f"`reversed({gast.unparse(arg).strip()})` of differentiable values: srcgrad "
                "reverses lists, tuples and arrays only", self.cur,
                "reverse the sequence first: reversed(list(...)), or zip(reversed(xs), ...)")
        seq = self.atom(arg, out, hint=hint)
        if isinstance(seq, gast.Name) and seq.id in rebound:
            seq = T.name(self.expr(seq, out, self.ctx.namer.fresh(f"{seq.id}_iterated")))
        length = self.ctx.namer.fresh(f"{_short(seq)}_len")
        out.append(self._mark(T.assign(length, T.expr("len(s)", s=T.clone(seq))), "opaque"))
        last = T.expr("n - 1 - i", n=T.name(length), i=copy.deepcopy(index))
        return [T.name(length)], gast.Subscript(seq, last, gast.Load())

    # -- expressions -----------------------------------------------------------
    def _mark(self, node, kind, **extra):
        anno.like(node, self.cur)
        return anno.set_kind(node, kind, **extra)

    def _dest(self, dest, hint):
        return dest if dest is not None else self.ctx.namer.fresh(hint)

    def atom(self, node, out, hint):
        """Reduce ``node`` to a name or constant, emitting statements into ``out``."""
        if self.scope.is_source(node):
            return T.name(self.variable_read(node, out, None, f"{self.root}_{_short(node)}"))
        if self._stopped(node):
            return T.name(self.expr(node, out, None, f"{self.root}_{_short(node)}"))
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

    def variable_read(self, node, out, dest, hint):
        """``self.w`` where it is a watched Variable: a source of gradients.

        ``w_var = self.w`` is the source (the tape matches the Variable object);
        the computation uses ``w = _sg.read_value(w_var)``, its array, so that
        NumPy works on plain arrays rather than through the Variable's protocols.
        """
        var = self.ctx.namer.fresh(f"{dest or hint}_var")
        out.append(self._mark(T.assign(var, node), "read"))
        marker = anno.like(gast.Expr(gast.Call(T.name("_sg_watch"), [T.name(var)], [])), self.cur)
        out.append(anno.set_kind(marker, "watch", watched=var))
        self.ctx.sources.add(var)
        self.varied.add(var)
        d = self._dest(dest, hint)
        self.ctx.read_values.add(d)  # an array now, no longer the Variable
        variable = self.scope.value(node)
        if variable is not MISSING:
            self.ctx.read_from[d] = variable
        self.scope.static.pop(d, None)
        read = T.assign(d, T.expr("_sg.read_value(v)", v=var))
        calls._prim(self, read, self.ctx.runtime.read_value, [T.name(var)], {}, out, d)
        self.changed = True
        return d

    def expr(self, node, out, dest, hint=None):
        """Emit statements computing varied ``node`` into ``dest``; returns its name."""
        hint = hint or dest or "t"
        if self.scope.is_source(node):
            return self.variable_read(node, out, dest, hint)
        if self._stopped(node):
            # ``sg.stop_gradient(np.sin(net.W))``: its argument computed as the code's is
            # (a Variable read where srcgrad sees it), then cut
            d = self._dest(dest, hint)
            arg = self.atom(node.args[0], out, f"{hint}_stopped")
            out.append(self._mark(T.assign(d, gast.Call(node.func, [arg], [])), "opaque"))
            return d
        if not expr_varied(node, self.varied, self.scope):
            d = self._dest(dest, hint)
            kind = "copy" if isinstance(node, gast.Name) else "opaque"
            out.append(self._mark(T.assign(d, node), kind))
            return d
        if isinstance(node, gast.Name):
            d = self._dest(dest, hint)
            if d != node.id:
                out.append(self._mark(T.assign(d, node), "copy"))
                self._same_kind(node.id, d)
            self.varied.add(d)
            return d
        if isinstance(node, (gast.ListComp, gast.GeneratorExp)):
            return self.comprehension(node, out, dest, hint)
        if isinstance(node, gast.DictComp):
            return self.expr(anno.like(self._dict_display(node), node), out, dest, hint)
        if isinstance(node, gast.Call):
            return calls.call(self, node, out, self._dest(dest, hint), hint)
        if isinstance(node, gast.BoolOp):
            word = "and" if isinstance(node.op, gast.And) else "or"
            raise self.ctx.error(f"`{word}` on differentiable values is not supported", self.cur,
                                 "use np.where or an if statement")
        split = getattr(self, "_split_" + type(node).__name__.lower(), None)
        if split is None:
            raise self.ctx.error(f"{type(node).__name__} expression on differentiable values is "
                                 "not supported", self.cur)
        return split(node, out, dest, hint)

    # -- one varied expression of each kind, split into statements ----------------
    def _split_binop(self, node, out, dest, hint):
        if isinstance(node.op, gast.BitOr) and (self._is_mapping(node.left)
                                                or self._is_mapping(node.right)):
            # ``d1 | d2``: the dict ``{**d1, **d2}`` (the right one's value for a key in both)
            merged = anno.like(gast.Dict([None, None], [node.left, node.right]), node)
            return self._split_dict(merged, out, dest, hint)
        rule_fn = table.OPERATORS.get(type(node.op).__name__)
        seq = self._sequence_operands(node)
        left = self.atom(node.left, out, hint)
        right = self.atom(node.right, out, hint)
        d = self._dest(dest, hint)
        dunder = calls.record_operator(self, node.op, [left, right])
        if dunder is not None:  # ``u @ v`` of dataclasses defining ``__matmul__``
            return calls.inline_dunder(self, dunder, out, d)
        if rule_fn is None and not self.deciding:
            # ``helper(x) | other``, ``is_pos(x) & mask``: whether the helper returns a dict,
            # or a mask no gradient flows through, is known once the calls are inlined:
            # decided when nothing else changes.
            wait = anno.like(T.assign(d, gast.BinOp(left, node.op, right)), self.cur)
            wait.sg_bitwise = True  # (kept as it is until then: ``assign``)
            out.append(wait)
            self.deferred = True
            return d
        if rule_fn is None:
            raise self.ctx.error(
                f"operator `{OP_SYMBOLS[type(node.op)]}` on differentiable values has no "
                "derivative", self.cur, "`&`, `|`, `^`, `<<` and `>>` compute with booleans "
                "and integers: compute them from values the gradient does not flow through "
                "(comparisons, `np.isnan(x)`), or merge dicts srcgrad can tell when compiling")
        stmt = T.assign(d, gast.BinOp(left, node.op, right))
        if seq is not None:
            return self._sequence_op(stmt, node.op, left, right, seq, out, d)
        if isinstance(node.op, (gast.Add, gast.Mult)) and any(
                isinstance(n, gast.Subscript) and isinstance(n.slice, gast.Slice)
                and not self._an_array_argument(n.value) for n in (node.left, node.right)):
            # (``d["pts"][1:] + d["pts"][:1]``: slices of what may be lists, joined, where
            # the compiler took them for arrays added: checked when it runs)
            o = anno.origin(self.cur)
            out.append(self._mark(T.stmt("_sg.check_arrays_added(a, b, w)", a=T.clone(left),
                                         b=T.clone(right), w=T.const(o.short() if o else "?")),
                                  "opaque"))
        rule = None
        if isinstance(node.op, gast.Pow) and _is_constant(right) and _number(right) not in (None, 0):
            c = _number(right)
            rule = table.POWER_BELOW_ONE if type(c) is not complex and 0 < c < 1 \
                else table.POWER_CONSTANT_EXPONENT
        return calls._prim(self, stmt, rule_fn, [left, right], {}, out, d, rule=rule)

    def _split_unaryop(self, node, out, dest, hint):
        if isinstance(node.op, gast.UAdd):
            return self.expr(node.operand, out, dest, hint)
        operand = self.atom(node.operand, out, hint)
        d = self._dest(dest, hint)
        dunder = calls.record_operator(self, node.op, [operand])
        if dunder is not None:
            return calls.inline_dunder(self, dunder, out, d)
        stmt = T.assign(d, gast.UnaryOp(node.op, operand))
        return calls._prim(self, stmt, table.OPERATORS["USub"], [operand], {}, out, d)

    def _split_subscript(self, node, out, dest, hint):
        joiner = _JOINERS.get(id(self.scope.value(node.value)))
        if joiner is not None:
            return self._join(node, joiner, out, dest, hint)
        if self.scope.value(node.value) is np.mgrid or self.scope.value(node.value) is np.ogrid:
            return self.expr(self._grid_range(node), out, dest, hint)
        value = self.atom(node.value, out, hint)
        index = self.index(node.slice, out)
        d = self._dest(dest, hint)
        if isinstance(value, gast.Name) and value.id in self.ctx.records:
            dunder = calls.record_operator(self, "getitem", [value, index])
            if dunder is not None:  # ``u[i]`` of a dataclass defining ``__getitem__``
                return calls.inline_dunder(self, dunder, out, d)
        out.append(self._mark(T.assign(d, gast.Subscript(value, index, gast.Load())), "getitem"))
        kinds = self.ctx.record_items.get(getattr(value, "id", None), {})
        if isinstance(index, gast.Slice) and self._is_sequence(value) \
                and getattr(value, "id", None) not in self.ctx.dicts:
            # (a slice of a list or tuple is one: ``pts[1:] + pts[:1]`` joins them)
            self.ctx.containers.add(d)
        if isinstance(index, gast.Slice):  # ``layers[:-1]``: a list of the same records
            if None in kinds:
                self.ctx.record_items[d] = {None: kinds[None]}
        else:  # a record, or a container of records (``p["layers"]``), at that key
            key = index.value if isinstance(index, gast.Constant) else None
            kind = kinds.get(key, kinds.get(None))
            calls.note_kind(self.ctx, d, kind)
            if kind is None and kinds and (key is None or type(key) is int and key < 0):
                # (for the message if its fields are read)
                self.ctx.unknown_records[d] = sorted({
                    k[0].__name__ if isinstance(k, tuple) else "containers of records"
                    for k in kinds.values()})
        self.varied.add(d)
        return d

    def _grid_range(self, node):
        """``np.mgrid[a:b:nj]`` (or ``np.ogrid``) of differentiable bounds, one axis: what
        NumPy computes, ``np.linspace(a, b, n)`` for an imaginary step and
        ``np.arange(a, b, step)`` otherwise (both differentiable in their bounds)."""
        part = node.slice
        if not isinstance(part, gast.Slice) or part.upper is None:
            raise self.ctx.error(
                f"`{gast.unparse(node).strip()}` of differentiable bounds, other than one "
                "range `a:b:step`, is not supported", self.cur,
                "build each axis with np.linspace(a, b, n) and join them with np.meshgrid(..., "
                "indexing='ij')")
        lower = part.lower if part.lower is not None else T.const(0)
        step = part.step
        if isinstance(step, gast.Constant) and isinstance(step.value, complex):
            count = T.const(int(abs(step.value)))
            return gast.Call(T.name(self.ctx.inject(np.linspace, "linspace")),
                             [lower, part.upper, count], [])
        if step is not None and not isinstance(step, gast.Constant):
            raise self.ctx.error(
                f"`{gast.unparse(node).strip()}` with a step computed when the code runs (real "
                "or imaginary) is not supported on differentiable bounds", self.cur,
                "use np.linspace(a, b, n) or np.arange(a, b, step)")
        return gast.Call(T.name(self.ctx.inject(np.arange, "arange")),
                         [lower, part.upper, step if step is not None else T.const(1)], [])

    def _join(self, node, joiner, out, dest, hint):
        """``np.r_[x, y]`` / ``np.c_[x, y]``: a join of arrays and numbers, as a primitive."""
        items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        for k, item in enumerate(items):
            if isinstance(item, gast.Constant) and isinstance(item.value, str):
                raise self.ctx.error(
                    f"`{gast.unparse(node).strip()}` with a directive string is not "
                    "supported on differentiable values", self.cur,
                    "build the pieces first and join them with np.concatenate or np.stack")
            if isinstance(item, gast.Slice):
                if expr_varied(item, self.varied, self.scope):
                    raise self.ctx.error(
                        f"`{gast.unparse(node).strip()}`: a range whose bounds are "
                        "differentiable", self.cur, "build the range with np.linspace(a, b, n) "
                        "or np.arange(a, b, step), differentiable in their bounds, and join "
                        "the pieces with np.concatenate")
                # ``np.r_[x, 1:10]``: the range is the piece ``np.r_[1:10]`` (NumPy's
                # arange, or linspace for a complex step), which np.c_ too takes as a
                # 1-d piece, a column.
                items[k] = anno.like(gast.Subscript(
                    T.name(self.ctx.inject(np.r_, "r_")), item, gast.Load()), item)
        atoms = [self.atom(item, out, hint) for item in items]
        lst = self.ctx.namer.fresh(f"{hint}_items")
        out.append(self._mark(T.assign(lst, gast.List(atoms, gast.Load())), "literal"))
        self._list_items[lst] = atoms
        self.ctx.containers.add(lst)
        self.varied.add(lst)
        d = self._dest(dest, hint)
        stmt = T.assign(d, gast.Subscript(self.atom(node.value, out, hint),
                                          gast.Tuple([copy.deepcopy(a) for a in atoms], gast.Load())
                                          if len(atoms) > 1 else copy.deepcopy(atoms[0]),
                                          gast.Load()))
        return calls._prim(self, stmt, getattr(self.ctx.runtime, joiner), [T.name(lst)], {}, out, d)

    def _split_attribute(self, node, out, dest, hint):
        if not isinstance(node.value, gast.Name):  # ``layers[-1].W``
            of_call = isinstance(node.value, gast.Call)
            node = gast.Attribute(self.atom(node.value, out, hint), node.attr, gast.Load())
            if of_call and self.ctx.objects:
                # ``self.box_value.x``: a call inlined this round may return an object
                # built here, whose attributes the next round knows (objects.py).
                d = self._dest(dest, hint)
                out.append(anno.like(T.assign(d, node), self.cur))
                self.changed = True
                return d
        if isinstance(node.value, gast.Name) and node.value.id in self.ctx.records:
            return calls.field(self, node, out, dest, hint)  # (a field named T or real too)
        fields = self.ctx.result_fields.get(node.value.id) \
            if isinstance(node.value, gast.Name) and self.counts.get(node.value.id, 0) <= 1 else None
        if fields is not None and node.attr in fields:
            # ``np.linalg.eigh(a).eigenvalues``: the item at the field's position.
            k = fields.index(node.attr)
            out.append(self._mark(T.stmt("_sg.check_field(r, name, k)", r=node.value.id,
                                         name=T.const(node.attr), k=T.const(k)), "opaque"))
            item = gast.Subscript(T.name(node.value.id), T.const(k), gast.Load())
            return self.expr(anno.like(item, node), out, dest, hint)
        fn = table.ATTRIBUTES.get(node.attr)
        mixed = self.ctx.unknown_records.get(getattr(node.value, "id", None))
        if fn is None and mixed is not None:
            raise self.ctx.error(
                f"attribute `.{node.attr}` of an item of a container that holds records of "
                f"different kinds ({', '.join(mixed)}) or other values, read at an index "
                "known only when running: srcgrad reads a record's fields knowing its class",
                self.cur, "put records of one class in a list, or read its items at "
                "constant indices (p['layers'][0].W)")
        if fn is None:
            raise self.ctx.error(f"attribute `.{node.attr}` of a differentiable value has no "
                                 "derivative rule", self.cur)
        value = self.atom(node.value, out, hint)
        d = self._dest(dest, hint)
        stmt = T.assign(d, gast.Attribute(value, node.attr, gast.Load()))
        return calls._prim(self, stmt, fn, [value], {}, out, d)

    def _split_list(self, node, out, dest, hint):
        if any(isinstance(e, gast.Starred) for e in node.elts):
            return self.expr(anno.like(self._spread_display(node), node), out, dest, hint)
        elts = []
        for e in node.elts:
            cls = self.scope.value(e.func) if isinstance(e, gast.Call) else MISSING
            if isinstance(cls, type) and trees.record_fields(cls) is not None:
                # (``[Mul(a), Add(b)]`` with ``b`` a constant: a record too, so that a loop
                # over the list calls each item's own class's method)
                built = self.ctx.namer.fresh(f"{hint}_{cls.__name__}")
                calls.record(self, e, cls, out, built, built)
                elts.append(T.name(built))
            else:
                elts.append(self.atom(e, out, hint))
        d = self._dest(dest, hint)
        return self._container(type(node)(elts, gast.Load()), out, d)

    _split_tuple = _split_list

    def _spread_display(self, node):
        """``[x, *rest]``: the items of ``rest`` spread in where the code shows how many
        (``structure.py``), else the sequences joined: ``[x] + list(rest)``, as a tuple
        for a tuple display."""
        parts, run = [], []
        for e in node.elts:
            if not isinstance(e, gast.Starred):
                run.append(e)
                continue
            items = self.facts.items(e.value)
            if items is not None:
                run += items
                continue
            if run:
                parts.append(gast.List(run, gast.Load()))
                run = []
            parts.append(gast.Call(self._builtin(list), [e.value], []))
        if not parts:
            return type(node)(run, gast.Load())
        if run:
            parts.append(gast.List(run, gast.Load()))
        joined = parts[0]
        for p in parts[1:]:
            joined = gast.BinOp(joined, gast.Add(), p)
        return joined if isinstance(node, gast.List) else \
            gast.Call(self._builtin(tuple), [joined], [])

    def _builtin(self, fn):
        """A name for the builtin ``fn`` in the code: its own, unless the code rebinds it."""
        name = T.name(fn.__name__)
        return name if self.scope.value(name) is fn else self.ctx.constant(fn)

    def _split_dict(self, node, out, dest, hint):
        if any(k is None for k in node.keys):  # ``{**defaults, "w": w}``
            pairs = self.facts.mapping(node)
            spread = [v for k, v in zip(node.keys, node.values) if k is None]
            if pairs is None and any(isinstance(v, gast.Call) for v in spread):
                # ``{**helper(x), "k": v}``: the helper's call bound to a name first, whose
                # keys are known once the call is inlined, in the next round
                values = [self.atom(v, out, hint) if k is None and isinstance(v, gast.Call)
                          else v for k, v in zip(node.keys, node.values)]
                d = self._dest(dest, hint)
                out.append(anno.like(T.assign(d, gast.Dict(node.keys, values)), self.cur))
                self.changed = True
                return d
            if pairs is None and any(self._pending_call(v) for v in spread):
                self._wait()
            if pairs is None and not self.deciding:
                raise calls.Deferred  # (``{**s}`` of ``s, p = helper(x)``: known later)
            if pairs is None:
                raise self.ctx.error(
                    "`**` in a dict of differentiable values needs a dict whose keys srcgrad "
                    "can tell when compiling", self.cur,
                    "spread a dict the function builds with constant keys, or write the "
                    "items out")
            node = gast.Dict([T.const(k) for k, _ in pairs], [v for _, v in pairs])
        # (``{f"w{i}": ...}`` of an unrolled ``i``, ``{"w" + "1": ...}``: the key it folds to)
        node = gast.Dict([_folded_key(k) for k in node.keys], node.values)
        if any(not _is_constant(k) for k in node.keys):
            raise self.ctx.error("a dict of differentiable values needs constant keys", self.cur)
        if any(not isinstance(k, gast.Constant) for k in node.keys):
            raise self.ctx.error("a dict of differentiable values keyed by tuples is not "
                                 "supported", self.cur,
                                 "key it by strings or numbers (`d[f\"{i},{j}\"]`), or hold "
                                 "the values in an array")
        values = [self.atom(v, out, hint) for v in node.values]
        d = self._dest(dest, hint)
        return self._container(gast.Dict(node.keys, values), out, d)

    def _container(self, value, out, d):
        out.append(self._mark(T.assign(d, value), "literal"))
        self.ctx.containers.add(d)
        # The items that are records (``[Layer(...), Layer(...)]``, ``{"l": Layer(...)}``),
        # by key; key None: every item, records of one class (read at any index).
        # Nested too: ``{"layers": [Layer(...), Layer(...)]}`` (trees.record_kind).
        kinds = trees.items_kind([(k.value, calls.kind_of(self.ctx, e.id) if isinstance(
            e, gast.Name) else None) for k, e in literal_items(value)])
        if kinds:
            self.ctx.record_items[d] = kinds
        if isinstance(value, gast.Dict):
            self.ctx.dicts.add(d)
            self.ctx.dict_keys[d] = tuple(k.value for k in value.keys)
        self.varied.add(d)
        return d

    def _split_ifexp(self, node, out, dest, hint):
        # ``d = a if c else b`` is the ``if`` statement it stands for, normalized as one:
        # a test known when compiling takes its branch alone (``self.act(z) if
        # self.act is not None else z`` with act=None), calls in the other wait as there.
        d = self._dest(dest, hint)
        branch = anno.like(gast.If(node.test, [anno.like(T.assign(d, node.body), self.cur)],
                                   [anno.like(T.assign(d, node.orelse), self.cur)]), self.cur)
        saved = self.cur, self.root
        out += self.stmt(branch)
        self.cur = self.ctx.cur = saved[0]
        self.root = saved[1]
        self.varied.add(d)
        return d

    def _record_of_a_varied_name(self, target, value):
        """``p = Particle(x0, v0)`` of constants where another binding of ``p`` holds
        differentiable fields (``p = dataclasses.replace(p, v=...)`` in a loop): built as
        a record too, so that ``p.x`` reads a field whichever binding reached it."""
        if not (isinstance(target, gast.Name) and target.id in self.varied
                and isinstance(value, gast.Call)):
            return False
        cls = self.scope.value(value.func)
        return isinstance(cls, type) and trees.record_fields(cls) is not None

    def _tuple_of(self, node, count, made):
        """Is ``node`` a tuple of ``count`` items, as the code shows or as the statements
        ``made`` just now bind it (a helper's ``return a, b``, inlined)?"""
        if self.facts.length(node) == count:
            return True
        bound = next((s.value for s in reversed(made) if isinstance(s, gast.Assign)
                      and isinstance(node, gast.Name) and len(s.targets) == 1
                      and isinstance(s.targets[0], gast.Name) and s.targets[0].id == node.id),
                     None)
        return bound is not None and self.facts.length(bound) == count

    def _may_become_a_dict(self, node):
        """Is ``node`` a name the code binds to what a later round may show to be a dict
        (a display, a comprehension, a merge, a call of the user's code or of ``dict``)?"""
        if not isinstance(node, gast.Name):
            return False
        if node.id in self.ctx.dicts:
            return True
        return any(isinstance(v, (gast.Dict, gast.DictComp))
                   or isinstance(v, gast.BinOp) and isinstance(v.op, gast.BitOr)
                   or isinstance(v, gast.Call) and self._user_call(v, dicts=True)
                   for v in self.facts.values.get(node.id, ()))

    def _user_call(self, call, dicts=False):
        """Is ``call`` one of the user's code (not known when compiling, or a def of
        theirs), whose result a later round knows? ``dicts``: of ``dict`` too."""
        fn = self.scope.value(call.func)
        return fn is MISSING or dicts and isinstance(fn, type) and issubclass(fn, dict) \
            or isinstance(fn, (types.FunctionType, gast.FunctionDef)) and not is_library(fn)

    def _pending_merge(self, name):
        """Is ``name`` bound to ``d1 | d2``, a dict once the normalizer merges it?"""
        bound = self.facts.bound.get(name)
        return isinstance(bound, gast.BinOp) and isinstance(bound.op, gast.BitOr)

    def _pending_call(self, node):
        """Is ``node`` a name bound to a call this round inlines (``a = helper(x)``
        before ``{**a}`` or ``a & mask``): what it holds is known in the next round."""
        bound = self.facts.bound.get(node.id) if isinstance(node, gast.Name) else None
        return self.changed and isinstance(bound, gast.Call) \
            and node.id not in self.ctx.records and self._user_call(bound)

    def _wait(self):
        """The statement again in the next round (if it may still wait)."""
        if calls.waits(self.cur):
            raise calls.NotYet

    def _is_mapping(self, node):
        """Is ``node`` a dict: a display, a comprehension, one whose keys the code shows,
        one built here, or a module's?"""
        return isinstance(node, (gast.Dict, gast.DictComp)) or self.facts.mapping(node) is not None \
            or isinstance(node, gast.Name) and node.id in self.ctx.dicts \
            or isinstance(self.scope.value(node), dict)

    def _is_sequence(self, node):
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice):
            return self._is_sequence(node.value)  # (``pts[1:]`` of a list)
        if isinstance(node, gast.Call) and not node.keywords \
                and self.scope.value(node.func) in (list, tuple):
            return True  # (``list(reversed(p))``)
        return isinstance(node, (gast.List, gast.Tuple, gast.ListComp)) or (
            isinstance(node, gast.Name) and node.id in self.ctx.containers)

    def _sequence_operands(self, node):
        """For ``a + b`` / ``a * n`` on lists or tuples: which side is the sequence."""
        if not isinstance(node.op, (gast.Add, gast.Mult)):
            return None
        left, right = self._is_sequence(node.left), self._is_sequence(node.right)
        for side, operand in ((left, node.left), (right, node.right)):
            if side and isinstance(operand, gast.Name) and operand.id in self.not_sequences:
                # Bound to a list somewhere and to something else elsewhere (``leaf = g``
                # then ``leaf = leaf[k]``): repetition or arithmetic depends on the run.
                raise self.ctx.error(
                    f"`{operand.id}` holds a list or tuple at one point and another value at "
                    f"another, so srcgrad cannot tell whether `{gast.unparse(node).strip()}` "
                    "joins or repeats sequences or computes with arrays", self.cur,
                    f"give the list and the other values different names than `{operand.id}`")
        if isinstance(node.op, gast.Add) and (left or right):
            return "both"
        if isinstance(node.op, gast.Mult) and (left or right):
            return "left" if left else "right"
        return None

    def _sequence_op(self, stmt, op, left, right, seq, out, d):
        """Concatenation and repetition of lists and tuples, not elementwise arithmetic."""
        from ...rules.helpers import SEQUENCE_CONCAT, SEQUENCE_REPEAT

        self.ctx.containers.add(d)
        if seq == "both":
            return calls._prim(self, stmt, None, [left, right], {}, out, d, rule=SEQUENCE_CONCAT)
        seq_atom, count = (left, right) if seq == "left" else (right, left)
        return calls._prim(self, stmt, None, [seq_atom, count], {}, out, d, rule=SEQUENCE_REPEAT)

    def index(self, node, out):
        """An index whose parts are names, constants or slices of them."""
        if isinstance(node, gast.Slice):
            parts = [None if p is None else self.atom(p, out, "index") for p in
                     (node.lower, node.upper, node.step)]
            return gast.Slice(*parts)
        if isinstance(node, gast.Tuple):
            return gast.Tuple([self.index(e, out) for e in node.elts], gast.Load())
        if expr_varied(node, self.varied, self.scope):
            if not self.deciding and isinstance(self.cur, (gast.Assign, gast.Expr, gast.Return)):
                # (``k`` a loop's key here and bound from differentiable values by an earlier
                # loop not yet split, ``k, j = d`` of a dict whose keys are known in a later
                # round: known once nothing else changes)
                raise calls.Deferred
            raise self.ctx.error("an index computed from differentiable values is not supported",
                                 self.cur)
        return self.atom(node, out, "index")

    def _dict_display(self, node):
        """``{k: f(v) for k, v in d.items() if <test of k>}`` over a dict whose keys are
        known when compiling (a display, a parameter tree): the display it builds."""
        if len(node.generators) > 1:
            return self._nested_dict_display(node)
        gen = node.generators[0]
        it = gen.iter
        base, kind = (it.func.value, it.func.attr) if isinstance(it, gast.Call) and isinstance(
            it.func, gast.Attribute) and not it.args and it.func.attr in ("items", "keys") \
            else (it, "keys")
        keys = self.facts.keys(base) if isinstance(base, gast.Name) else None
        if keys is None:  # ``for i in range(3)``, a constant list
            keys, kind = self._constant_sequence(it), "values"
        if keys is None:  # ``enumerate(layers)``, ``zip(names, ws)``
            keys, base, kind = self._pairs_of_known_length(it)
        if keys is None:
            raise self.ctx.error("dict comprehension over differentiable values is not "
                                 "supported unless what it iterates is known when compiling "
                                 "(`for k, v in params.items()`, `for i in range(3)`)", self.cur,
                                 "build the dict as a dict display")
        names = [n.id for n in gast.walk(gen.target) if isinstance(n, gast.Name)]
        items_keys, items_values = [], []
        for key in keys:
            bound = {names[0]: T.const(key)}
            if kind == "items" and len(names) == 2:
                bound[names[1]] = gast.Subscript(T.clone(base), T.const(key), gast.Load())
            elif kind == "pairs" and len(names) == 2 and isinstance(gen.target, gast.Tuple):
                (key, position), bound = key, {names[0]: T.const(key[0])}
                bound[names[1]] = gast.Subscript(T.clone(base), T.const(position), gast.Load())
            elif kind in ("items", "pairs") or len(names) != 1 \
                    or not isinstance(gen.target, gast.Name):
                raise self.ctx.error("dict comprehension over `.items()` needs `for k, v in ...`",
                                     self.cur)
            tests = [_substituted(t, bound) for t in gen.ifs]
            truth = [self._static_truth(t) for t in tests]
            if any(t is None for t in truth):
                raise self.ctx.error("the `if` of a dict comprehension over differentiable "
                                     "values must be decided by its keys when compiling",
                                     self.cur)
            if all(truth):
                items_keys.append(_substituted(node.key, bound))
                items_values.append(_substituted(node.value, bound))
        return gast.Dict(items_keys, items_values)

    def _nested_dict_display(self, node):
        """``{(i, j): ... for i in range(2) for j in range(i, 3) if ...}``: every generator
        iterates numbers or strings known when compiling (given the earlier ones' names)."""
        keys, values = [], []

        def expand(generators, bound):
            if not generators:
                keys.append(_folded_key(_substituted(node.key, bound)))
                values.append(_substituted(node.value, bound))
                return
            gen = generators[0]
            items = self._constant_sequence(_substituted(gen.iter, bound)) \
                if isinstance(gen.target, gast.Name) and not gen.is_async else None
            if items is None:
                raise self.ctx.error(
                    "a dict comprehension with several `for` over differentiable values needs "
                    "each to iterate numbers or strings known when compiling "
                    "(`for i in range(2) for j in range(3)`)", self.cur,
                    "build the dict with a loop of `d[key] = value`")
            for item in items:
                inner = dict(bound, **{gen.target.id: T.const(item)})
                known = dict(self.known_constants(), **{k: v.value for k, v in inner.items()})
                truth = [static_argument(t, known) for t in gen.ifs]
                truth = [bool(t) if t is not MISSING else self._static_truth(
                    _substituted(test, inner)) for t, test in zip(truth, gen.ifs)]
                if any(t is None for t in truth):
                    raise self.ctx.error("the `if` of a dict comprehension over differentiable "
                                         "values must be decided by its keys when compiling",
                                         self.cur)
                if all(truth):
                    expand(generators[1:], inner)

        expand(node.generators, {})
        return gast.Dict(keys, values)

    def _pairs_of_known_length(self, it):
        """``enumerate(seq)`` or ``zip(keys, seq)`` (keys a constant sequence) where the
        code shows how many items ``seq`` holds: ((key, position) pairs, seq, "pairs"), or
        (None, it, None)."""
        fn = self.scope.value(it.func) if isinstance(it, gast.Call) else MISSING
        if among(fn, builtins.enumerate):
            start = _enumerate_start(it)
            start = 0 if start is None else start.value \
                if isinstance(start, gast.Constant) and type(start.value) is int else None
            n = self.facts.length(it.args[0]) if start is not None else None
            if n is not None:
                return tuple((start + i, i) for i in range(n)), it.args[0], "pairs"
        if among(fn, builtins.zip) and len(it.args) == 2 and not it.keywords:
            keys, n = self.facts.constants(it.args[0]), self.facts.length(it.args[1])
            if keys is not None and n is not None:
                return tuple((k, i) for i, k in enumerate(keys[:n])), it.args[1], "pairs"
        return None, it, None

    def _constant_sequence(self, it):
        """The values of ``range(<constants>)`` or of a constant list or tuple of numbers
        and strings known when compiling, or None."""
        if isinstance(it, gast.Call) and self.scope.value(it.func) is range and not it.keywords \
                and all(isinstance(a, gast.Constant) and type(a.value) is int for a in it.args):
            return tuple(range(*[a.value for a in it.args]))
        value = self._static_value(it) if not isinstance(it, gast.Call) else MISSING
        if isinstance(value, (list, tuple)) and all(type(v) in (int, str) for v in value):
            return tuple(value)
        return None

    def comprehension(self, node, out, dest, hint):
        # ``y = [v for v in y]`` (``y = list(y)``): the new list gets a name of its own
        # until it is built, or ``y = []`` would empty what it iterates.
        rebinds = dest is not None and any(isinstance(n, gast.Name) and n.id == dest
                                           for n in T.walk(node))
        if rebinds:
            built = self.comprehension(node, out, None, dest)
            out.append(self._mark(T.assign(dest, T.name(built)), "copy"))
            self._same_kind(built, dest)
            self.ctx.containers.add(dest)
            self.varied.add(dest)
            return dest
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
                self.varied.update(n.id for n in T.walk(g.target) if isinstance(n, gast.Name))
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


def _in_loops(body, inside=False):
    """ids of the statements of ``body`` inside a ``for`` or ``while`` loop."""
    out = set()
    for s in body:
        if inside:
            out.add(id(s))
        if isinstance(s, (gast.For, gast.While, gast.If)):
            nested = inside or not isinstance(s, gast.If)
            out |= _in_loops(s.body, nested) | _in_loops(s.orelse, nested)
    return out


def _enumerate_start(call):
    """``start`` of ``enumerate(xs)`` (None), ``enumerate(xs, 1)``, ``enumerate(xs,
    start=k)``: a constant or a name; MISSING for other calls."""
    args, keywords = call.args, call.keywords
    if not args or len(args) + len(keywords) > 2 or len(args) > 2 \
            or any(k.arg != "start" for k in keywords):
        return MISSING
    start = args[1] if len(args) == 2 else keywords[0].value if keywords else None
    if start is not None and not isinstance(start, (gast.Constant, gast.Name)):
        return MISSING
    return start


_COMPARE = {gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Lt: operator.lt,
            gast.LtE: operator.le, gast.Gt: operator.gt, gast.GtE: operator.ge}
# Values whose truth and equality a test may be decided on when compiling: those an
# object's kind includes (compiler/cache._structure), so that another one compiles anew.
_PLAIN_CONSTANTS = (bool, str, type(None))
_STATIC_ARGUMENTS = (bool, int, str, type(None))
_ARITHMETIC = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
               gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod}


def _names_of_nested_defs(body):
    out = set()
    for s in body:
        for node in T.walk(s):
            if isinstance(node, (gast.FunctionDef, gast.Lambda)):
                out |= {n.id for n in T.walk(node) if isinstance(n, gast.Name)}
            elif isinstance(node, (gast.Global, gast.Nonlocal)):
                out |= set(node.names)
    return out


def static_argument(node, static_args):
    """The value of ``node`` if it is made only of the code's constants (ints, bools,
    strings, None) and parameters bound to them (``static_args``), else MISSING."""
    if isinstance(node, gast.Constant):
        return node.value if type(node.value) in _STATIC_ARGUMENTS else MISSING
    if isinstance(node, gast.Name):
        return static_args.get(node.id, MISSING)
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id == "len" and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], gast.Name):
        return static_args.get(("len", node.args[0].id), MISSING)  # (a tuple display's)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.Not)):
        v = static_argument(node.operand, static_args)
        if v is MISSING or isinstance(node.op, gast.USub) and type(v) is not int:
            return MISSING
        return -v if isinstance(node.op, gast.USub) else not v
    if isinstance(node, gast.BinOp) and type(node.op) in _ARITHMETIC:
        a, b = (static_argument(n, static_args) for n in (node.left, node.right))
        if type(a) is not int or type(b) is not int or \
                isinstance(node.op, (gast.FloorDiv, gast.Mod)) and b == 0:
            return MISSING
        return _ARITHMETIC[type(node.op)](a, b)
    if isinstance(node, gast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        a, b = (static_argument(n, static_args) for n in (node.left, node.comparators[0]))
        if a is MISSING or b is MISSING or not any(isinstance(n, gast.Name)
                                                   for n in T.walk(node)):
            return MISSING  # (literals alone: decided above, as they always were)
        try:
            return bool(_COMPARE[type(node.ops[0])](a, b))
        except TypeError:
            return MISSING
    return MISSING


def _folded_key(node):
    """A dict key written as an expression of constants (``f"w{0}"``, ``"b" + "1"``, what
    unrolling leaves of ``f"w{i}"``) as the constant it is; other keys as they are."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.operand, gast.Constant) \
            and type(node.operand.value) is int:  # (``-1``)
        return T.const(-node.operand.value if isinstance(node.op, gast.USub)
                       else node.operand.value)
    if _is_constant(node) or isinstance(node, gast.Name):
        return node
    key = unroll.folded(node, {})
    return T.const(key) if type(key) in (int, str) else node


def _substituted(expr, bound):
    """``expr`` with the names in ``bound`` replaced by copies of their expressions."""
    class Substitute(gast.NodeTransformer):
        def visit_Name(self, node):
            return T.clone(bound[node.id]) if node.id in bound and isinstance(
                node.ctx, gast.Load) else node
    return Substitute().visit(T.clone(expr))


def _unpacked_constants(s, known):
    """``a, b = x, y``: name -> constant for the items known when compiling."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], (gast.Tuple, gast.List))
            and isinstance(s.value, (gast.Tuple, gast.List))
            and len(s.targets[0].elts) == len(s.value.elts)
            and all(isinstance(t, gast.Name) for t in s.targets[0].elts)
            and not any(isinstance(e, gast.Starred) for e in s.value.elts)):
        return {}
    values = {t.id: static_argument(e, known) for t, e in zip(s.targets[0].elts, s.value.elts)}
    return {n: v for n, v in values.items() if v is not MISSING}


def _derivative_code(filename):
    """Is ``filename`` generated derivative code's (``codegen.load`` names it ``<srcgrad
    <label> #n>``), not the user's code passed through: a parameter tree's wrapper, a
    nested def lifted out?"""
    return filename.startswith("<srcgrad ") and filename.split()[1] not in ("tree", "lifted")


def _literal_index(node):
    """An index written out (``0``, ``-1``, ``:``, ``1:n``, ``None``, ``...``): the same in
    ``K[i][...]`` and ``K[i, ...]``, with nothing to check when it runs."""
    return isinstance(node, gast.Slice) or _is_constant(node) and not isinstance(node, gast.Tuple)


def _int_constant(node):
    """The value of ``3`` or ``-3``, or None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.operand, gast.Constant):
        value = node.operand.value
        return (-value if isinstance(node.op, gast.USub) else value) if type(value) is int \
            else None
    value = getattr(node, "value", None)
    return value if type(value) is int else None


def _drop_dead_constants(body):
    """Drop ``p = None`` (a constant) that a later statement of the same block binds again
    before anything reads it: ``p = None`` (an inlined default) then ``if p is None: p =
    self.params`` decided, ``p = self.params``. Bound once, ``p`` is then the object it
    is bound to, its reads of watched values sources (it was a local of unknown value:
    its reads constants)."""
    for s in body:
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list) \
                    and not isinstance(s, (gast.FunctionDef, gast.Try)):
                _drop_dead_constants(getattr(s, field))
    drop = []
    for i, s in enumerate(body):
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Constant)):
            continue
        name = s.targets[0].id
        for t in body[i + 1:]:
            if isinstance(t, gast.Assign) and len(t.targets) == 1 \
                    and isinstance(t.targets[0], gast.Name) and t.targets[0].id == name \
                    and not any(isinstance(n, gast.Name) and n.id == name
                                for n in gast.walk(t.value)):
                drop.append(i)
                break
            # (Only across straight-line statements that do not read it: a ``break``, a
            # ``return`` or a branch between may leave the constant what is read.)
            if not isinstance(t, (gast.Assign, gast.AugAssign, gast.Expr)) \
                    or any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(t)):
                break
    for i in reversed(drop):
        del body[i]
