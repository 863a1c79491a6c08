"""The state of one program being generated: emitted lines, scopes, names."""
import re
from contextlib import contextmanager

from .exprs import ADD, E, MUL, Exprs, par
from .scope import Scope, Var, broadcast_operand_shapes, broadcasts_to

# Variable names in the order they are handed out, so that programs read
# a, b, c ...; loop counters have their own pool.
NAMES = ("a", "b", "c", "d", "g", "h", "m", "n", "p", "q", "r", "s", "t", "u", "v", "w")
COUNTERS = ("i", "j", "k")


class Ctx:
    def __init__(self, rng, active):
        self.rng = rng
        self.active = frozenset(active)  # the families this program may use
        self.used = set()                # the families it did use
        self.scope = Scope(function=True)
        self.lines = []
        self.indent = 1
        self.count = 0                   # statements emitted into f, nested ones included
        self.reads = set()
        self.read_log = None             # names read while generating a closure body
        self.wanted = []                 # names the return value should read
        self.captured = set()            # names some closure reads: their shape is fixed
        self.frozen = set()              # names a loop being generated iterates over: a body
                                         # that rebinds or updates them is rebind_loop's test
        self.params = set()              # rebinding one is rebind_param's test
        self.helpers = []                # module-level function definitions (source)
        self._names = 0
        self._counters = 0
        self._functions = 0
        self.exprs = Exprs(self)

    # ---------------------------------------------------------------- families

    def on(self, feature):
        return feature in self.active

    def use(self, feature):
        self.used.add(feature)

    # ---------------------------------------------------------------- names

    def fresh_name(self):
        k = self._names
        self._names += 1
        return NAMES[k] if k < len(NAMES) else f"v{k - len(NAMES) + 1}"

    def fresh_counter(self):
        k = self._counters
        self._counters += 1
        return COUNTERS[k] if k < len(COUNTERS) else f"i{k - len(COUNTERS) + 1}"

    def fresh_function(self, prefix):
        self._functions += 1
        return f"{prefix}{self._functions}"

    def read(self, name):
        self.reads.add(name)
        if self.read_log is not None:
            self.read_log.append(name)
        return name

    def want(self, name):
        self.wanted.append(name)

    # ---------------------------------------------------------------- emitting

    def emit(self, line):
        self.lines.append("    " * self.indent + line)
        self.count += 1

    @contextmanager
    def block(self, header, function=False):
        """A compound statement: ``header`` and a body in a nested scope."""
        self.emit(header)
        outer, start = self.scope, len(self.lines)
        self.scope = Scope(outer, function)
        self.indent += 1
        try:
            yield
        finally:
            if len(self.lines) == start:
                self.emit("pass")
            self.indent -= 1
            self.scope = outer

    @contextmanager
    def module_function(self, header):
        """A module-level function: emitted into ``helpers``, seeing no local of f."""
        saved = self.lines, self.indent, self.scope, self.count
        self.lines, self.indent, self.scope = [header], 1, Scope(function=True)
        try:
            yield
        finally:
            self.helpers.append("\n".join(self.lines))
            self.lines, self.indent, self.scope, self.count = saved

    def bind(self, name, e):
        """Bind ``name`` to expression ``e`` (an ``E``) or a ``Var``."""
        if isinstance(e, E):
            for base in e.base:
                self.scope.mark_shared(base)
            e = Var(e.shape, e.owned, e.writable, shared=bool(e.base))
        self.rebinding(name)
        self.scope.bind(name, e)

    # ---------------------------------------------------------------- choices

    def pick(self, pred=lambda name, var: True):
        return self.exprs.pick_var(pred)

    def pick_array(self, pred=lambda name, var: True):
        """A variable holding a whole array (rank >= 1, not a container's item)."""
        return self.pick(lambda n, v: len(v.shape) >= 1 and not v.item and pred(n, v))

    def changeable(self, name, var):
        """``name`` may be rebound to a value like ``var`` here (or updated in place)."""
        if name in self.params and not self.on("rebind_param"):
            return False
        return name not in self.frozen and self.scope.can_rebind(name, var)

    def rebinding(self, name):
        """Record that ``name`` is being rebound (a family of its own for parameters)."""
        if name in self.params:
            self.use("rebind_param")

    def pick_shape(self):
        shapes = [v.shape for v in self.scope.visible().values()]
        if not shapes or self.rng.random() < 0.05:
            return self.rng.choice([(), (3,), (2, 3), (2,)])
        return self.rng.choice(shapes)

    def expr(self, shape, depth=None):
        if depth is None:
            depth = self.rng.choice([1, 2, 2, 3])
        return self.exprs.expr(shape, depth)

    def fresh_expr(self, shape, depth=None):
        """An expression that computes a new value (never a bare name or a view)."""
        e = self.expr(shape, depth)
        if e.base or not e.owned or not e.writable:
            e = E(f"{par(e, MUL)} * {self.rng.choice([0.5, 1.5, 2.0])}", shape, MUL)
        return e

    def reading(self, e, name):
        """``e``, combined with variable ``name`` unless it reads it already.

        Loop, comprehension and function bodies use their own variables this
        way: a body that ignores its loop variable tests little.
        """
        if re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", e.code):
            return e
        shape = self.scope.lookup(name).shape
        self.read(name)
        if broadcasts_to(shape, e.shape):
            return E(f"{par(e, ADD)} + {name}", e.shape, ADD)
        return E(f"{par(e, MUL)} * np.mean({name})", e.shape, MUL)

    def operand_shape(self, shape):
        """A shape that an in-place update of ``shape`` accepts."""
        if self.on("broadcast") and shape and self.rng.random() < 0.4:
            self.use("broadcast")
            return broadcast_operand_shapes(shape, self.rng)
        return self.rng.choice([shape, shape, ()])

    def summary(self, name, var):
        """A scalar term that reads ``name``, for return values."""
        v = self.read(name)
        if var.shape == ():
            return v if self.rng.random() < 0.6 else f"{v} * {self.rng.choice([0.5, 2.0])}"
        forms = [f"np.sum({v})", f"np.mean({v})", f"np.sum({v} * {v})"]
        if self.on("elementwise"):
            forms.append(f"np.sum(np.sin({v}))")
        return self.rng.choice(forms)

    def return_value(self):
        """The value of a ``return``: reads wanted and unread variables, and new ones."""
        visible = self.scope.visible()
        names = [n for n in self.wanted if n in visible]
        names += [n for n in visible if n not in self.reads]
        names += list(visible)[-2:]
        chosen = list(dict.fromkeys(names))[:4]
        return " + ".join(self.summary(n, visible[n]) for n in chosen)
