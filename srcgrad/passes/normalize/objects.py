"""Objects of the user's plain classes built in the compiled code, kept as their attributes.

``pend = Pendulum(length, damping)`` then ``pend.run(20, 0.05)``: the object
never exists in the generated code. Each attribute becomes a local variable
named after it (``pend_theta`` for ``pend.theta``, ``self.theta`` in a method
called on it); ``__init__``, methods, properties and ``__call__`` are
inlined with ``self`` standing for the object, so that ``self.omega =
self.omega + dt * a`` is an assignment to ``pend_omega`` and is differentiated
as any other. Names that are other names for the object (``self`` of each
inlined method, ``sim = pend``, an attribute holding it) become the object's
name, which is known when compiling: an object is one allocation bound once.

What this cannot model exactly is refused, naming the line: the object used
as a value other code receives (``print(pend)``, a list of objects, returned
from the compiled function, an operator on it), a name bound to two objects,
classes that change how attributes work (``__getattr__``, ``__setattr__``,
``__slots__``, ``__new__``, bases from libraries), an attribute read that is
never set, and a property or method assigned over. Run as a pass at the start
of each round of the normalizer, before its analyses: what one round inlines
(a method's body, reading ``self.x``) is rewritten in the next.
"""
import builtins
import dataclasses
import functools
import inspect
import sys
import types

import gast
import numpy as np

from ... import trees
from ...ir import anno, templates as T
from ...ir.names import MUTATORS, handed_on, root_id, walk_stmts
from ...ir.resolve import MISSING, among, is_library
from ...ir.scopes import free_names
from ...rules import rewrites
from . import dataclass_objects, inline, object_lists

_ROUNDS = 60  # rewrites inside one pass (objects in attributes of objects)
# Class attributes an object's attribute may fall back on: kept as the constants they are.
_IMMUTABLE = (bool, int, float, complex, str, bytes, type(None), tuple, frozenset)
_CHANGES_ATTRIBUTES = ("__getattr__", "__getattribute__", "__setattr__", "__delattr__",
                       "__new__", "__slots__", "__set_name__")


@dataclasses.dataclass
class Obj:
    """An object built in the compiled code: its class, where it is built, and the local
    variable holding each attribute."""

    cls: type
    where: object
    fields: dict = dataclasses.field(default_factory=dict)
    set: set = dataclasses.field(default_factory=set)  # attributes some statement assigns
    read: dict = dataclasses.field(default_factory=dict)  # attribute -> a statement reading it


def plain_class(cls, records=True):
    """Why instances of ``cls`` cannot be kept as their attributes, or None if they can.
    ``records=False``: a dataclass or namedtuple class is not a reason by itself."""
    if type(cls) is not type:
        return "its class has a metaclass"
    if cls.__module__.split(".")[0] in sys.stdlib_module_names:
        return "it is a class of Python's standard library"
    for k in cls.__mro__[:-1]:
        if is_library(k) or k.__module__ == "builtins":
            return f"it derives from `{k.__qualname__}`"
        changes = [a for a in _CHANGES_ATTRIBUTES if a in vars(k)]
        if changes:
            return f"`{k.__qualname__}` defines `{changes[0]}`"
    if records and (trees.record_fields(cls) is not None or dataclasses.is_dataclass(cls)):
        return "it is a record (dataclass or namedtuple)"
    init = inspect.getattr_static(cls, "__init__")
    if init is not object.__init__ and not isinstance(init, types.FunctionType):
        return "its `__init__` is not a Python function"
    return None


def scalarize(norm, fn):
    """Rewrite, in ``fn``, the objects built and the attributes, methods and names of the
    objects known: see the module docstring. Returns whether anything changed."""
    any_change = False
    for _ in range(_ROUNDS):
        rewriter = _Rewrite(norm, fn)
        fn.body = rewriter.block(fn.body)
        if not rewriter.changed:
            return any_change
        any_change = True
    raise norm.ctx.error("objects nested too deeply to compile", fn)


