"""Compiled code per function and per kind of arguments, never stale, bounded.

A call computes the kinds of its arguments (float, which float dtype, which
class for objects), finds the entry compiled for those kinds and re-checks
its guards (``ir.resolve.Guards``: everything the compiler read from outside
the function, as it read it), then runs the generated code. Nothing is
parsed on that path.

Each cache (the entries of one function and ``wrt``, and the tape's blocks)
keeps at most ``CACHE_SIZE`` entries and forgets the least recently used;
an entry's generated source leaves ``linecache`` with its code. Functions
are held weakly: a lambda made and differentiated at each call is freed with
its entries.
"""
import builtins
import dataclasses
import inspect
import types
import weakref
from collections import OrderedDict

import numpy as np

from ..errors import CompileError
from ..runtime.complexes import is_complex
from ..runtime.strong import all_finite
from ..variables import Variable, check_plain_data
from ..ir.atoms import BY_IDENTITY, is_static_object, keyed_constant
from .. import trees
from ..ir.resolve import UNROLL_MAX
from ..passes.ranks import size_classes
from . import codegen
from .pipeline import compile_gradient


# Entries per cache; set it before the calls it should apply to.
CACHE_SIZE = 256


def remember(entries, key, entry):
    """Store ``entry`` in the OrderedDict ``entries``, forgetting the least recently used
    beyond ``CACHE_SIZE`` (a hit moves its key to the end)."""
    entries[key] = entry
    entries.move_to_end(key)
    while len(entries) > max(1, CACHE_SIZE):
        entries.popitem(last=False)


class _Same:
    """A cache-key part equal only for the same live object.

    Held weakly where Python allows it, so that a key does not keep a
    function alive; a dead key equals nothing and waits to be evicted.
    """

    __slots__ = ("ref", "hash")

    def __init__(self, obj):
        try:
            self.ref = weakref.ref(obj)
        except TypeError:
            self.ref = _Strong(obj)
        self.hash = id(obj)

    def __eq__(self, other):
        if not isinstance(other, _Same):
            return False
        obj = self.ref()
        return obj is not None and obj is other.ref()

    def __hash__(self):
        return self.hash


class _Strong:
    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __call__(self):
        return self.obj


def _kind(value):
    t = type(value)
    if t is np.ndarray:  # the usual argument, first
        return (t, value.dtype, value.ndim)
    if t is float:  # (and a Python number next: no record can be in it)
        return float
    if t in _HOLDERS or isinstance(value, tuple) or dataclasses.is_dataclass(t):
        # Where records are in it, and their classes (their fields are read as the
        # class's, its properties inlined: pipeline.note_records), nested too.
        records = trees.record_key(value)
        if records is not None:
            return ("records", records, _kind_of(value))
    return _kind_of(value)


_HOLDERS = frozenset((dict, list, tuple))


def _kind_of(value):
    t = type(value)
    if t is np.ndarray:
        return (t, value.dtype, value.ndim)  # the code depends on ranks (ranks.py)
    if t is float:
        return float
    if t is str and keyed_constant(value):  # a constant of the code
        return (str, value)
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.char)
    if t is dict:  # its keys: ``d.get(k)`` and dict comprehensions are compiled for them
        if len(value) <= UNROLL_MAX and _holds_objects(value.values()):
            # Reads of its Variables are sources, its objects' methods resolved: a
            # Variable where an array was, or another object, is other code.
            return (dict, tuple((k, _kind(v)) for k, v in value.items()))
        # (and a nested dict's: ``params["l1"].values()`` is compiled for its keys)
        nested = tuple((k, _kind_of(v)) for k, v in value.items() if type(v) is dict)
        return (dict, tuple(value), nested) if nested else (dict, tuple(value))
    if t is Variable:  # its rank (ranks.py) and whether a tape watches it are compiled in
        return (Variable, value.dtype.char, value.ndim, value.trainable)
    if unrolled(value):
        # Loops over it were unrolled (normalizer.unroll): one item more or less,
        # or another kind of item, is other code.
        return (t, tuple(_kind(v) for v in value))
    if t is tuple:  # ``f(*params)`` spreads as many items as it holds (structure.length)
        return (t, len(value))
    if isinstance(value, BY_IDENTITY):
        return _Same(value)  # np.sin and np.cos, or two user functions, compile apart
    if isinstance(value, types.MethodType):  # a new object at each attribute access
        return ("method", _Same(value.__func__), _kind(value.__self__))
    if hasattr(value, "__dict__"):
        return (t, _structure(value, 3))
    return t


