"""``object_f``: the program's state in an object of a plain class built inside it.

For ``def f(x, y): <body>`` the ``object`` form writes (an AST rewrite)::

    class ObjState:
        def __init__(self, x, y):
            self.x = x
            self.y = y

        def run(self):
            <body, each of f's variables read and written as self.<name>>


    def object_f(x, y):
        return ObjState(x, y).run()

The variables kept as attributes are f's parameters and the names f's own
scope binds by plain or augmented assignment. Loop targets, names of nested
functions, comprehension variables and the parameters and locals of nested
functions stay plain names (so does a name that is both a loop target and
assigned elsewhere, and a parameter that is a loop target: ``run`` reads it
into a local first). Nested functions, lambdas and comprehensions read the
attributes through the enclosing ``self``, which is the same late binding a
closure has.

The style is drawn from the program's name (``object_style``), so a failure
reproduces; the plain call of ``object_f`` must give exactly ``f``'s value
(the oracle checks it: a difference is a defect of this rewrite):

- ``entry``: the body in ``run(self)`` called on the object, in ``__call__``
  (``s()``), or in a module-level helper ``object_step(s)`` taking the object
  (``s.<name>``);
- ``bound``: the object bound to a name first (``s = ObjState(x, y)``) or used
  in the expression that builds it;
- ``subclass``: the object is of a subclass whose ``__init__`` calls
  ``super().__init__`` and sets one more attribute, and which holds the body;
- ``prop``: one attribute read goes through a property;
- ``part``: runs of statements moved into one to three more methods
  ``part(self)`` called from the body (a later one may contain the call of an
  earlier one: methods calling methods);
- ``keywords``: the object built with keyword arguments;
- ``box``: one variable kept in an object of another plain class held by an
  attribute (``self.box.a``), built by ``__init__``;
- ``dataclass``: the class (not a subclass, no box) is a ``@dataclasses.dataclass``
  whose fields are the parameters, with the ``__init__`` it generates.
"""
import ast
import copy
import random
from dataclasses import dataclass

ENTRIES = ("run", "call", "helper")


class Untransformable(Exception):
    """The program uses a construct the rewrite does not model."""


@dataclass(frozen=True)
class ObjectStyle:
    entry: str = "run"
    bound: bool = False
    subclass: bool = False
    prop: bool = False
    part: bool = False
    keywords: bool = False
    box: bool = False
    pick: int = 0   # which attribute read is the property's, which statements move
    dataclass: bool = False

    def __str__(self):
        words = [{"run": "s.run()", "call": "s()", "helper": "object_step(s)"}[self.entry],
                 "bound to a name" if self.bound else "built in the call",
                 "subclass calling super().__init__" if self.subclass else "",
                 "a property read" if self.prop else "",
                 f"up to {1 + self.pick % 3} more methods" if self.part else "",
                 "keyword arguments" if self.keywords else "",
                 "one variable in a boxed object" if self.box else "",
                 "a dataclass" if self.dataclass and not (self.box or self.subclass) else ""]
        return ", ".join(w for w in words if w)


def object_style(name):
    """The style of ``object_f`` for the program called ``name`` (deterministic)."""
    rng = random.Random(f"object:{name}")
    return ObjectStyle(rng.choice(ENTRIES), rng.random() < 0.5, rng.random() < 0.35,
                       rng.random() < 0.5, rng.random() < 0.5, rng.random() < 0.25,
                       rng.random() < 0.3, rng.randrange(1 << 16), rng.random() < 0.4)