def pending(norm, fn):
    """Is an object still named in ``fn`` (a call taking it, to be inlined)?"""
    held = set(norm.ctx.objects) | set(norm.ctx.object_lists)
    return bool(held) and any(isinstance(n, gast.Name) and n.id in held
                              for s in fn.body for n in T.walk(s))


def check_escapes(norm, fn):
    """After the last round: nothing may still use an object as a value."""
    objects = norm.ctx.objects
    if not objects:
        return
    for s in _outside_closures(fn.body):
        for node in _own_nodes(s):
            if isinstance(node, gast.Name) and node.id in objects:
                raise _escape(norm, s, node.id)
            if isinstance(node, gast.Name) and node.id in norm.ctx.object_lists:
                raise norm.ctx.error(
                    f"the list of objects `{_user(norm, node.id)}` is used here other than "
                    "by a constant index, a loop over it, len() or a comprehension", s,
                    "read its objects by constant indices or loop over it")
    for name, o in objects.items():
        for attr, stmt in o.read.items():
            if attr not in o.set and _class_default(o.cls, attr) is MISSING:
                raise norm.ctx.error(
                    f"`{_user(norm, name)}.{attr}` is read, but no statement sets it", stmt,
                    f"set `self.{attr}` in `{o.cls.__qualname__}.__init__`")


def made_for_outputs(ctx, outputs):
    """Statements making, at the end of a tape block, the objects it built that its
    variables ``outputs`` name, and those their attributes hold (each once, however
    many hold it): the user's code after the block reads real objects."""
    def root(name):
        while name in ctx.object_aliases:
            name = ctx.object_aliases[name]
        return name if name in ctx.objects else None

    order, todo = [], [r for r in map(root, outputs) if r is not None]
    while todo:
        name = todo.pop()
        if name in order:
            continue
        order.append(name)
        todo += [r for r in map(root, ctx.objects[name].fields.values()) if r is not None]
    made = [T.assign(n, T.expr("_sg.new_object(cls)", cls=ctx.constant(ctx.objects[n].cls)))
            for n in order]
    for n in order:
        o = ctx.objects[n]
        attrs = sorted(o.set)
        values = [T.name(root(o.fields[a]) or o.fields[a]) for a in attrs]
        made.append(T.stmt("_sg.set_attributes(obj, names, values)", obj=n,
                           names=T.const(tuple(attrs)), values=gast.Tuple(values, gast.Load())))
    aliases = [T.assign(n, T.name(root(n))) for n in outputs
               if root(n) is not None and root(n) != n]
    return made + aliases


def _outside_closures(body):
    """The statements of ``body``, nested blocks too, but not those of the defs that read
    objects and are only called (``_Rewrite._nested_def``: inlined where they are)."""
    for s in body:
        if getattr(s, "sg_reads_objects", False):
            continue
        yield s
        if isinstance(s, gast.FunctionDef):
            yield from _outside_closures(s.body)
        for field in ("body", "orelse"):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                yield from _outside_closures(getattr(s, field))


def _loads_of(body, name):
    """(parent, node) of each read of ``name`` in ``body``."""
    for s in body:
        for parent in T.walk(s):
            for child in gast.iter_child_nodes(parent):
                if isinstance(child, gast.Name) and child.id == name \
                        and isinstance(child.ctx, gast.Load):
                    yield parent, child


def _own_nodes(s):
    """The expressions of statement ``s``, not of the statements nested in it."""
    if isinstance(s, (gast.If, gast.While)):
        return gast.walk(s.test)
    if isinstance(s, gast.For):
        return [*gast.walk(s.target), *gast.walk(s.iter)]
    return gast.walk(s)


def _user(norm, name):
    return norm.ctx.in_user_names(name)


def _escape(norm, stmt, name):
    o = norm.ctx.objects[name]
    return norm.ctx.error(
        f"the `{o.cls.__qualname__}` object `{_user(norm, name)}` (built at {o.where}) is used "
        "as a value here: srcgrad compiles an object built in differentiated code into its "
        "attributes, which only its methods, properties and attribute reads and writes "
        "(and functions it is passed to) can use", stmt,
        "pass the attributes the code needs (obj.x) rather than the object, or build the "
        "object outside the differentiated function")


