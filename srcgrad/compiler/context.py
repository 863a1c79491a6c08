"""The state the passes share during one compilation (``Context``) and its result (``Generated``).

Passes receive the context rather than reading module registries: it holds
the namer, what names denote (``scope``), the objects injected into the
generated code (``cells``) and the guards the cache checks before reusing it.
"""
import builtins
import functools
import math
import re
import sys
import types
from dataclasses import dataclass

import gast
import numpy as np

from ..errors import CompileError
from ..ir import anno, scopes, templates as T
from ..ir.names import MUTATORS
from ..ir.resolve import MISSING as _UNKNOWN, Guards, Scope, constant_index, is_library
from ..passes import contexts, fence
from ..rules import table
from . import codegen, source, watched_reads
from .naming import Namer

_STDLIB = frozenset(sys.stdlib_module_names) - {"__main__"}

_LITERALS = (int, float, complex, str, bytes, bool, type(None))


class Context:
    """State shared by the passes for one compilation."""

    def __init__(self, src, guards):
        self.src = src
        self.guards = guards
        # Code with strong zeros (runtime/strong.py): a gradient it calls (higher order)
        # is inlined as its code with strong zeros too. ``values_seen``: the values the
        # code computes are the user's (a tape's block, ``value_and_grad``, forward
        # mode), not only its gradient (passes/normalize/calls._gradient_call).
        self.strong = False
        self.values_seen = True
        taken = {n.id for n in gast.walk(src.node) if isinstance(n, gast.Name)}
        self._own_names = frozenset(taken)
        taken |= set(dir(builtins)) | set(src.globals) | {"_sg", "_"}
        self.namer = Namer(taken)
        self.scope = Scope(src.globals, dict(src.freevars), guards)
        self.containers = set()
        self.dicts = set()  # names bound to a dict display (``for k in d`` iterates keys)
        self.dict_keys = {}  # those names -> the display's constant keys, in order
        # names bound to a namedtuple or dataclass (built here or passed) -> its class
        # (trees.py), and -> the kinds of its fields that hold records; names bound to a
        # list, tuple or dict holding records -> their kinds by key (trees.record_kind,
        # passes/normalize/calls.note_kind)
        self.records = {}
        self.result_fields = {}  # names bound to a NumPy named result -> its fields
        self.record_items = {}
        self.record_fields = {}
        self.unknown_records = {}  # an item of records of several kinds -> their names
        # objects of plain classes built in the code, kept as their attributes: name ->
        # objects.Obj, and other names for them -> the name (passes/normalize/objects.py)
        self.objects = {}
        # attributes of objects the code was handed that hold differentiable values: (id
        # of the object, attribute) -> the local mirroring it; id -> (object, its name
        # as written), in the order met (passes/normalize/attributes.py)
        self.mirrors = {}
        # The module's or closure's containers the code stores differentiable values into
        # (``STATE["x"] = q``), id -> container: user code it calls may read them back.
        self.stores_out = {}
        self.stores_out_names = {}  # id -> the names the code stores into it by
        self.mirrored_objects = {}
        self.mirror_started = set()
        self.mirror_checked = set()
        self.mirror_slots = None
        # module variables the code writes (``global``): (id of the module's dict, name)
        # (passes/normalize/global_names.py; the dicts are the code's constants)
        self.global_writes = set()
        self.imported_globals = {}  # a name injected for another module's global -> (dict, name)
        self.object_aliases = {}
        self.object_lists = {}  # a name bound to a display of objects -> their names
        self.injected = {}  # id -> name of srcgrad's own classes injected (inject_once)
        self.tuples = {}
        self.cells = {"_sg": codegen.runtime_cell()}
        self.runtime = self.cells["_sg"].cell_contents
        self.scope.static["_sg"] = self.runtime
        self.cells.update(src.freevars)
        self.result_hint = "result"
        self.user_names = {}  # an inlined function's renamed locals -> the names in its code
        self._sources = {}
        # Tapes: reads of trainable Variables are differentiated (sources).
        self.param_values = {}  # parameters' values at the first call (tapes)
        self.may_be_complex = False  # complex values may enter (pipeline.may_be_complex)
        self.constant_params = {}  # parameters passed None or a string (keyed on it)
        self.arg_values = {}  # the same for sg.grad: only to specialise inner gradients
        self.variable_sources = False
        self.tape_region = False  # compiling a tape's block
        self.is_variable = lambda value: False
        self.sources = set()
        self.read_values = set()  # names holding the array read from a watched Variable
        self.read_from = {}  # those names -> the Variable (what ``isinstance`` of them tests)
        self.watched_reads = None  # tapes: watched_reads.Reads, when values are watched at entry
        self.nested_reads = []  # the same of nested tapes' blocks (watched_reads.NestedReads)
        # Where the code stores into containers it was handed (``d["x"] = v``): (root,
        # path) pairs, a path cut where its index is known only when running
        # (``written_sites``).
        self.written_sites = ()
        self.cur = None  # the statement being normalized: where a refused read is
        self.deciding_varied = False  # normalize's first look (``_check_followed``)
        self.scope.is_source = self._is_variable_read
        self.scope.calls_user_code = self._calls_user_code
        self.scope.iterates_sources = self._iterates_sources
        self.scope.holds_sources = self._object_holds_sources
        self.top_locals = scopes.function_locals(src.node)
        # A tape block's: its function's cell variables, and whether it is a module's code
        # (blocks.Region); (None, None) where not known.
        self.block_frame = (None, None, None)
        self._held_by_inputs = None  # (``_inputs_hold_sources``)
        # Rule expressions say ``np`` and ``math``: use the user's own names
        # when they mean those modules, else private cells.
        self.module_names = {
            "np": self._module_name("np", np, "_np"),
            "math": self._module_name("math", math, "_math"),
        }

    def _module_name(self, name, module, private):
        if self.src.globals.get(name) is module and name not in self.top_locals:
            self.guards.add(self.src.globals, name, module)  # rule code says np.…: still numpy
            return name
        self.namer.reserve([private])
        self.cells[private] = types.CellType(module)
        self.scope.static[private] = module
        return private

    def rule(self, obj):
        return table.rule(obj)

    def harmless_call(self, call):
        """A call that cannot change its arguments: a primitive, or ``len``, ``range``, ..."""
        obj = self.scope.value(call.func)
        return obj is not _UNKNOWN and (table.nondiff(obj) or table.rule(obj) is not None
                                        or any(obj is f for f in table.CONSTANT_UNLESS_VARIED))

    def _calls_user_code(self, call):
        """Under a tape, a call into user code may read Variables, or values watched when
        the block starts (``watched_reads``); anywhere, attributes that hold differentiable
        values (``mirrors``: ``predict(X)`` reading a layer's ``self.W`` the code set):
        differentiate it."""
        if not (self.variable_sources or self.watched_reads or self.mirrors or self.stores_out):
            return False
        if not (self.variable_sources or self.watched_reads or self.mirrors):
            return any(_reads_any(self.scope.value(f), self.stores_out)
                       for f in [call.func] + list(call.args))  # (``apply(read)``)
        obj = self.scope.value(call.func)
        if obj is builtins.getattr and len(call.args) >= 2 and not self.deciding_varied \
                and (not isinstance(call.args[1], gast.Constant) or len(call.args) == 3) \
                and self._holds_sources(self.scope.value(call.args[0])):
            raise self.error(
                f"`{gast.unparse(call).strip()}` reads an attribute named when the code runs, "
                "or one the object may not have, from an object holding values the "
                "GradientTape watches: srcgrad cannot tell which it reads", self.cur,
                "read the attribute by its name (`obj.w`)")
        if isinstance(obj, gast.FunctionDef):
            return True
        if obj is _UNKNOWN and self._reaches_sources(call):
            # (``super().call(x)``, ``type(self).call(self, x)``, ``fns[k](x)`` given an
            # object holding what a tape watches: what it reads is not known, never a
            # constant)
            return True
        if isinstance(obj, types.MethodType):
            obj = obj.__func__
        elif not isinstance(obj, (types.FunctionType, type)) and obj is not _UNKNOWN:
            obj = getattr(type(obj), "__call__", None)
        # (The standard library reads no Variables of the user's: ``warnings.warn``.)
        return isinstance(obj, types.FunctionType) and not is_library(obj) \
            and (getattr(obj, "__module__", None) or "").split(".")[0] not in _STDLIB

    def store_out(self, container, name):
        """Note that the code stores a differentiable value into ``container`` (a module's
        or a closure's) by ``name``; whether it is new."""
        if container is _UNKNOWN:
            return False
        self.stores_out_names.setdefault(id(container), set()).add(name)
        if id(container) in self.stores_out:
            return False
        self.stores_out[id(container)] = container
        return True

    def _object_holds_sources(self, node):
        """Is ``node`` an object or a container (not an array) holding a Variable a tape
        watches or a value watched at the start?"""
        value = self.scope.value(node)
        return not isinstance(value, (np.ndarray, np.generic, float, int, complex)) \
            and self._holds_sources(value)

    def _reaches_sources(self, call):
        """Does ``call`` name (as its function's receiver or an argument) an object holding
        a Variable a tape watches or a value watched at the start, or ``super()``? Or is
        the function only known when running (``layer = B if flag else A``, ``layer(x)``)
        where the code's inputs hold such objects?"""
        f = call.func
        unknown_holder = isinstance(f, (gast.Subscript, gast.Attribute)) \
            and isinstance(f.value, gast.Name) and self.scope.value(f.value) is _UNKNOWN \
            and getattr(f, "attr", None) not in table.METHODS  # (an array's: ``y.sum()``)
        if (isinstance(f, gast.Name) or unknown_holder) and self._inputs_hold_sources():
            return True
        for n in gast.walk(call):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) \
                    and n.func.id == "super":
                return True
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                value = self.scope.value(n)
                if value is not _UNKNOWN and not isinstance(value, (types.ModuleType, type)) \
                        and self._holds_sources(value):
                    return True
        return False

    def _inputs_hold_sources(self):
        """Does an input (not an array) hold what a tape watches? (Found once: the inputs
        and what is watched are fixed while compiling.)"""
        if self._held_by_inputs is None:
            # (A bound method's object, a partial's arguments: ``f = net.forward``, also in
            # a list or a dict of them: ``fs = {"main": net.loss}``.)
            self._held_by_inputs = any(
                type(v) is not np.ndarray and self._holds_sources(v)
                or any(self._holds_sources(c) for c in called_with(v))
                for v in self.param_values.values())
        return self._held_by_inputs

    def _is_variable_read(self, node):
        """Does ``node`` (a name or attribute chain) read a trainable Variable a tape
        watches, or a value it watches when the block starts (``watched_reads``)?"""
        if not (self.variable_sources or self.watched_reads) \
                or not isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)):
            return False
        if isinstance(node, gast.Name) and (node.id in self.sources or node.id in self.read_values):
            return False
        obj = self.scope.value(node)
        if self.variable_sources and self.is_variable(obj) and getattr(obj, "trainable", False):
            return True
        if obj is _UNKNOWN:
            self._check_followed(node)
        if self.watched_reads is None:
            return False
        where = self._stored_at(node)
        if where is None:
            where = self._found_in_inputs(node)
        state = self.watched_reads.note(where, self.param_values) if where is not None else 0
        if state == watched_reads.LATER:
            text = gast.unparse(node).strip()
            raise self.error(
                f"`{text}` reads a value the GradientTape block watches only further on: "
                "srcgrad differentiates such a read from the block's start or not at all, "
                "and cannot tell which of its reads come after the watch", self.cur,
                "watch the value on the block's first lines (`tape.watch(...)` before any "
                "other statement), or read it by the name the block watches")
        if state == watched_reads.SOURCE and where is not None and self._written(where):
            text = gast.unparse(node).strip()
            raise self.error(
                f"`{text}` reads a value the GradientTape watches from a container the block "
                "also stores into there: srcgrad differentiates such a read as the watched "
                "value, which it may no longer be", self.cur,
                f"read it into a local before the block (`v = {text}`), compute with the "
                "local in the block, and store it back after; or make the container in the "
                "block, after the watch (`xs = [x0]`)")
        if state == watched_reads.AMBIGUOUS and isinstance(node, gast.Name):
            return False  # (a global or closure variable: another name, not watched with it)
        if state == watched_reads.AMBIGUOUS:
            text = gast.unparse(node).strip()
            raise self.error(
                f"`{text}` holds the very Python number the GradientTape watches: srcgrad "
                "cannot tell the watched value read from another place from an equal "
                "constant (CPython shares equal constants: `K = 1.0; T = 1.0` are one "
                "object)", self.cur,
                f"watch it where the block reads it (`tape.watch({text})`), or watch a NumPy "
                "scalar or an array (`np.float64(...)`)")
        return state == watched_reads.SOURCE

    def _iterates_sources(self, node):
        """Does iterating ``node`` (``layers``, ``params.values()``, ``d.items()``) give, or
        give objects holding, a Variable a tape watches or a value watched at the start?
        (The loop is unrolled over the container, known when compiling.)"""
        if not (self.variable_sources or self.watched_reads):
            return False
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and not node.args and node.func.attr in ("values", "items"):
            node = node.func.value
        if isinstance(node, gast.Call) and not node.keywords \
                and self.scope.value(node.func) in (builtins.zip, builtins.enumerate,
                                                    builtins.reversed, builtins.list,
                                                    builtins.tuple, builtins.sorted):
            return any(self._iterates_sources(a) for a in node.args)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr == "copy" and not node.args:
            return self._iterates_sources(node.func.value)  # ``ws.copy()``
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Mult)):
            return self._iterates_sources(node.left) or self._iterates_sources(node.right)
        if isinstance(node, (gast.List, gast.Tuple)):  # ``[*ws]``
            return any(isinstance(e, gast.Starred) and self._iterates_sources(e.value)
                       for e in node.elts)
        if not isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)):
            return False
        value = self.scope.value(node)
        if value is _UNKNOWN and isinstance(node, gast.Name):
            # (A container the block changes in place is not static: what it holds at
            # the start still tells that its loops may read sources.)
            value = self.param_values.get(node.id, _UNKNOWN)
        return type(value) in (list, tuple, dict) and self._holds_sources(value)

    def _holds_sources(self, value):
        """Does ``value`` (a container, an object) hold a Variable a tape watches or a
        value watched at the start?"""
        if value is _UNKNOWN or not (self.variable_sources or self.watched_reads):
            return False
        watched = self.watched_reads.watched if self.watched_reads else None
        return any(self.variable_sources and self.is_variable(leaf) and leaf.trainable
                   or watched is not None and watched.state(leaf)
                   for _, leaf in watched_reads.held_leaves(value, 3))

    def _check_followed(self, node):
        """Refuse a read by an index known only when the code runs (``layers[i].W``,
        ``params[name]``) from a container holding Variables or watched values: which
        of them it reads, and so whether it is a source, is not known when compiling."""
        while isinstance(node, (gast.Attribute, gast.Subscript)) and not self.deciding_varied:
            if isinstance(node, gast.Subscript) and constant_index(node.slice) is _UNKNOWN \
                    and self._iterates_sources(node.value):
                text = gast.unparse(node).strip()
                raise self.error(
                    f"`{text}` reads from a container holding values the GradientTape "
                    "watches, by an index known only when the code runs: srcgrad cannot "
                    "tell which value it reads", self.cur,
                    "read with a constant index (`layers[0]`), loop over the container "
                    "itself (`for layer in layers:`), or watch the value read "
                    f"(`v = {text}`, `tape.watch(v)`) before the block")
            node = node.value

    def _found_in_inputs(self, node):
        """Where a read of a local (``m.W`` in an unrolled ``for m in layers:``) reads from,
        as a ``watched_reads.Locator`` from an input holding watched values (they are
        static: ``_static_inputs``); None if it reads no data from one. A watched value
        found nowhere else cannot be told apart at the next entry: refused."""
        obj = self.scope.value(node) if isinstance(node, (gast.Attribute, gast.Subscript)) \
            else _UNKNOWN
        if obj is _UNKNOWN or not isinstance(obj, watched_reads._DATA):
            return None
        watched = self.watched_reads.watched
        holders = {n: v for n, v in self.param_values.items() if n in self.scope.static
                   and watched.holds(v)}
        where = watched_reads.path_in(holders, obj) if holders else None
        if where is None and watched.state(obj):
            raise self.error(
                f"`{gast.unparse(node).strip()}` reads a value the GradientTape watches from "
                "a place srcgrad cannot follow from the block's inputs", self.cur,
                "read it by the name the block watches, or through the object or container "
                "the block reads (`model.layers[0].W`, `for layer in layers: layer.W`)")
        return where

    def note_written(self, body):
        """Note where ``body`` stores into containers it reads watched values from
        (``written_sites``)."""
        sites = []
        for n in (n for s in body for n in gast.walk(s)):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                    and n.func.attr in MUTATORS and isinstance(n.func.value, gast.Name):
                # (``xs.append(...)``: ``xs[-1]`` is another item after it, and an
                # insert or a pop moves them all)
                sites.append((n.func.value.id, ()))
            if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
                path, node = [], n
                while isinstance(node, (gast.Attribute, gast.Subscript)):
                    key = constant_index(node.slice) if isinstance(node, gast.Subscript) \
                        else node.attr
                    path = [] if key is _UNKNOWN else [key] + path
                    node = node.value
                if isinstance(node, gast.Name):
                    sites.append((node.id, tuple(path)))
        self.written_sites = tuple(sites)

    def _written(self, where):
        """Is the watched value ``where`` locates (a parameter's item or attribute) in a
        place the code stores into (or in what it stores into)?"""
        if not where.param:
            return False
        keys = tuple(k for _, k in where.path)
        return any(root == where.root and (keys[:len(path)] == path or path[:len(keys)] == keys)
                   for root, path in self.written_sites)

    def _stored_at(self, node):
        """Where ``node`` reads from (a ``watched_reads.Locator``): an attribute or constant
        item of a parameter, of an object known when compiling, or a global or closure
        variable; None for a value of the code's own (a local, a bare parameter)."""
        path = []
        while isinstance(node, (gast.Attribute, gast.Subscript)):
            if isinstance(node, gast.Attribute):
                path.append(("attr", node.attr))
            elif constant_index(node.slice) is not _UNKNOWN:
                path.append(("item", constant_index(node.slice)))
            else:
                return None
            node = node.value
        if not isinstance(node, gast.Name):
            return None
        path.reverse()
        name = node.id
        if name in self.param_values:
            return watched_reads.Locator(name, path, param=True) if path else None
        if name in self.scope.static:
            # (An object the code holds, a callee's global Variable among them: read as it
            # is, which may be watched at one entry and not at the next.)
            return watched_reads.Locator(self.scope.static[name], path)
        if name in self.scope.local_defs or name in self.scope.locals:
            return None
        elif name in self.scope.freevars:
            root, path = self.scope.freevars[name], [("cell", None)] + path
        elif name in self.scope.globals:
            root, path = self.scope.globals, [("item", name)] + path
        else:
            return None
        return watched_reads.Locator(root, path) if path else None

    def source(self, fn):
        self.guards.function(fn)  # its code and defaults are compiled in
        if fn not in self._sources:
            src = source.parse_function(fn)
            src.node.body = contexts.lower(src.node.body, contexts.resolver(src))
            fence.check(src)
            src.names = scopes.names(src.node)  # (locals, free names): once, not per inlining
            self._sources[fn] = src
        return self._sources[fn]

    def error(self, message, stmt, remedy=None):
        o = anno.origin(stmt) if stmt is not None else None
        if o is None and hasattr(stmt, "lineno"):
            o = self.src.origin(stmt)
        return CompileError(self.in_user_names(message), o.short() if o else None, None,
                            remedy and self.in_user_names(remedy))

    def note_renames(self, mapping):
        """Remember an inlined function's renames (old -> new), for messages.

        A free name may be mapped onto a name the compiled function has itself
        (its own ``numpy`` for the callee's ``np``): that one keeps its name."""
        own = self._own_names
        self.user_names.update((new, old) for old, new in mapping.items()
                               if new != old and new not in own)

    def in_user_names(self, text):
        """``text`` naming an inlined function's variables as its line does, not renamed."""
        if not self.user_names:
            return text
        return re.sub(r"\b[A-Za-z_]\w*\b",
                      lambda m: self.user_names.get(m.group(0), m.group(0)), text)

    def inject(self, obj, base):
        name = self.namer.fresh(base)
        self.cells[name] = types.CellType(obj)
        self.scope.static[name] = obj
        return name

    def inject_once(self, obj, base):
        """``obj``'s name in the generated code, injected the first time it is asked for."""
        name = self.injected.get(id(obj))
        if name is None:
            name = self.injected[id(obj)] = self.inject(obj, base)
        return name

    def constant(self, value):
        if isinstance(value, _LITERALS) and not (isinstance(value, float) and not np.isfinite(value)):
            return T.const(value)
        return T.name(self.inject(value, "default"))

    def import_free_names(self, src, callee):
        """Renames that make ``callee``'s free names mean what they mean in its module."""
        # Free names leave out builtins' names; a closure variable or global
        # named ``sum`` or ``ord`` is still the callee's own.
        local, free = src.names
        free = set(free) | set(src.freevars) | {
            n for n in _loads(src.node) - set(local) if n in src.globals and hasattr(builtins, n)}
        mapping = {}
        same_module = src.globals is self.src.globals
        # (Names the compiled code binds or reads from its own cells shadow a global of the
        # callee's: ``c`` of a closure ``make(c)`` returns, ``c`` a global its helper reads.)
        shadowing = set(self.top_locals) | set(self.src.freevars)
        cells, module_level, frame_code = self.block_frame
        for name in sorted(free):
            if name in src.freevars:
                if name in self.top_locals and _contents(src.freevars[name]) is \
                        self.param_values.get(name, _MISSING) \
                        and (cells is None or name in cells):
                    # A closure over the very variable the compiled code has as a
                    # parameter (a tape block calling a local function): the same variable.
                    # (Not where the block's variable is no cell: another closure's, which
                    # held the same array when the block started, ``make_helper(W0)``.)
                    continue
                if cells is not None and name in cells and frame_code is not None \
                        and getattr(src.fn, "__code__", None) in frame_code.co_consts \
                        and name in scopes.function_locals(self.src.node):
                    # (A function defined in the block's function, over the variable the
                    # block binds, ``s = a`` then ``h(a)``: the same variable, as it is now.)
                    continue
                mine = self.cells.get(name)
                if mine is not None and _contents(mine) is _contents(src.freevars[name]) \
                        and name not in self.top_locals:
                    continue
                fresh = self.namer.fresh(f"{src.fn.__name__}_{name}")
                self.cells[fresh] = src.freevars[name]
                self.scope.freevars[fresh] = src.freevars[name]
                mapping[name] = fresh
            elif name in src.globals:
                obj = src.globals[name]
                if same_module and name not in shadowing:
                    self.guards.item(src.globals, name, obj)  # read from there when it runs
                    continue
                self.guards.add(src.globals, name, obj)
                if same_module and self.param_values.get(name, _MISSING) is obj \
                        and module_level is not False:
                    continue  # a module-level tape block: the global is this parameter
                if self.src.globals.get(name, _MISSING) is obj and name not in shadowing:
                    continue
                mapping[name] = self.inject(obj, name)
                # (Read again when it runs where some code writes it: global_names.py.)
                self.imported_globals[mapping[name]] = (src.globals, name)
        return mapping