def object_wrapper(f, style, taken=()):
    """Module text (classes, helper, ``object_f``) for ``f``, an ``ast.FunctionDef``;
    ``taken``: identifiers the module already uses. Raises ``Untransformable``."""
    f = copy.deepcopy(f)
    if (f.args.posonlyargs or f.args.kwonlyargs or f.args.vararg or f.args.kwarg
            or f.args.defaults or f.decorator_list):
        raise Untransformable("f has a signature other than plain positional parameters")
    params = [a.arg for a in f.args.args]
    used = set(taken) | _identifiers(f)
    fresh = _Fresh(used)
    cls, sub = fresh("ObjState"), fresh("ObjStateSub")
    this = "s" if style.entry == "helper" else "self"
    this = fresh(this) if this in used else this
    used.add(this)

    bound_plain, assigned = _bindings(f.body)
    attrs = (set(params) | assigned) - bound_plain
    plain_params = [p for p in params if p not in attrs]
    body = _Rename(attrs, this).block(f.body)
    body = [ast.parse(f"{p} = {this}.{p}").body[0] for p in plain_params] + body
    boxed, box, box_class = None, None, None
    if style.box and attrs:
        candidates = sorted(attrs)
        boxed = candidates[style.pick % len(candidates)]
        box, box_class = fresh("box"), fresh("ObjBox")
        for s in body:
            for n in ast.walk(s):
                if _is_self_attr(n, this) and n.attr == boxed:
                    n.value = ast.Attribute(ast.Name(this, ast.Load()), box, ast.Load())

    methods = []  # (name, text) of methods besides __init__
    if style.prop:
        prop = _property_read(body, this, fresh, style.pick)
        if prop:
            read = f"self.{box}.{prop[1]}" if prop[1] == boxed else f"self.{prop[1]}"
            methods.append((prop[0], f"@property\ndef {prop[0]}(self):\n    return {read}\n"))
    if style.part:  # one to three methods; a later one may take in an earlier one's call
        for k in range(1 + style.pick % 3):
            moved = _move_part(body, this, bound_plain | set(plain_params), fresh,
                               style.pick // 3 + k)
            if moved:
                name, part_body = moved
                methods.append((name, _def(name, ["self"], _rebind(part_body, this, "self"))))

    init = _def("__init__", ["self"] + params,
                ([f"self.{box} = {box_class}()"] if box else [])
                + [f"self.{box}.{p} = {p}" if p == boxed else f"self.{p} = {p}" for p in params])
    entry_name = {"run": fresh("run"), "call": "__call__", "helper": None}[style.entry]
    helpers = []
    if entry_name:
        entry = _def(entry_name, ["self"], _rebind(body, this, "self"))
    else:
        step = fresh("object_step")
        helpers.append(_def(step, [this], body))
        entry = None
    if style.subclass:
        extra = fresh("extra")
        sub_init = (f"def __init__(self, {', '.join(params)}):\n"
                    f"    super().__init__({', '.join(params)})\n"
                    f"    self.{extra} = 0.0\n")
        base = _class(cls, "", [init] + [t for _, t in methods])
        child = _class(sub, f"({cls})", [sub_init] + ([entry] if entry else []))
        classes = [base, child]
        made = sub
    elif style.dataclass and not box:
        fields = "\n".join(f"{p}: object" for p in params) or "pass"
        classes = ["@dataclasses.dataclass\n" + _class(
            cls, "", [fields] + [t for _, t in methods] + ([entry] if entry else []))]
        made = cls
    else:
        classes = [_class(cls, "", [init] + [t for _, t in methods] + ([entry] if entry else []))]
        made = cls
    args = ", ".join(f"{p}={p}" if style.keywords else p for p in params)
    build = f"{made}({args})"
    obj = fresh("obj")
    lines = [f"{obj} = {build}"] if style.bound else []
    target = obj if style.bound else build
    if style.entry == "run":
        lines.append(f"return {target}.{entry_name}()")
    elif style.entry == "call":
        lines.append(f"return {target}()")
    else:
        lines.append(f"return {step}({target})")
    wrapper = f"def object_f({', '.join(params)}):\n" + _indent("\n".join(lines)) + "\n"
    if box_class:
        classes.insert(0, f"class {box_class}:\n    pass\n")
    return "\n\n".join([f"# object_f: {style}\n" + classes[0]] + classes[1:] + helpers
                       + [wrapper])


# ---------------------------------------------------------------- scopes


def _identifiers(node):
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            names.add(n.id)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.Attribute):
            names.add(n.attr)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            names.update(n.names)
    return names


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _own(node):
    """The nodes of ``node``'s scope (``node`` a statement list's statement or an
    expression): nested scopes contribute only what their enclosing scope evaluates
    (defaults, decorators, a comprehension's first iterable)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo += n.decorator_list + n.args.defaults + [d for d in n.args.kw_defaults if d]
        elif isinstance(n, ast.Lambda):
            todo += n.args.defaults + [d for d in n.args.kw_defaults if d]
        elif isinstance(n, ast.ClassDef):
            todo += n.decorator_list + n.bases + [k.value for k in n.keywords]
        elif isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            todo.append(n.generators[0].iter)
            # (a walrus in a comprehension binds in the enclosing function)
            todo += [w for w in ast.walk(n) if isinstance(w, ast.NamedExpr)]
        else:
            todo += list(ast.iter_child_nodes(n))


def _targets(t):
    """The names an assignment target binds (not those ``a[i] = v`` reads)."""
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _targets(e)]
    if isinstance(t, ast.Starred):
        return _targets(t.value)
    return []


def _bindings(body):
    """(names the scope binds other than by assignment, names bound by assignment)
    for the statements ``body`` of one function scope."""
    plain, assigned = set(), set()
    for s in body:
        for n in _own(s):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    assigned.update(_targets(t))
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
                assigned.update(_targets(n.target))
            elif isinstance(n, (ast.For, ast.AsyncFor)):
                plain.update(_targets(n.target))
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                plain.add(n.name)
            elif isinstance(n, (ast.With, ast.AsyncWith)):
                for item in n.items:
                    if item.optional_vars is not None:
                        plain.update(_targets(item.optional_vars))
            elif isinstance(n, ast.ExceptHandler) and n.name:
                plain.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                plain.update((a.asname or a.name).split(".")[0] for a in n.names)
            elif isinstance(n, ast.NamedExpr):
                plain.update(_targets(n.target))
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                plain.update(n.names)
            elif isinstance(n, ast.Delete):
                for t in n.targets:
                    plain.update(_targets(t))
    for s in body:  # a name a nested function declares nonlocal stays a real local
        for n in ast.walk(s):
            if isinstance(n, ast.Nonlocal):
                plain.update(n.names)
    return plain, assigned


def _locals(node):
    """The names local to a nested scope ``node`` (function, lambda, comprehension)."""
    if isinstance(node, ast.ClassDef):
        raise Untransformable("a class defined inside f")
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = node.args
        names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        names |= {x.arg for x in (a.vararg, a.kwarg) if x}
        if isinstance(node, ast.Lambda):
            return names
        plain, assigned = _bindings(node.body)
        declared = set()
        for s in node.body:
            for n in _own(s):
                if isinstance(n, (ast.Global, ast.Nonlocal)):
                    declared.update(n.names)
        return (names | plain | assigned) - declared
    names = set()
    for g in node.generators:
        names.update(_targets(g.target))
    return names


class _Rename:
    """Every use of a name in ``attrs`` that resolves to f's scope becomes
    ``this.<name>``, in nested scopes too."""

    def __init__(self, attrs, this):
        self.attrs, self.this = attrs, this

    def block(self, body):
        return [self.node(s, self.attrs) for s in body]

    def node(self, n, visible):
        if isinstance(n, ast.Name):
            if n.id in visible:
                return ast.copy_location(
                    ast.Attribute(ast.Name(self.this, ast.Load()), n.id, n.ctx), n)
            return n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = visible - _locals(n)
            n.decorator_list = [self.node(d, visible) for d in n.decorator_list]
            self._defaults(n.args, visible)
            n.body = [self.node(s, inner) for s in n.body]
            return n
        if isinstance(n, ast.Lambda):
            self._defaults(n.args, visible)
            n.body = self.node(n.body, visible - _locals(n))
            return n
        if isinstance(n, ast.ClassDef):
            raise Untransformable("a class defined inside f")
        if isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            if any(isinstance(w, ast.NamedExpr) for w in ast.walk(n)):
                raise Untransformable("an assignment expression in a comprehension")
            inner = visible - _locals(n)
            first, *rest = n.generators
            first.iter = self.node(first.iter, visible)
            first.target = self.node(first.target, inner)
            first.ifs = [self.node(e, inner) for e in first.ifs]
            for g in rest:
                self._fields(g, inner)
            for field in ("elt", "key", "value"):
                if hasattr(n, field):
                    setattr(n, field, self.node(getattr(n, field), inner))
            return n
        self._fields(n, visible)
        return n

    def _defaults(self, a, visible):
        a.defaults = [self.node(d, visible) for d in a.defaults]
        a.kw_defaults = [d and self.node(d, visible) for d in a.kw_defaults]

    def _fields(self, n, visible):
        for field, value in ast.iter_fields(n):
            if isinstance(value, ast.AST):
                setattr(n, field, self.node(value, visible))
            elif isinstance(value, list):
                setattr(n, field, [self.node(v, visible) if isinstance(v, ast.AST) else v
                                   for v in value])


# ---------------------------------------------------------------- styles


class _Fresh:
    def __init__(self, used):
        self.used = used

    def __call__(self, base):
        name, k = base, 1
        while name in self.used:
            k += 1
            name = f"{base}{k}"
        self.used.add(name)
        return name


def _is_self_attr(n, this):
    return (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == this)


def _property_read(body, this, fresh, pick):
    """Replace one read of an attribute (in f's scope: not in a nested function, whose
    ``this`` might be rebound) by a property: (property name, attribute), or None."""
    reads = []   # (parent, field, position or None)
    for s in body:
        for n in _own(s):
            for field, value in ast.iter_fields(n):
                children = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
                reads += [(n, field, i) for i, c in children
                          if _is_self_attr(c, this) and isinstance(c.ctx, ast.Load)]
    if not reads:
        return None
    parent, field, i = reads[pick % len(reads)]
    attr = (getattr(parent, field) if i is None else getattr(parent, field)[i]).attr
    name = fresh(f"{attr}_value")
    new = ast.Attribute(ast.Name(this, ast.Load()), name, ast.Load())
    if i is None:
        setattr(parent, field, new)
    else:
        getattr(parent, field)[i] = new
    return name, attr


def _move_part(body, this, locals_, fresh, pick):
    """Move a run of statements of ``body`` that returns nowhere and shares no plain local
    with the statements outside it into a method; ``body`` gets the call. Returns
    (method name, moved statements), or None if no statement can move."""
    uses = []
    for s in body:
        names = {n.id if isinstance(n, ast.Name) else n.name for n in ast.walk(s)
                 if isinstance(n, (ast.Name, ast.FunctionDef, ast.AsyncFunctionDef))} & locals_
        returns = any(isinstance(n, ast.Return) for n in _own(s))
        uses.append((names, returns))
    runs = []
    for i in range(len(body)):
        for j in range(i + 1, len(body) + 1):
            if uses[j - 1][1]:
                break
            inside = set().union(*(u for u, _ in uses[i:j]))
            outside = set().union(set(), *(u for u, _ in uses[:i] + uses[j:]))
            if not inside & outside:
                runs.append((i, j))
    if not runs:
        return None
    i, j = runs[pick % len(runs)]
    name = fresh("part")
    moved = body[i:j]
    body[i:j] = [ast.parse(f"{this}.{name}()").body[0]]
    return name, moved


def _rebind(body, old, new):
    """``body`` with the object's name ``old`` renamed ``new`` (a copy)."""
    if old == new:
        return copy.deepcopy(body)
    body = copy.deepcopy(body)
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and n.id == old:
                n.id = new
    return body


def _def(name, params, body):
    """A function's text; ``body`` is text, or a list of statements (text or ``ast``)."""
    if isinstance(body, list):
        text = "\n".join(s if isinstance(s, str) else ast.unparse(ast.fix_missing_locations(s))
                          for s in body) or "pass"
    else:
        text = body
    return f"def {name}({', '.join(params)}):\n" + _indent(text) + "\n"


def _class(name, bases, members):
    return f"class {name}{bases}:\n" + "\n\n".join(_indent(m) for m in members) + "\n"


def _indent(text):
    return "\n".join("    " + line if line else line for line in text.splitlines())