def _class_default(cls, attr):
    value = inspect.getattr_static(cls, attr, MISSING)
    if value is MISSING or callable(value) or hasattr(type(value), "__get__"):
        return MISSING
    return value


class _Rewrite(gast.NodeTransformer):
    """One sweep over a body: objects built are expanded, names for them followed,
    attributes and members of them rewritten."""

    def __init__(self, norm, fn):
        self.norm = norm
        self.ctx = norm.ctx
        self.objects = norm.ctx.objects
        self.aliases = norm.ctx.object_aliases
        self.counts = _binding_counts(fn.body)
        self.fn = fn
        self.changed = False
        self.cur = None
        self._note_aliases(fn.body)
        self.mutated = self._mutated_fields(fn.body)

    def _mutated_fields(self, body):
        """(object, attribute) of each ``obj.attr.append(v)`` (a method changing what the
        attribute holds), ``obj.attr[i] = v`` or ``obj.attr += v`` in ``body``."""
        found = set()
        for n in T.walk(gast.Module(body, [])):
            held = None
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                    and n.func.attr in MUTATORS:
                held = n.func.value
            elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
                held = n.value
            elif isinstance(n, gast.AugAssign):
                held = n.target
            if isinstance(held, gast.Attribute) and isinstance(held.value, gast.Name):
                root = self._root(held.value.id)
                if root is not None:
                    found.add((root, held.attr))
        return found

    # -- names for objects -------------------------------------------------
    def _root(self, name):
        seen = set()
        while name in self.aliases and name not in seen:
            seen.add(name)
            name = self.aliases[name]
        return name if name in self.objects else None

    def _note_aliases(self, body):
        """``t = obj`` (``self`` bound by an inlined method, ``sim = pend``): ``t`` is
        another name for the object, if nothing else binds it."""
        grew = True
        while grew:
            grew = False
            for s in walk_stmts(body):
                if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                        and isinstance(s.targets[0], gast.Name)
                        and isinstance(s.value, gast.Name)):
                    continue
                t = s.targets[0].id
                root = self._root(s.value.id) or object_lists.list_root(self, s.value.id)
                if root is None or t in self.aliases or t in self.objects:
                    continue
                if self.counts.get(t, 0) != 1:
                    cls = self.objects[root].cls.__qualname__ if root in self.objects \
                        else "list of"
                    raise self.ctx.error(
                        f"`{_user(self.norm, t)}` is bound to the `{cls}` "
                        "object built here and to other values: srcgrad compiles such an object "
                        "into its attributes, and needs each name for it bound once", s,
                        "use a new name for each object and each other value")
                self.aliases[t] = root
                grew = True

    def _own_partials(self, s):
        """``functools.partial(f, x)`` and ``np.vectorize(f)`` built here: objects of
        ``rewrites.partial`` and ``rewrites.vectorize``, plain classes (the standard
        library's and NumPy's are not: written in C, or calling ``f`` from C)."""
        if isinstance(s, (gast.If, gast.While, gast.For, gast.FunctionDef)):
            return
        for n in T.walk(s):
            if not (isinstance(n, gast.Call) and isinstance(n.func, (gast.Name, gast.Attribute))):
                continue
            made = self.norm.scope.value(n.func)
            for library, own in ((functools.partial, rewrites.partial),
                                 (np.vectorize, rewrites.vectorize)):
                if among(made, library):
                    n.func = T.name(self.ctx.inject_once(own, own.__name__))
                    self.changed = True

    # -- statements --------------------------------------------------------
    def block(self, stmts):
        out = []
        for s in stmts:
            out += self.stmt(s)
        return out

    def stmt(self, s):
        self.cur = s
        self._own_partials(s)
        if isinstance(s, (gast.Assign, gast.Expr, gast.Return)) and s.value is not None:
            hoisted = []
            value = self._hoisted(s, s.value, hoisted)
            if hoisted:
                s.value = value
                self.changed = True
                return self.block(hoisted + [s])
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name):
            t = s.targets[0].id
            if isinstance(s.value, gast.Name) and (
                    self._root(s.value.id) is not None and self._root(t) is not None
                    or object_lists.list_root(self, s.value.id) is not None
                    and object_lists.list_root(self, t) is not None):
                self.changed = True
                return []  # another name for the object: read as the object's
            built = self._built(s)
            if built is not None:
                self.changed = True
                return built
            roots = object_lists.display_of_objects(self, s)
            if roots is not None:  # ``layers = [dense, dense_2]``: a name for them
                self.ctx.object_lists[t] = roots
                self.changed = True
                return []
        if isinstance(s, (gast.If, gast.While)):
            s.test = self.visit(s.test)
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
            return [s]
        if isinstance(s, gast.For):
            s.iter = self.visit(s.iter)
            unrolled = object_lists.unrolled(self, s)
            if unrolled is not None:
                return self.block(unrolled)
            s.target = self.visit(s.target)
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
            return [s]
        if isinstance(s, gast.FunctionDef):
            return [self._nested_def(s)]
        s = self.visit(s)
        self._check_no_bound_method(s)
        return [s]

    def _nested_def(self, s):
        """A def nested in the code reading an object built there (a closure over it,
        ``def scaled(v): return self.k * v``): its reads of the object's attributes
        read their locals, as a lambda's do (closures over those locals: the same late
        binding), where it only reads them and is only called (inlined where it is).
        Refused where it writes one, or is used as a value (it would run elsewhere)."""
        held = set(self.objects) | set(self.aliases) | set(self.ctx.object_lists)
        captured = free_names(s) & held
        if not captured:
            return s
        writes = any(isinstance(n, (gast.Attribute, gast.Subscript))
                     and isinstance(n.ctx, (gast.Store, gast.Del)) and root_id(n) in held
                     for n in T.walk(s))
        if writes or not self._only_called(s.name):
            self._check_not_captured(s)
        s.body = [self.visit(x) for x in s.body]
        s.sg_reads_objects = True  # (inlined where called: its own uses are not escapes)
        self._check_no_bound_method(s)
        return s

    def _check_no_bound_method(self, s):
        """A method of a built object left as a value in ``s`` (not called): refused."""
        if any(isinstance(n, _Bound) for n in T.walk(s)):
            raise self.ctx.error("a method of an object built in differentiated code, used as "
                                 "a value (not called), is not supported", s,
                                 "call it where it is read, or wrap it: lambda v: obj.m(v)")

    def _only_called(self, name, depth=3):
        """Is ``name`` (a def) only called, directly, item by item through ``map``, or
        under another name bound to it (``f = lambda v: ...`` is ``def`` and ``f = ``)?"""
        for parent, n in _loads_of(self.fn.body, name):
            if isinstance(parent, gast.Call) and (parent.func is n or parent.args and (
                    parent.args[0] is n and among(self.norm.scope.value(parent.func),
                                                  builtins.map))):
                continue
            if depth and isinstance(parent, gast.Assign) and parent.value is n \
                    and len(parent.targets) == 1 and isinstance(parent.targets[0], gast.Name) \
                    and self.counts.get(parent.targets[0].id) == 1 \
                    and self._only_called(parent.targets[0].id, depth - 1):
                continue
            return False
        return True

    def _check_not_captured(self, node):
        """A def (or lambda) reading an object, or a list of them, from the code around it
        would read a name the object never has: refused (its attributes are locals that
        only the code of their own function rewrites)."""
        held = set(self.objects) | set(self.aliases) | set(self.ctx.object_lists)
        for name in sorted(free_names(node) & held):
            root = self._root(name) or object_lists.list_root(self, name) or name
            raise self.ctx.error(
                f"a function defined in differentiated code that reads the object "
                f"`{_user(self.norm, root)}` built there (a closure over it) is not supported",
                self.cur, "pass the attribute values it needs as arguments, or make it a "
                "method of the object's class")

    def visit_Lambda(self, node):
        # Reads only (a lambda assigns nothing): its reads of the object's attributes
        # are the locals', as the lambda runs; a parameter named like the object is not.
        held = set(self.objects) | set(self.aliases) | set(self.ctx.object_lists)
        if {a.id for a in node.args.args + node.args.kwonlyargs} & held:
            self._check_not_captured(node)
        return self.generic_visit(node)

    def _allocation(self, node):
        if not isinstance(node, gast.Call):
            return False
        cls = self.norm.scope.value(node.func)
        return isinstance(cls, type) and not is_library(cls) and cls.__module__ != "builtins" \
            and plain_class(cls) is None

    def _hoisted(self, s, expr, out):
        """``expr`` with its calls up to the last object it builds bound to names first
        (``t = Model(W)`` before ``t.loss(x)``), in the order Python makes them; ``expr``
        itself if it builds none, or if a read comes before one (``x[0] + Acc(x).run()``,
        where the call could change what ``x[0]`` read)."""
        order = list(_evaluation_order(expr))
        built = [i for i, n in enumerate(order) if self._allocation(n)]
        if not built or (order[built[-1]] is expr and isinstance(s, gast.Assign)
                         and isinstance(s.targets[0], gast.Name)):
            return expr
        before = order[:built[-1] + 1]
        calls = {id(n) for n in before if isinstance(n, gast.Call)}
        inside = {id(d) for n in before if id(n) in calls for d in gast.walk(n)}
        if any(id(n) not in inside and not isinstance(n, _PURE) for n in before):
            return expr
        hint = self.ctx.result_hint if isinstance(s, gast.Return) else "t"

        class Hoist(gast.NodeTransformer):
            def visit_Call(inner, node):
                inner.generic_visit(node)
                if id(node) not in calls:
                    return node
                t = self.ctx.namer.fresh(_hint_of(node, hint))
                out.append(anno.like(T.assign(t, node), s))
                return T.name(t)

        return Hoist().visit(expr)

    def _built(self, s):
        """``name = Cls(args)`` of a plain class, bound once and used only as an object:
        the object noted, the class's attribute defaults it uses and ``__init__`` inlined."""
        call, name = s.value, s.targets[0].id
        if not isinstance(call, gast.Call) or name in self.objects:
            return None
        cls = self.norm.scope.value(call.func)
        if not isinstance(cls, type) or is_library(cls) or cls.__module__ == "builtins":
            return None
        why = plain_class(cls)
        as_object = why is not None and plain_class(cls, records=False) is None \
            and self._dataclass_object(name, cls)
        if why is not None and not as_object or self.counts.get(name, 0) != 1 \
                or self._escapes(name):
            return None
        o = anno.origin(s)
        self.objects[name] = Obj(cls, o.short() if o else "?")
        self.ctx.guards.attribute(cls, "__init__", getattr(cls, "__init__"))
        init = inspect.getattr_static(cls, "__init__")
        if as_object:
            init, call = dataclass_objects.init(self.norm, cls, call, s)
        out = []
        if init is object.__init__:
            if call.args or call.keywords:
                raise self.ctx.error(f"`{cls.__qualname__}()` takes no arguments", s)
        else:
            self.norm.cur = self.ctx.cur = s
            inline.inline(self.norm, init, T.name(name), call, out, None)
        return self._defaults(name, cls, s) + out

    def _dataclass_object(self, name, cls):
        """Is ``name = Cls(...)`` of a dataclass one to keep as its attributes: a
        dataclass whose objects are not records (``__post_init__``), or one this object
        of which the code changes (``state.t = t + dt``, a method setting ``self.v``)?
        Other dataclasses stay records, values the code may return or keep in lists."""
        if not dataclass_objects.supported(cls):
            return False
        if trees.record_fields(cls) is None:
            return True
        names = handed_on({name}, object_lists.name_copies(self.fn.body))

        def of_object(n):
            return isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name) \
                and n.value.id in names

        for s in walk_stmts(self.fn.body):
            targets = s.targets if isinstance(s, gast.Assign) else \
                [s.target] if isinstance(s, gast.AugAssign) else []
            if any(of_object(n) and isinstance(n.ctx, gast.Store)
                   for t in targets for n in T.walk(t)):
                return True  # ``state.t = ...``
            if any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
                   and n.func.attr in MUTATORS and of_object(n.func.value)
                   for n in _own_nodes(s)):
                return True  # ``state.history.append(v)``
        return dataclass_objects.methods_set_attributes(self.norm, cls)

    def _defaults(self, name, cls, s):
        """Each class attribute an instance may read before setting it
        (``count = 0`` then ``self.count += 1``): its field starts as the class's."""
        out = []
        for k in reversed(cls.__mro__[:-1]):
            for attr, value in vars(k).items():
                if attr.startswith("__") or _class_default(cls, attr) is MISSING:
                    continue
                if not isinstance(value, _IMMUTABLE):
                    continue  # (a shared list or array: read as the class's own, below)
                field = self._field(name, attr)
                self.ctx.guards.attribute(cls, attr, value)
                out.append(anno.like(T.assign(field, self._class_value(cls, attr, value)), s))
                self.objects[name].set.add(attr)
        return out

    def _escapes(self, name):
        """Is the object ``name`` would hold used, in the body as it is now, other than as
        an object (attributes, methods, calls of code that is inlined, other names)?"""
        names = handed_on({name}, object_lists.name_copies(self.fn.body))
        for s in walk_stmts(self.fn.body):
            for parent in _own_nodes(s):
                for child in gast.iter_child_nodes(parent):
                    if isinstance(child, gast.Name) and child.id in names \
                            and not self._object_use(parent, child, s):
                        return True
        return False

    def _object_use(self, parent, child, s):
        if isinstance(parent, gast.Attribute):
            return True
        if isinstance(parent, gast.Call):
            if parent.func is child:
                return True
            fn = self.norm.scope.value(parent.func)
            if among(fn, isinstance, getattr, setattr):
                return parent.args and parent.args[0] is child
            return fn is MISSING or isinstance(fn, (types.FunctionType, types.MethodType, type)) \
                and not is_library(fn)
        if isinstance(parent, gast.keyword):
            return True  # (its call is looked at as the keyword's parent's)
        if isinstance(parent, gast.Assign):
            return parent.value is child or child in parent.targets
        if isinstance(parent, gast.Compare):
            return isinstance(parent.ops[0], (gast.Is, gast.IsNot))
        if isinstance(parent, (gast.List, gast.Tuple)) and s is not None:
            # ``layers = [dense, dense_2]`` used only as object_lists.py rewrites
            return isinstance(s, gast.Assign) and s.value is parent and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) \
                and self.counts.get(s.targets[0].id, 0) == 1 \
                and all(isinstance(e, gast.Name) for e in parent.elts) \
                and object_lists.list_kept(self, s.targets[0].id, s)
        return False

    # -- expressions -------------------------------------------------------
    def visit_Name(self, node):
        root = self._root(node.id) or object_lists.list_root(self, node.id)
        if root is not None and root != node.id:
            self.changed = True
            return gast.Name(root, node.ctx, None, None)
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, gast.Name) and object_lists.list_root(self, node.value.id) \
                and object_lists.constant_index(node.slice) is not None:
            return object_lists.item(self, node)
        return node

    def visit_ListComp(self, node):
        shown = object_lists.displayed(self, node)
        return self.visit(shown) if shown is not None else self.generic_visit(node)

    visit_GeneratorExp = visit_ListComp

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot)):
            sides = [node.left, node.comparators[0]]
            if any(isinstance(e, gast.Name) and e.id in self.objects for e in sides) \
                    and any(isinstance(e, gast.Constant) and e.value is None for e in sides):
                self.changed = True  # an object is never None
                return T.const(isinstance(node.ops[0], gast.IsNot))
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.value, gast.Call) and isinstance(node.value.func, gast.Name) \
                and node.value.func.id == "super" and len(node.value.args) == 2:
            return self._super_member(node)
        if not (isinstance(node.value, gast.Name) and node.value.id in self.objects):
            return node
        name, attr = node.value.id, node.attr
        o = self.objects[name]
        member = inspect.getattr_static(o.cls, attr, MISSING)
        self.ctx.guards.attribute(o.cls, attr, getattr(o.cls, attr, MISSING))
        store = isinstance(node.ctx, gast.Store)
        if member is not MISSING and _class_default(o.cls, attr) is MISSING:
            if store:
                raise self.ctx.error(
                    f"assigning `{_user(self.norm, name)}.{attr}`, which `{o.cls.__qualname__}` "
                    "defines as a method or property, is not supported", self.cur,
                    "give the attribute another name")
            return self._member(name, o, attr, member)
        self.changed = True
        if store:
            o.set.add(attr)
        else:
            o.read.setdefault(attr, self.cur)
            if attr not in o.set and attr not in o.fields and member is not MISSING:
                # A class attribute no statement sets on the object: the class's own.
                if not isinstance(member, _IMMUTABLE) and (self._root(name), attr) in self.mutated:
                    raise self.ctx.error(
                        f"`{_user(self.norm, name)}.{attr}` is the list or array "
                        f"`{o.cls.__qualname__}.{attr}` the class holds for every instance, "
                        "changed in place here: srcgrad reads a class's attributes as they "
                        "were when compiling, and cannot follow writes into one shared by "
                        "objects", self.cur,
                        f"give each object its own: `self.{attr} = []` in `__init__`")
                return self._class_value(o.cls, attr, member)
        return gast.Name(self._field(name, attr), node.ctx, None, None)

    def _class_value(self, cls, attr, value):
        """A class's attribute as the code reads it: a float read when the code runs
        (the guards check a float's type only: ``C.k = 5.0`` between calls reuses the
        code), anything else as the constant the code is compiled for."""
        if isinstance(value, (float, complex, np.floating, np.complexfloating)):
            return T.expr("getattr(c, a)", c=T.name(self.ctx.inject_once(cls, "cls")),
                          a=T.const(attr))
        return self.ctx.constant(value)

    def _field(self, name, attr):
        o = self.objects[name]
        if attr not in o.fields:
            o.fields[attr] = self.ctx.namer.fresh(f"{name}_{attr}")
            self.ctx.note_renames({f"{_user(self.norm, name)}.{attr}": o.fields[attr]})
        return o.fields[attr]

    def _member(self, name, o, attr, member):
        """``obj.method`` (called), ``obj.prop``, a static or class method: the function
        called with the object as ``self``, for the normalizer to inline."""
        self.changed = True
        if isinstance(member, property):
            if member.fget is None or is_library(member.fget):
                raise self.ctx.error(f"property `{attr}` of `{o.cls.__qualname__}` has no "
                                     "Python getter", self.cur)
            return gast.Call(self._inject(member.fget), [T.name(name)], [])
        if isinstance(member, staticmethod):
            return _Bound(self._inject(member.__func__), [])
        if isinstance(member, classmethod):
            return _Bound(self._inject(member.__func__), [self.ctx.constant(o.cls)])
        if isinstance(member, types.FunctionType) and not is_library(member):
            return _Bound(self._inject(member), [T.name(name)])
        raise self.ctx.error(f"attribute `{attr}` of `{o.cls.__qualname__}` "
                             f"(a `{type(member).__name__}`) is not supported on an object "
                             "built in differentiated code", self.cur)

    def _inject(self, fn):
        return T.name(self.ctx.inject(fn, fn.__name__))

    def _super_member(self, node):
        """``super(Cls, obj).m``, what an inlined ``super().m`` becomes (inline.py)."""
        start, obj = node.value.args
        cls = self.norm.scope.value(start)
        if not (isinstance(obj, gast.Name) and obj.id in self.objects) or not isinstance(cls, type):
            return node
        o = self.objects[obj.id]
        mro = o.cls.__mro__
        for k in mro[mro.index(cls) + 1:]:
            if node.attr in vars(k):
                member = vars(k)[node.attr]
                if member is object.__init__:
                    self.changed = True
                    return _Bound(None, [])  # nothing to do
                return self._member(obj.id, o, node.attr, member)
        raise self.ctx.error(f"`super().{node.attr}` of `{o.cls.__qualname__}` is not found",
                             self.cur)

    def visit_Call(self, node):
        func = node.func
        root = self._root(func.id) if isinstance(func, gast.Name) else None
        if root is not None:
            # ``obj(x)``: its class's ``__call__``
            self.generic_visit(node)
            o = self.objects[root]
            member = inspect.getattr_static(o.cls, "__call__", MISSING)
            if member is MISSING:
                raise self.ctx.error(f"a `{o.cls.__qualname__}` object is not callable", self.cur)
            bound = self._member(root, o, "__call__", member)
            return gast.Call(bound.func, bound.first + node.args, node.keywords)
        fn = self.norm.scope.value(func) if isinstance(func, gast.Name) else MISSING
        if fn is len and len(node.args) == 1 and isinstance(node.args[0], gast.Name) \
                and object_lists.list_root(self, node.args[0].id):
            self.changed = True
            return T.const(len(self.ctx.object_lists[object_lists.list_root(
                self, node.args[0].id)]))
        if among(fn, getattr, setattr, isinstance) and node.args \
                and isinstance(node.args[0], gast.Name) and self._root(node.args[0].id):
            return self._builtin_on_object(fn, node)
        self.generic_visit(node)
        if isinstance(node.func, _Bound):
            b = node.func
            if b.func is None:  # ``super().__init__()`` reaching ``object``
                return T.const(None)
            return gast.Call(b.func, b.first + node.args, node.keywords)
        return node

    def _builtin_on_object(self, fn, node):
        self.changed = True
        root = self._root(node.args[0].id)
        if fn is isinstance:
            cls = self.norm.scope.value(node.args[1]) if len(node.args) == 2 else MISSING
            if cls is MISSING:
                raise self.ctx.error("isinstance of an object built in differentiated code "
                                     "needs a class known when compiling", self.cur)
            return T.const(isinstance(self.objects[root].cls, type) and
                           issubclass(self.objects[root].cls, cls))
        attr = node.args[1] if len(node.args) > 1 else None
        if not (isinstance(attr, gast.Constant) and isinstance(attr.value, str)) \
                or fn is getattr and len(node.args) != 2 or fn is setattr and len(node.args) != 3:
            raise self.ctx.error(f"`{fn.__name__}` of an object built in differentiated code "
                                 "needs the attribute's name as a string constant", self.cur)
        if fn is getattr:
            return self.visit(gast.Attribute(T.name(root), attr.value, gast.Load()))
        raise self.ctx.error("`setattr` on an object built in differentiated code is not "
                             "supported", self.cur, f"write `{_user(self.norm, root)}."
                             f"{attr.value} = ...`")