def _signature(args):
    """The shapes and dtypes of ``args`` if they are arrays and Python floats only (two
    calls with equal ones have equal ``_kind``s and ``size_classes``), else None."""
    out = []
    for a in args:
        t = type(a)
        if t is np.ndarray:
            out.append(a.shape)
            out.append(a.dtype)
        elif t is float:
            out.append(t)
        else:
            return None
    return tuple(out)


def unrolled(value):
    """Is ``value`` a list or tuple of objects, whose kind holds its items' (loops over it
    are unrolled)?"""
    t = type(value)
    return (t is list or t is tuple) and len(value) <= UNROLL_MAX and _holds_objects(value)


_DATA = frozenset({np.ndarray, float, int, complex, np.float64})  # passed over by _structure


def _holds_objects(items, depth=3):
    return any(is_static_object(v) or depth > 1 and (
        isinstance(v, (list, tuple)) and _holds_objects(v, depth - 1)
        or type(v) is dict and _holds_objects(v.values(), depth - 1)) for v in items)


def _structure(obj, depth):
    """The classes of an object's attributes, the lengths of its lists of objects, and
    its flags (None, bool and str attributes).

    Compiled code is specialised on them (methods resolved, loops over
    ``self.layers`` unrolled, ``if self.activation is not None:`` decided), so a
    model with another number or kind of layers, or other flags, must compile anew.
    """
    if depth == 0 or hasattr(obj, "__array__"):
        return ()  # arrays and Variables are data: their class is enough
    out = []
    for name, value in vars(obj).items():
        t = type(value)
        if t in _DATA:
            continue  # data: what the code is specialised on is the cache key's own
        if t is Variable:
            out.append((name, value._described))  # as _attribute
        elif isinstance(value, (list, tuple)):
            out.append((name, len(value), tuple(_attribute(v, depth) for v in value)))
        elif isinstance(value, dict):  # ``self.config["act"]`` is resolved too
            out.append((name, dict, tuple((k, _attribute(v, depth)) for k, v in value.items())))
        elif isinstance(value, (BY_IDENTITY, types.MethodType)) or hasattr(value, "__dict__"):
            out.append((name, _attribute(value, depth)))
        elif value is None or type(value) in (bool, str):
            # Flags and modes: an ``if`` on one is decided when compiling (normalizer).
            out.append((name, value))
    return tuple(out)


def _attribute(value, depth):
    if type(value) is Variable:  # a tape watches the trainable ones; ranks.py reads ndim
        return value._described
    if isinstance(value, BY_IDENTITY):
        return _Same(value)  # ``self.activation = np.tanh``
    if isinstance(value, types.MethodType):
        return ("method", _Same(value.__func__), type(value.__self__))
    if hasattr(value, "__dict__"):
        return (type(value), _structure(value, depth - 1))
    return type(value)


def _check_differentiable(value, index, name):
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, np.ndarray) and value.dtype == bool):
        kind = "a bool"
    elif isinstance(value, (int, np.integer)):
        kind = "an int"
    elif isinstance(value, np.ndarray) and not np.issubdtype(value.dtype, np.inexact):
        kind = f"an array of dtype {value.dtype}"
    elif isinstance(value, (float, complex, np.inexact)) or (
            isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.inexact)):
        return
    elif isinstance(value, Variable):
        raise TypeError(
            f"grad differentiates plain values, but argument {index} ({name!r}) is an "
            "sg.Variable: pass its value (`v.numpy()`), or take the gradient with a "
            "GradientTape, which watches trainable Variables")
    else:
        kind = f"a {type(value).__name__}"
    raise TypeError(
        f"grad requires floating-point (or complex) inputs for the arguments it differentiates, "
        f"but argument {index} ({name!r}) is {kind}. Pass a float, e.g. 3.0 instead of 3, or an "
        "array of floats (np.asarray(x, dtype=float)); to differentiate with respect to "
        "other arguments, change wrt."
    )


