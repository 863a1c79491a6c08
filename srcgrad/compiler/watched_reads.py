"""Values a tape watches, read by a block from where they are stored.

TensorFlow matches tensors by identity: after ``w = model.w`` and
``tape.watch(w)``, the block's ``model.loss()`` reading ``self.w`` computes
with the watched value, and the gradient flows to it. srcgrad decides what is
differentiated when it compiles; a read from an object's attribute, a
container's item, a global or a closure cell is a source when the object it
gives at the block's entry is one the tape watches then (``note``).

Which reads those were is part of what the code was compiled for: each read
is kept as a locator (the holder, held weakly, and the key), and at each
entry ``pattern`` says which of them give a watched value now; another
pattern compiles again (``tape._Record._entry``).
"""
import types

import numpy as np

from ..ir.resolve import _weak
from ..passes.tape_blocks import PYTHON_NUMBERS
from ..variables import Variable

_GONE = object()
_ABSENT = object()  # (no entry: ``d.get(id(v), _ABSENT) is v`` is False for any v, None too)


class Locator:
    """Reads, now, the value a compiled read gives: ``path`` (("attr" | "item" | "cell",
    key) steps) from ``root``, a parameter of the block's code by name (its value at
    each entry) or an object (held weakly where it can be)."""

    __slots__ = ("param", "root", "path")

    def __init__(self, root, path, param=False):
        self.param = param
        self.root = root if param else _weak(root)
        self.path = tuple(path)

    def __call__(self, params):
        obj = params.get(self.root, _GONE) if self.param else self.root()
        try:
            for how, key in self.path:
                if obj is None or obj is _GONE:
                    return _GONE
                obj = getattr(obj, key) if how == "attr" else obj[key] if how == "item" \
                    else obj.cell_contents
        except Exception:  # (a property raising, an item gone): not what was compiled
            return _GONE
        return obj


# What a read is: a source, a value the block watches only later, or a watched Python
# number read from somewhere else than where it was watched (``AMBIGUOUS``: CPython makes
# equal constants one object, so it may be another value that is equal).
SOURCE, LATER, AMBIGUOUS = 1, 2, 3


class Watched:
    """The values a tape watches when a block starts (``start``; id -> value) and those
    the block watches only further on (``later``: a read of one before its watch is not
    differentiated, one after it is; where a read is cannot be told apart so simply,
    so such reads are refused)."""

    def __init__(self, start, later, numbers=None, containers=None):
        self.start, self.later = start, later
        # Python numbers watched at the start: id -> (number, the (root, path) of the
        # chains it was watched at: a read there is the watched value itself).
        self.numbers = numbers or {}
        # Lists, tuples and dicts watched whole at the start (``tape.watch(m.ws)``): a
        # read of one as a whole (``np.stack(self.ws)``) is a source, item by item.
        self.containers = containers or {}

    def __bool__(self):
        return bool(self.start or self.later or self.numbers or self.containers)

    def state(self, obj, locator=None):
        if type(obj) in PYTHON_NUMBERS:
            number, sites = self.numbers.get(id(obj), (None, ()))
            if number is not obj:
                return 0
            return SOURCE if locator is not None and _site(locator) in sites else AMBIGUOUS
        if self.start.get(id(obj), _ABSENT) is obj or self.containers.get(id(obj), _ABSENT) is obj:
            return SOURCE
        if self.later.get(id(obj), _ABSENT) is obj:
            return LATER
        return 0

    def holds(self, value):
        """Does ``value`` (a container or an object) hold a value watched at the start (a
        Python number watched there, ``tape.watch(hp["lam"])``, too)?"""
        return bool(self.start or self.numbers) and any(
            self.start.get(id(v)) is v or self.numbers.get(id(v), (None,))[0] is v
            for _, v in held_leaves(value, _DEPTH))

    def held_by(self, values):
        """The names of ``values`` (name -> value) that hold a value watched at the start:
        compiled code reads them as sources through static containers (``holds``), so
        which ones do is part of what it was compiled for."""
        return tuple((n, _layout(v, _DEPTH)) for n, v in values.items()
                     if type(v) is not np.ndarray and self.holds(v))

    def pattern(self, locators, params):
        """What each of the reads ``locators`` gives now (``params``: the values of the
        block's inputs, by name)."""
        return tuple(self.state(loc(params), loc) for loc in locators)