class _Bound(gast.AST):
    """A member read off an object, before its call is seen: the function and the
    arguments that go first (the object, or its class)."""

    _fields = ()

    def __init__(self, func, first):
        super().__init__()
        self.func, self.first = func, first


# What may be evaluated before an object is built without the order mattering.
_PURE = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Tuple, gast.List,
         gast.expr_context, gast.operator, gast.unaryop, gast.keyword)
# Expressions that run part of what they hold only sometimes, or later.
_BARRIERS = (gast.BoolOp, gast.IfExp, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
             gast.GeneratorExp, gast.Dict, gast.Starred, gast.NamedExpr)


def _evaluation_order(node):
    """The parts of ``node`` in the order Python finishes evaluating them (the operands
    before the operation); a barrier is one part, its insides not looked into."""
    if not isinstance(node, _BARRIERS):
        for child in gast.iter_child_nodes(node):
            yield from _evaluation_order(child)
    yield node


def _hint_of(call, default):
    f = call.func
    name = f.id if isinstance(f, gast.Name) else f.attr if isinstance(f, gast.Attribute) \
        else default
    return name.lower() if name[:1].isupper() else default


def _binding_counts(body):
    counts = {}
    for s in walk_stmts(body):
        targets = s.targets if isinstance(s, gast.Assign) else \
            [s.target] if isinstance(s, gast.For) else []
        for t in targets:
            for n in _bound(t):
                counts[n] = counts.get(n, 0) + 1
    return counts


def _bound(target):
    """The names an assignment target binds (not those of ``a.x`` or ``a[i]``)."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, gast.Starred):
        return _bound(target.value)
    if isinstance(target, (gast.Tuple, gast.List)):
        return [n for e in target.elts for n in _bound(e)]
    return []