def _cast(grad, like):
    """Give a gradient its source's type, dtype and shape."""
    if type(grad) is np.ndarray and type(like) is np.ndarray and grad.shape == like.shape \
            and (grad.dtype is like.dtype or grad.dtype == like.dtype) and grad.flags.writeable:
        return grad  # the usual case, first (one dtype: both complex, or neither)
    if type(grad) is np.float64 and (type(like) is float or type(like) is np.float64):
        return grad  # (a Python float's or a NumPy scalar's gradient: a reduction's)
    if is_complex(grad) and not is_complex(like):
        # Code compiled for real values met a complex one it did not see coming (an
        # object's complex attribute): its rules were not the complex ones.
        raise CompileError(
            "complex values reached code compiled for real ones (a gradient of a real "
            "input came out complex)",
            remedy="let srcgrad see the complex values: pass them as arguments, or write "
                   "the complex constant (1j, dtype=complex) in the function")
    if type(like) is complex:
        return complex(grad)
    if isinstance(like, np.ndarray):
        out = np.asarray(grad, dtype=like.dtype)
        if out.shape != like.shape or not out.flags.writeable:
            # Also a read-only view (the adjoint of np.sum is one): users may update it in place.
            out = np.broadcast_to(out, like.shape).copy()
        return out
    if isinstance(like, np.generic):
        return like.dtype.type(grad)
    return np.float64(grad)


_BY_FUNCTION = weakref.WeakKeyDictionary()
_LAST = object()  # (in a trees cache: the last call's key, treedefs and compiled code)