class Reads:
    """The reads of one compilation that may give a watched value."""

    def __init__(self, watched):
        self.watched = watched
        self.sites = {}  # (root, path) -> (Locator, its state when compiled)

    def note(self, locator, params):
        """A read the code makes (``Locator``): SOURCE, LATER or 0. ``params``: the values
        of the code's parameters when compiling."""
        site = (id(locator.root()) if not locator.param else locator.root, locator.path)
        found = self.sites.get(site)
        if found is None:
            obj = locator(params)
            if not isinstance(obj, _DATA) and self.watched.containers.get(id(obj), _ABSENT) is not obj:
                # (A function, a module, an object: the code's guards see to it that it
                # still is one when the code runs again.)
                return 0
            found = self.sites[site] = (locator, self.watched.state(obj, locator))
        return found[1]

    def locators(self):
        return tuple(loc for loc, _ in self.sites.values())

    def compiled_pattern(self):
        return tuple(state for _, state in self.sites.values())


class NestedReads:
    """What a nested tape's block watches on its first lines, of the outer block's inputs
    that still hold there what they held where it started (``inputs``) and of globals
    (``global_roots``; ``start``, ``chains``, ``later`` as ``at_entry`` takes them), and
    (``compiled_for``) the reads of its code that may give those: checked at each entry
    of the outer block as its own reads are."""

    def __init__(self, inputs, global_roots, start, chains, later, module_globals):
        self.global_roots = global_roots
        self.globals = module_globals
        self.spec = ({n for n in start if n in inputs or n in global_roots},
                     [c for c in chains if c.root in inputs or c.root in global_roots],
                     {n for n in later if n in inputs or n in global_roots})
        self.locators, self.compiled = (), ()

    def watched(self, values):
        """The ``Watched`` given the outer block's inputs ``values`` (name -> value)."""
        found = {n: self.globals[n] for n in self.global_roots if n in self.globals}
        found.update(values)
        return at_entry(found, *self.spec, ())

    def compiled_for(self, reads):
        self.locators = reads.locators()
        self.compiled = reads.compiled_pattern()
        return self

    def pattern(self, values):
        return self.watched(values).pattern(self.locators, values)


_DATA = (np.ndarray, Variable, float, int, complex, np.generic)  # what may be watched, now or later


def at_entry(values, start, chains, later, prewatched):
    """The values a block watches (``Watched``): ``prewatched`` (watched by earlier
    blocks) and the leaves of ``values[n]`` for the names ``start`` its first
    statements watch and of ``chain(values)`` for the attribute and item chains they
    watch (``Locator``s); from the names ``later`` only further on."""
    # (Python numbers are values, not objects one can watch by identity: equal ones are
    # often one object. A read of one is a source only where it was watched from,
    # ``tape.watch(p["s"])`` then ``p["s"]``; from elsewhere it is refused: hunt 12.)
    first = {id(v): v for v in prewatched if type(v) not in PYTHON_NUMBERS}
    numbers, containers = {}, {}
    for n in start:
        value = values.get(n, _GONE)
        if type(value) in (list, tuple, dict):
            containers[id(value)] = value
        if type(value) is np.ndarray:  # the common case, without the walk
            first[id(value)] = value
        elif type(value) in PYTHON_NUMBERS:
            numbers.setdefault(id(value), (value, set()))
        elif value is not _GONE:
            for leaf in _leaves(value, 3):
                if type(leaf) not in PYTHON_NUMBERS:
                    first[id(leaf)] = leaf
            # (A number in a watched list, ``tape.watch([p])``: a source where read
            # through that list, refused where read from anywhere else.)
            for path, leaf in _number_leaves(value, 3):
                numbers.setdefault(id(leaf), (leaf, set()))[1].update(
                    {(True, n, path), (False, id(value), path)})
    for chain in chains:
        value = chain(values)
        if type(value) in (list, tuple, dict):
            containers[id(value)] = value
        if type(value) in PYTHON_NUMBERS:
            # (Read there through the input's name, or through its object: a helper's.)
            holder = values.get(chain.root, _GONE)
            numbers.setdefault(id(value), (value, set()))[1].update(
                {(True, chain.root, chain.path), (False, id(holder), chain.path)})
            continue
        for leaf in _leaves(value, 3):
            if leaf is not _GONE and type(leaf) not in PYTHON_NUMBERS:
                first[id(leaf)] = leaf
    after = {id(leaf): leaf for n in later if n in values for leaf in _leaves(values[n], 3)
             if id(leaf) not in first and type(leaf) not in PYTHON_NUMBERS}
    return Watched(first, after, numbers, containers)