_MISSING = object()


def _loads(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


@dataclass
class Generated:
    text: str
    fn: object
    guards: Guards
    # Free of effects a second run would repeat: its gradient may be computed again
    # (with strong zeros, runtime/strong.py).
    rerunnable: bool = False


def _reads_any(fn, held, seen=None):
    """Does ``fn`` (a function of the user's, a method, a callable object) or what it
    names (the functions it calls, its object's class's methods, its defaults and
    closure cells) name a global or a closure variable holding one of ``held`` (id ->
    object)? (Reads through ``globals()`` are taken to.)"""
    seen = set() if seen is None else seen
    if id(fn) in seen:
        return False
    seen.add(id(fn))
    found = []
    if isinstance(fn, types.MethodType):
        # (its object's other methods too: ``self._penalty()``)
        found = [fn.__func__, fn.__self__] + [
            v for v in vars(type(fn.__self__)).values() if isinstance(v, types.FunctionType)] \
            + list(getattr(fn.__self__, "__dict__", {}).values())
    elif isinstance(fn, types.FunctionType):
        if is_library(fn):
            return False
        names, code = set(), [fn.__code__]
        while code:
            c = code.pop()
            names.update(c.co_names)
            code += [k for k in c.co_consts if isinstance(k, types.CodeType)]
        if "globals" in names:
            return True
        found = [fn.__globals__.get(n, _UNKNOWN) for n in names] \
            + [c.cell_contents for c in fn.__closure__ or () if _filled(c)] \
            + list(fn.__defaults__ or ()) + list((fn.__kwdefaults__ or {}).values())
    elif callable(fn) and not isinstance(fn, type) and not is_library(type(fn)) \
            and (getattr(type(fn), "__module__", "") or "").split(".")[0] not in _STDLIB:
        # (an object: its methods, its attributes)
        found = [v for v in vars(type(fn)).values() if isinstance(v, types.FunctionType)] \
            + list(getattr(fn, "__dict__", {}).values())
    if any(id(v) in held for v in found):
        return True
    return any(_reads_any(v, held, seen) for v in found
               if isinstance(v, (types.FunctionType, types.MethodType))
               or callable(v) and not isinstance(v, (type, types.ModuleType, np.ufunc))
               and not isinstance(v, types.BuiltinFunctionType))


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def called_with(value, depth=2):
    """What the functions ``value`` holds (a bound method, a partial, or a list, tuple or
    dict of them) are called with besides their arguments: their objects, bound values."""
    if isinstance(value, types.MethodType):
        return [value.__self__]
    if isinstance(value, functools.partial):
        return [list(value.args) + list(value.keywords.values())]
    if depth and type(value) in (list, tuple, dict):
        items = value.values() if type(value) is dict else value
        return [c for v in items for c in called_with(v, depth - 1)]
    return []