class Compiled:
    @classmethod
    def of(cls, f, wrt, mode):
        """The compiled entries for ``f``, shared by every wrapper made for it.

        ``sg.grad(f)`` called again (in a loop, or after f's file was edited)
        reuses what was compiled for the same function object.
        """
        key = (tuple(wrt) if isinstance(wrt, (list, tuple)) else wrt, isinstance(wrt, (list, tuple)),
               mode)
        target = f.__func__ if inspect.ismethod(f) else f
        # sg.grad(sg.grad(f)) makes a new inner wrapper each time; its
        # compiled state is shared, so key on that.
        target = getattr(target, "__srcgrad_compiled__", target)
        try:
            per_fn = _BY_FUNCTION.setdefault(target, {})
        except TypeError:  # not weak-referenceable: no sharing
            return cls(f, wrt, mode)
        compiled = per_fn.get((key, inspect.ismethod(f)))
        if compiled is None or compiled.bound and compiled.bound[0] is not f.__self__:
            compiled = cls(f, wrt, mode)
            per_fn[(key, inspect.ismethod(f))] = compiled
        elif compiled.f is None:
            # Keyed on a gradient's shared state, the wrapper it first saw may be gone.
            compiled._f = weakref.ref(f.__func__ if compiled.bound else f)
        return compiled

    @property
    def f(self):
        return self._f()

    def __init__(self, f, wrt, mode):
        # A bound method is its function with ``self`` passed first.
        self.bound = (f.__self__,) if inspect.ismethod(f) else ()
        # Weak: this object is the value of a WeakKeyDictionary keyed on f; the
        # wrappers made by sg.grad keep f alive while they are used.
        self._f = weakref.ref(f.__func__ if self.bound else f)
        self.mode = mode
        self.multiple = isinstance(wrt, (tuple, list))
        self.wrt_given = list(wrt) if self.multiple else [wrt]
        if not self.wrt_given:
            raise ValueError("wrt must name at least one argument")
        self._read_signature(f.__func__ if self.bound else f)
        self.entries = OrderedDict()
        self.trees = {}  # structure of the parameter trees -> the gradient of their leaves
        self._last = None  # (the last call's shapes and dtypes, its entry): ``entry``

    def _read_signature(self, fn):
        """Parameters, defaults and ``wrt`` indices, as ``fn`` has them now."""
        self.code, self.defaults = fn.__code__, fn.__defaults__
        self.kwdefaults = tuple((fn.__kwdefaults__ or {}).items())
        self.signature = inspect.signature(fn)
        parameters = list(self.signature.parameters.values())[len(self.bound):]
        names = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.names = names
        self.simple = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)
        if self.bound:
            self.signature = self.signature.replace(parameters=parameters)
        self.wrt = []
        for item in self.wrt_given:
            if isinstance(item, str):
                if item not in names:
                    raise ValueError(f"{fn.__qualname__}() has no positional parameter named {item!r}")
                self.wrt.append(names.index(item) + len(self.bound))
            elif isinstance(item, int) and not isinstance(item, bool):
                self.wrt.append(item + len(self.bound))
            else:
                raise TypeError(f"wrt must be an int index or a parameter name, not {item!r}")

    def _changed(self, fn):
        """Has ``fn``'s code or defaults been replaced since its signature was read?
        (IPython's autoreload replaces ``__code__``; users assign ``__defaults__``.)"""
        return fn.__code__ is not self.code or fn.__defaults__ is not self.defaults

    def _bind(self, args, kwargs):
        """Positional and keyword-only arguments, defaults applied."""
        if not kwargs and self.simple and len(args) == len(self.names):
            return self.bound + args, {}
        fn = self.f
        if fn is not None and tuple((fn.__kwdefaults__ or {}).items()) != self.kwdefaults:
            self._read_signature(fn)
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return self.bound + bound.args, bound.kwargs

    def entry(self, args, kwargs=None):
        # Arrays and floats of the last call's shapes and dtypes have its kinds and size
        # classes, so its entry (a training loop's calls), without building the key.
        signature = None if kwargs else _signature(args)
        last = self._last
        if signature is not None and last is not None and last[0] == signature \
                and last[1].guards.valid():
            return last[1]
        entry = self._entry(args, kwargs)
        self._last = None if signature is None else (signature, entry)
        return entry

    def _entry(self, args, kwargs):
        kinds = (tuple(map(_kind, args)), size_classes(args))  # shapes inferred (ranks.py)
        if kwargs:
            kinds += tuple((k, _kind(v)) for k, v in sorted(kwargs.items()))
        entry = self.entries.get(kinds)
        if entry is not None and entry.guards.valid():
            self.entries.move_to_end(kinds)
        else:
            self.check_arguments(args, kwargs)
            keywords = self._keywords(kwargs)
            entry = compile_gradient(self.f, self.wrt, self.mode, sample=list(args),
                                     as_tuple=self.multiple, sized=True, keywords=keywords)
            entry.keywords = keywords
            remember(self.entries, kinds, entry)
        return entry

    def _keywords(self, kwargs):
        """The keys ``f``'s ``**kwargs`` gets in a call passing ``kwargs`` (the cache keys on
        them), or None where ``f`` has no such parameter."""
        code = getattr(self.f, "__code__", None)
        if code is None or not code.co_flags & inspect.CO_VARKEYWORDS:
            return None
        # (The code's own parameters: a ``functools.wraps`` wrapper's signature is the
        # wrapped function's.)
        named = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        return tuple(sorted(k for k in (kwargs or {}) if k not in named))

    def check_arguments(self, args, kwargs=None):
        """Before compiling for them: ``wrt`` in range, its arguments floats, every
        argument plain data (``variables.check_plain_data``)."""
        for i in self.wrt:
            if i >= len(args):
                raise TypeError(f"wrt index {i} is out of range: {self.f.__qualname__}() "
                                f"was called with {len(args)} positional arguments")
            _check_differentiable(args[i], i, self._name(i))
        for i, value in enumerate(args):
            check_plain_data(value, f"argument {i} ({self._name(i)!r})")
        for key, value in (kwargs or {}).items():
            check_plain_data(value, f"argument {key!r}")

    def _strong(self, entry, args):
        """``entry``'s twin whose elementwise adjoints have strong zeros."""
        strong = getattr(entry, "strong", None)
        if strong is None:
            strong = entry.strong = compile_gradient(self.f, self.wrt, self.mode,
                                                     sample=list(args), as_tuple=self.multiple,
                                                     strong=True, sized=True,
                                                     keywords=getattr(entry, "keywords", None))
        return strong

    def _name(self, i):
        i -= len(self.bound)
        return self.names[i] if i < len(self.names) else f"*args[{i - len(self.names)}]"

    def arguments(self, args, kwargs):
        """The call's arguments bound as ``f`` takes them now (its signature read again
        where its code or defaults were replaced)."""
        fn = self._f()
        if fn is not None and self._changed(fn):
            self._read_signature(fn)
        return self._bind(args, kwargs)

    def returned(self, value, grads, args):
        """What a call returns: the gradients given their arguments' types (``_cast``),
        after the value for ``value_and_grad``."""
        if self.multiple:
            grads = tuple([_cast(g, args[i]) for g, i in zip(grads, self.wrt)])
        else:
            grads = _cast(grads, args[self.wrt[0]])
        return (value, grads) if self.mode == "value_and_grad" else grads

    def __call__(self, args, kwargs):
        last = self._last
        if last is not None and not kwargs and self.simple and len(args) == len(self.names):
            # Arrays and floats of the last call's shapes and dtypes (a training loop's
            # calls): its entry, without binding the arguments or looking for trees
            # (``_signature`` is None for any other argument).
            fn = self._f()
            if fn is not None and not self._changed(fn):
                args = self.bound + args
                if _signature(args) == last[0] and last[1].guards.valid():
                    return self._run(last[1], args, {})
        args, kwargs = self.arguments(args, kwargs)
        if any(i < len(args) and trees.is_tree(args[i]) for i in self.wrt):
            return self._tree_call(args, kwargs)
        return self.call_bound(args, kwargs)

    def call_bound(self, args, kwargs):
        """A call whose arguments ``arguments`` has bound, none of them a tree (the
        leaves of ``_tree_call``'s trees, passed on without binding them again)."""
        return self._run(self.entry(args, kwargs), args, kwargs)

    def _run(self, entry, args, kwargs):
        out = entry.fn(*args, **kwargs)
        if self.mode == "value_and_grad":
            value, grads = out
        else:
            value, grads = None, out
        if entry.rerunnable and not all_finite(grads) and all_finite(value):
            # Maybe a masked inf or NaN (``np.where(x > 0, np.log(x), 0)``): the code
            # again, with strong zeros (runtime/strong.py).
            out = self._strong(entry, args).fn(*args, **kwargs)
            value, grads = out if self.mode == "value_and_grad" else (None, out)
        return self.returned(value, grads, args)

    def _tree_call(self, args, kwargs, cache=None, backend=None):
        """Differentiated arguments that are parameter trees (``trees.py``): the
        gradient of a function of their leaves, put back into their shapes.
        ``backend`` makes what runs the leaves' gradient of its ``Compiled`` (the Numba
        backend's), kept in ``cache``."""
        cache = self.trees if cache is None else cache
        found = self._same_trees(cache.get(_LAST), args, kwargs)
        if found is None:  # (another structure than the last call's: taken apart)
            parts = self._parts(args)
            shapes = {i: t for i, (_, t) in parts.items()}
            key = (len(args), tuple(sorted(kwargs)), tuple(shapes.items()))
            flat = cache.get(key)
            if flat is None:
                flat = self._of_leaves(args, kwargs, parts)
                if backend is not None and flat[0] is not None:
                    flat = (backend(flat[0]), flat[1])
                cache[key] = flat
            cache[_LAST] = (key, shapes, flat)
            leaves = []
            for i, value in enumerate(args):
                leaves += [leaf for _, leaf in parts[i][0]] if i in parts else [value]
        else:
            leaves, shapes, flat = found
        compiled, positions = flat
        if compiled is None:  # empty trees only: nothing to differentiate
            value, grads = (self.f(*args, **kwargs) if self.mode == "value_and_grad"
                            else None), ()
        else:
            try:
                passed = tuple(leaves[len(self.bound):])
                if type(compiled) is Compiled and not kwargs and not compiled.bound \
                        and compiled.simple and len(passed) == len(compiled.names):
                    # (The leaves' function is srcgrad's own: positional parameters, one
                    # a leaf, never replaced: its arguments are bound as they are.)
                    out = compiled.call_bound(passed, {})
                else:
                    out = compiled(passed, kwargs)
            except TypeError:
                # An int leaf (found when compiling): named by its path in the tree.
                for i, (pairs, _) in self._parts(args).items():
                    for path, leaf in pairs:
                        _check_differentiable(leaf, i, path)
                raise
            value, grads = out if self.mode == "value_and_grad" else (None, out)
        results = []
        for i, where in zip(self.wrt, positions):
            results.append(trees.unflatten(shapes[i], grads[where]) if i in shapes
                           else grads[where.start])
        grads = tuple(results) if self.multiple else results[0]
        return (value, grads) if self.mode == "value_and_grad" else grads

    def _parts(self, args):
        """position -> (leaf paths and values, treedef) of each differentiated tree."""
        return {i: trees.flatten(args[i], self._name(i)) for i in self.wrt
                if trees.is_tree(args[i])}

    def _same_trees(self, last, args, kwargs):
        """(leaves, treedefs, compiled) when the trees have the structure the last call's
        had (the usual call of a training loop: no paths, no key to hash), else None."""
        if last is None:
            return None
        key, shapes, flat = last
        if key[0] != len(args) or key[1] != tuple(sorted(kwargs)):
            return None
        leaves = []
        for i, value in enumerate(args):
            shape = shapes.get(i)
            if shape is None:
                if i in self.wrt and trees.is_tree(value):
                    return None
                leaves.append(value)
            elif not trees.leaves_as(value, shape, leaves):
                return None
        return leaves, shapes, flat

    def _of_leaves(self, args, kwargs, parts):
        """A compiled gradient of the user's function as a function of the trees'
        leaves (``trees.py``), and for each ``wrt`` the slice of its gradients."""
        fn = self.f
        taken = set(kwargs) | {"self"}
        names, build = [], []
        for i, value in enumerate(args):
            if i in parts:
                leaf = trees.leaf_names(parts[i][0], taken)
                names.append((i, leaf))
            else:
                name = self._name(i) if i >= len(self.bound) else "self"
                name = name if name.isidentifier() and name not in taken - {"self"} \
                    else f"arg{i}"
                taken.add(name)
                names.append((i, [name]))
        alias = trees.leaf_names([(fn.__name__, None)], taken)[0]
        classes = {}  # the record classes the trees are built with (trees.source)
        call_args = []
        for i, ns in names:
            if i in parts:
                tree = self._name(i) if self._name(i).isidentifier() else f"tree{i}"
                tree = trees.leaf_names([(tree, None)], taken)[0]
                build.append(f"    {tree} = {trees.source(parts[i][1], ns, classes, taken)}\n")
                taken |= set(classes)
                call_args.append(tree)
            else:
                call_args.append(ns[0])
        start = len(self.bound)
        flat_params = [n for i, ns in names for n in ns]
        first, at = {}, 0  # position -> index of its first leaf among all parameters
        for i, ns in names:
            first[i] = at
            at += len(ns)
        count = {i: len(ns) for i, ns in names}
        order = sorted(set(self.wrt))  # the order of the leaf gradients computed
        wrt_flat = [first[i] + k - start for i in order for k in range(count[i])]
        offset, at = {}, 0
        for i in order:
            offset[i] = slice(at, at + count[i])
            at += count[i]
        positions = [offset[i] for i in self.wrt]
        if not wrt_flat:
            return None, positions
        params = ", ".join(flat_params + (["*"] + sorted(kwargs) if kwargs else []))
        call = ", ".join(call_args + [f"{k}={k}" for k in sorted(kwargs)])
        name = f"{alias}_of_leaves"
        text = (f"# {fn.__qualname__} as a function of the leaves of its parameter trees; "
                f"generated by srcgrad\n"
                f"def {name}({params}):\n" + "".join(build) + f"    return {alias}({call})\n")
        wrapper = codegen.load(text, name, {"__builtins__": builtins},
                               {alias: types.CellType(fn),
                                **{n: types.CellType(c) for n, c in classes.items()}},
                               f"tree {fn.__qualname__}")
        if self.bound:
            wrapper = types.MethodType(wrapper, self.bound[0])
        compiled = Compiled(wrapper, tuple(wrt_flat), self.mode)
        compiled.keep = wrapper  # (held weakly by the Compiled)
        return compiled, positions

    def generic(self, sample=None, strong=False):
        """The generated function for code that calls this gradient (higher order).

        ``sample`` holds the objects among the arguments, and Nones passed;
        ``atoms.UNKNOWN_VALUE`` for values only known at run time; the code is
        specialised on the objects' classes (and on the Nones).
        ``strong``: the code with strong zeros (runtime/strong.py).
        """
        return self.generic_entry(sample, strong).fn

    def generic_entry(self, sample=None, strong=False):
        key = ("generic", strong) + tuple(_kind(v) for v in sample or ())
        fn = self.f
        if fn is not None and self._changed(fn):
            self._read_signature(fn)
        entry = self.entries.get(key)
        if entry is not None and entry.guards.valid():
            self.entries.move_to_end(key)
        else:
            entry = compile_gradient(fn, self.wrt, self.mode, sample=sample,
                                     as_tuple=self.multiple, inplace=False, strong=strong)
            remember(self.entries, key, entry)
        return entry

    def generic_text(self):
        return compile_gradient(self.f, self.wrt, self.mode, as_tuple=self.multiple).text

    def specialised(self, args, sized=True):
        """The code compiled for arguments of the kinds of ``args`` (as a call with them
        would run), not loaded into the cache. ``sized=False``: for the kinds only, not
        for how the arguments' sizes relate (code that runs without this cache's key)."""
        return compile_gradient(self.f, self.wrt, self.mode, sample=list(self.bound) + list(args),
                                as_tuple=self.multiple, sized=sized)