def _site(locator):
    """Where ``locator`` reads: (True, an input's name, path) or (False, id(object), path)."""
    if locator.param:
        return True, locator.root, locator.path
    return False, id(locator.root()), locator.path


_DEPTH = 4  # how deep ``holds`` and ``path_in`` look: ``model.layers[1].W``


def held_leaves(value, depth, path=()):
    """(path, leaf) of the items of lists, tuples and dicts and the attributes of objects
    in ``value``, ``depth`` levels deep (paths: ``Locator`` steps)."""
    t = type(value)
    if depth and (t is list or t is tuple):
        for i, v in enumerate(value):
            yield from held_leaves(v, depth - 1, path + (("item", i),))
    elif depth and t is dict:
        for k, v in value.items():
            yield from held_leaves(v, depth - 1, path + (("item", k),))
    elif depth and _is_holder(value):
        for k, v in vars(value).items():
            yield from held_leaves(v, depth - 1, path + (("attr", k),))
    elif isinstance(value, _DATA):
        yield path, value


def _is_holder(obj):
    """An object whose attributes may hold watched values (a layer, a model)."""
    return type(getattr(obj, "__dict__", None)) is dict and not isinstance(
        obj, (type, types.ModuleType, types.FunctionType, types.MethodType, Variable))


def _layout(value, depth):
    """The lengths and keys of a container's lists, tuples and dicts: loops over one
    holding watched values are unrolled (``normalizer.unroll``)."""
    t = type(value)
    if depth and (t is list or t is tuple):
        return (t, tuple(_layout(v, depth - 1) for v in value))
    if depth and t is dict:
        return (t, tuple((k, _layout(v, depth - 1)) for k, v in value.items()))
    return None


def path_in(values, obj):
    """A ``Locator`` from one of ``values`` (name -> value) to ``obj``, or None."""
    for name, value in values.items():
        for path, leaf in held_leaves(value, _DEPTH):
            if leaf is obj and path:
                return Locator(name, path, param=True)
    return None


def _number_leaves(value, depth, path=()):
    """(path, number) of the Python numbers ``_leaves`` gives (paths: ``Locator`` steps)."""
    if type(value) in (list, tuple) and depth:
        for i, v in enumerate(value):
            yield from _number_leaves(v, depth - 1, path + (("item", i),))
    elif type(value) is dict and depth:
        for k, v in value.items():
            yield from _number_leaves(v, depth - 1, path + (("item", k),))
    elif type(value) in PYTHON_NUMBERS:
        yield path, value


def _leaves(value, depth):
    if type(value) in (list, tuple) and depth:
        for v in value:
            yield from _leaves(v, depth - 1)
    elif type(value) is dict and depth:
        for v in value.values():
            yield from _leaves(v, depth - 1)
    elif not isinstance(value, (types.ModuleType, types.FunctionType)):
        yield value
