"""Variables, constants and the small value-level helpers of the tape API.

``sg.Variable`` is a mutable *cell* that holds an immutable NumPy array.

Why ``assign`` replaces the array instead of writing into it
------------------------------------------------------------
srcgrad differentiates source code: the adjoint code generated for a recorded
region runs after (or interleaved with) the forward code and refers to the
values the forward code read, by plain Python reference. If ``assign`` wrote
into the held array in place, every such reference would silently see the new
value and the gradient would be computed at the wrong point. So:

- every ``assign`` / ``assign_add`` / ``assign_sub`` builds a **new** array
  and swaps it in; the old array is never touched;
- the held array is marked read-only (``flags.writeable == False``), so the
  only way to change a Variable is through ``assign*``. In-place NumPy
  operations that target a Variable (``v += 1``, ``np.add(a, b, out=v)``,
  ``np.add.at(v, ...)``, ``np.copyto(v, ...)``) raise ``TypeError``.

Because the held array never changes, reading it is a free snapshot:
``np.asarray(v)`` and ``v.read_value()`` return the held array itself (no copy,
read-only). Everything else a Variable hands out is a fresh, writable array
(or a NumPy scalar) that shares no memory with it: ``v.numpy()``, ``v.value()``,
``v[i]``, iteration, ``v.T``, ``v.reshape(...)``, and the results of
arithmetic, ufuncs and NumPy functions applied to Variables. Results are never
Variables: a Variable only appears where the user created one.

Dtypes
------
NumPy's convention, not TensorFlow's: Python ``float`` and ``int`` values (and
nested lists/tuples of them) become ``float64`` unless ``dtype`` is given;
Python ``bool`` stays ``bool``. The dtype of NumPy inputs (ndarrays and NumPy
scalars, e.g. ``np.float32(1)`` or an ``int32`` array) and of Variables is kept.

Equality and hashing
--------------------
``v == w`` is elementwise (NumPy semantics) and returns an array. Variables
hash by identity, so they work as dict keys and set members. Membership tests
in lists (``v in some_list``) use ``==`` and are therefore *not* reliable; use
``any(x is v for x in some_list)``.
"""
import enum
import threading
import weakref

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

__all__ = [
    "UnconnectedGradients",
    "Variable",
    "constant",
    "is_float_like",
    "stop_gradient",
]


# --------------------------------------------------------------------------
# Conversion helpers
# --------------------------------------------------------------------------

def _to_array(value, dtype=None):
    """A new ndarray holding ``value``, with srcgrad's dtype defaults."""
    if isinstance(value, Variable):
        return np.array(value._value, dtype=dtype, copy=True)
    if dtype is not None:
        return np.array(value, dtype=dtype, copy=True)
    array = np.array(value, copy=True)
    if not isinstance(value, (np.ndarray, np.generic)) and array.dtype.kind in "iu":
        # Python ints (and lists of them) follow the float default.
        array = array.astype(np.float64)
    return array


def _frozen(array):
    array.flags.writeable = False
    return array


def read_only(array):
    """A read-only view of ``array``: handed on where nothing may write into the original
    (a gradient that is this view is copied when it is returned)."""
    return _frozen(array.view())


def _unwrap(obj):
    """Replace Variables by their held arrays, recursively in lists/tuples/dicts."""
    if isinstance(obj, Variable):
        return obj._value
    if type(obj) is tuple:
        return tuple(_unwrap(x) for x in obj)
    if type(obj) is list:
        return [_unwrap(x) for x in obj]
    if type(obj) is dict:
        return {k: _unwrap(x) for k, x in obj.items()}
    return obj


def _contains_variable(obj):
    if isinstance(obj, Variable):
        return True
    if isinstance(obj, (tuple, list)):
        return any(_contains_variable(x) for x in obj)
    if isinstance(obj, dict):
        return any(_contains_variable(x) for x in obj.values())
    return False


def _fresh(result):
    """Make sure a result shares no memory with a held (read-only) array."""
    if isinstance(result, np.ndarray):
        return result if result.flags.writeable else result.copy()
    if type(result) is tuple:
        return tuple(_fresh(x) for x in result)
    if type(result) is list:
        return [_fresh(x) for x in result]
    return result


def _inplace_error(what, target):
    return TypeError(
        f"{what} would modify sg.Variable {target.name!r} in place; "
        f"use .assign(), .assign_add() or .assign_sub() instead "
        f"(or 'x = x + y' to compute a new array)")


# Tapes holding recorded blocks. They are told before a Variable's value
# changes, so that their gradients use the value the blocks read, as
# TensorFlow's tape records it (srcgrad reruns the block's forward pass).
_TAPES = weakref.WeakSet()


def _before_assign(variable):
    for tape in list(_TAPES):
        tape._variable_changes(variable)


# NumPy functions that write into their first argument.
_MUTATING_FUNCTIONS = frozenset(
    getattr(np, name) for name in
    ("copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis")
    if hasattr(np, name))


# --------------------------------------------------------------------------
# Variable
# --------------------------------------------------------------------------

_NOTING = threading.local()  # .logs: id -> Variable dicts of the tape blocks running


def _note_read(variable):
    """A Variable computed with as itself, not read through ``read_value``: what the code
    a tape compiled reads where it could not tell a Variable would be (``vars(m)["w"]``,
    a container's own ``__iter__``, a Variable made in the block)."""
    logs = getattr(_NOTING, "logs", None)
    if logs:
        for log in logs:
            log[id(variable)] = variable


class noting_reads:
    """Note, while a block's compiled code runs, the Variables computed with as themselves.
    (A class, not a generator: it runs at every tape block.)"""

    __slots__ = ("log", "logs")

    def __enter__(self):
        self.log = {}
        self.logs = _NOTING.__dict__.setdefault("logs", [])
        self.logs.append(self.log)
        return self.log

    def __exit__(self, *exc):
        logs = self.logs
        for i in range(len(logs) - 1, -1, -1):  # by identity: two logs may be equal dicts
            if logs[i] is self.log:
                del logs[i]
                break
        return False


class Variable(NDArrayOperatorsMixin):
    """A named, optionally trainable cell holding an immutable NumPy array.

    ``Variable(initial_value, trainable=True, name=None, dtype=None)``

    - ``initial_value``: anything ``np.array`` accepts (a callable is called
      first, as in TensorFlow). It is always copied. Python numbers become
      ``float64`` (see the module docstring for the dtype rules).
    - ``trainable``: whether a ``GradientTape(watch_accessed_variables=True)``
      watches the Variable automatically when its region reads it.
    - ``name``: a string; defaults to ``"Variable"``.
    - ``dtype``: forces the dtype (NumPy casting rules).

    The held array is never modified: ``assign*`` swap in a new one.
    """

    # NDArrayOperatorsMixin defines an elementwise __eq__, which sets __hash__
    # to None; Variables hash by identity, as in TensorFlow.
    __hash__ = object.__hash__

    def __init__(self, initial_value, trainable=True, name=None, dtype=None):
        if callable(initial_value) and not isinstance(initial_value, (Variable, np.ndarray)):
            initial_value = initial_value()
        if name is None:
            name = "Variable"
        elif not isinstance(name, str):
            raise TypeError(f"Variable name must be a string, got {type(name).__name__}")
        array = _to_array(initial_value, dtype)
        if array.dtype.kind not in "biufc":
            raise TypeError(
                f"sg.Variable holds numeric or boolean arrays, got dtype {array.dtype} "
                f"from {type(initial_value).__name__}")
        self._value = _frozen(array)
        self._trainable = bool(trainable)
        self._name = name
        # What a compiled code's key says of it as an object's attribute (cache._attribute):
        # none of the three changes (assign keeps the shape and dtype).
        self._described = (Variable, self._trainable, array.ndim)

    # ---------------------------------------------------------------- state
    @property
    def shape(self):
        return self._value.shape

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def size(self):
        return self._value.size

    @property
    def trainable(self):
        return self._trainable

    @property
    def name(self):
        return self._name

    def read_value(self):
        """The held array itself: read-only, no copy, never modified later."""
        return self._value

    def numpy(self):
        """A copy of the value: a writable ndarray, or a NumPy scalar when 0-d."""
        if self._value.ndim == 0:
            return self._value[()]
        return self._value.copy()

    def value(self):
        """Same as :meth:`numpy`."""
        return self.numpy()

    # ----------------------------------------------------------- assignment
    def _cast(self, value, what):
        if type(value) is np.ndarray and value.dtype == self.dtype:
            return value  # the common case (an update by a gradient), without NumPy's checks
        value = _unwrap(value)
        source = np.asarray(value)
        if not np.can_cast(source.dtype, self.dtype, casting="same_kind"):
            raise TypeError(
                f"cannot {what} a value of dtype {source.dtype} to sg.Variable "
                f"{self.name!r} of dtype {self.dtype}")
        return source

    def assign(self, value):
        """Replace the value by (a copy of) ``value``; same shape required. Returns self."""
        source = self._cast(value, "assign")
        if source.shape != self.shape:
            raise ValueError(
                f"cannot assign a value of shape {source.shape} to sg.Variable "
                f"{self.name!r} of shape {self.shape}")
        if _TAPES:
            _before_assign(self)
        self._value = _frozen(np.array(source, dtype=self.dtype, copy=True))
        return self

    def _update(self, ufunc, delta, what):
        source = self._cast(delta, what)
        try:
            result = ufunc(self._value, source)
        except ValueError as e:  # incompatible broadcast
            raise ValueError(
                f"cannot {what} a value of shape {source.shape} to sg.Variable "
                f"{self.name!r} of shape {self.shape}") from e
        if result.shape != self.shape:
            raise ValueError(
                f"cannot {what} a value of shape {source.shape} to sg.Variable "
                f"{self.name!r} of shape {self.shape}")
        # A ufunc result is a new array (or a NumPy scalar when 0-d), never
        # the held one: no copy is needed unless the dtype changes.
        if _TAPES:
            _before_assign(self)
        self._value = _frozen(np.asarray(result, dtype=self.dtype))
        return self

    def assign_add(self, delta):
        """``value = value + delta`` (a new array; ``delta`` may broadcast). Returns self."""
        return self._update(np.add, delta, "assign_add")

    def assign_sub(self, delta):
        """``value = value - delta`` (a new array; ``delta`` may broadcast). Returns self."""
        return self._update(np.subtract, delta, "assign_sub")

    # ------------------------------------------------------- NumPy protocols
    def __array__(self, dtype=None, copy=None):
        _note_read(self)
        if dtype is not None and np.dtype(dtype) != self.dtype:
            if copy is False:
                raise ValueError(
                    f"converting sg.Variable {self.name!r} from {self.dtype} to "
                    f"{np.dtype(dtype)} requires a copy")
            return self._value.astype(dtype)
        if copy:
            return self._value.copy()
        return self._value

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _note_read(self)
        if method == "__call__" and not kwargs:
            # The common case (``v * x``, ``np.sin(v)``): a new result, so nothing
            # to guard and no read-only memory to copy away from.
            return ufunc(*[x._value if isinstance(x, Variable) else x for x in inputs])
        out = kwargs.get("out")
        if out is not None and _contains_variable(out):
            target = next(x for x in (out if isinstance(out, tuple) else (out,))
                          if isinstance(x, Variable))
            raise _inplace_error(
                f"np.{ufunc.__name__} with out= (or an augmented assignment such as 'v += x')",
                target)
        if method == "at" and inputs and isinstance(inputs[0], Variable):
            raise _inplace_error(f"np.{ufunc.__name__}.at", inputs[0])
        inputs = tuple(_unwrap(x) for x in inputs)
        kwargs = {k: _unwrap(v) for k, v in kwargs.items()}
        return _fresh(getattr(ufunc, method)(*inputs, **kwargs))

    def __array_function__(self, func, types, args, kwargs):
        _note_read(self)
        if "out" in kwargs and _contains_variable(kwargs["out"]):
            raise _inplace_error(f"{func.__name__} with out=", self)
        if func in _MUTATING_FUNCTIONS:
            target = args[0] if args else next(iter(kwargs.values()), None)
            if isinstance(target, Variable):
                raise _inplace_error(f"np.{func.__name__}", target)
        return _fresh(func(*_unwrap(args), **_unwrap(kwargs)))

    # --------------------------------------------------- Python protocols
    def __len__(self):
        return len(self._value)

    def __getitem__(self, key):
        _note_read(self)
        return _fresh(self._value[_unwrap(key)])

    def __iter__(self):
        _note_read(self)
        if self._value.ndim == 0:
            raise TypeError("iteration over a 0-d sg.Variable")
        return (_fresh(row) for row in self._value)

    def __contains__(self, item):
        return _unwrap(item) in self._value

    def __float__(self):
        return float(self._value)

    def __int__(self):
        return int(self._value)

    def __complex__(self):
        return complex(self._value)

    def __index__(self):
        return self._value.__index__()

    def __bool__(self):
        return bool(self._value)

    def __format__(self, spec):
        if not spec:
            return str(self)
        return format(self._value[()] if self._value.ndim == 0 else self._value, spec)

    def __repr__(self):
        if self._value.ndim == 0:
            shown = str(self._value[()])
        else:
            shown = repr(self._value)
        return (f"<sg.Variable {self._name!r} shape={self.shape} dtype={self.dtype}, "
                f"numpy={shown}>")

    def __reduce__(self):
        # copy.copy, copy.deepcopy and pickle all build a new, independent
        # Variable whose held array is read-only again.
        return (type(self), (self._value, self._trainable, self._name))

    def __copy__(self):
        return type(self)(self._value, self._trainable, self._name)

    def __deepcopy__(self, memo):
        new = self.__copy__()
        memo[id(self)] = new
        return new

    # ---------------------------------------------- array-like conveniences
    @property
    def T(self):
        return _fresh(self._value.T)

    def astype(self, dtype):
        return self._value.astype(dtype)

    def reshape(self, *shape, **kwargs):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return _fresh(np.reshape(self._value, shape, **kwargs))

    def sum(self, axis=None, **kwargs):
        return _fresh(np.sum(self._value, axis=axis, **kwargs))

    def mean(self, axis=None, **kwargs):
        return _fresh(np.mean(self._value, axis=axis, **kwargs))

    def max(self, axis=None, **kwargs):
        return _fresh(np.max(self._value, axis=axis, **kwargs))

    def min(self, axis=None, **kwargs):
        return _fresh(np.min(self._value, axis=axis, **kwargs))


# --------------------------------------------------------------------------
# Free functions
# --------------------------------------------------------------------------

def constant(value, dtype=None):
    """A new ndarray holding ``value`` (always a copy; 0-d for scalars).

    ``float64`` by default for Python floats and ints (NumPy's convention, not
    TensorFlow's float32); the dtype of NumPy inputs and Variables is kept.
    """
    return _to_array(value, dtype)


def stop_gradient(x):
    """``x``'s value, through which no gradient flows.

    The compiler treats calls to it as non-differentiable; at run time it is
    the identity, except that Variables are replaced by their value (a copy,
    as ``Variable.numpy()``), also inside lists, tuples and dicts.
    """
    if isinstance(x, Variable):
        return x.numpy()
    if type(x) is tuple:
        return tuple(stop_gradient(v) for v in x)
    if type(x) is list:
        return [stop_gradient(v) for v in x]
    if type(x) is dict:
        return {k: stop_gradient(v) for k, v in x.items()}
    return x


def is_float_like(value):
    """Whether a tape can watch ``value``: a floating or complex value (as TensorFlow's).

    True for Python floats and complex numbers, NumPy floating and complex
    scalars, ndarrays and Variables of those dtypes. False for ints, bools,
    other dtypes and containers (the tape walks nested structures itself).
    """
    if isinstance(value, Variable):
        return value.dtype.kind in "fc"
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (float, complex)):  # includes np.float64, np.complex128
        return True
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.kind in "fc"
    return False


def check_plain_data(value, what):
    """Raise TypeError for arrays the rules would read as plain ndarrays, wrongly.

    An ndarray subclass changes what operations mean (``np.matrix``: ``*`` is
    a matrix product) or carries state the rules never see (a masked array's
    mask); an object array holds Python objects, not floats. ``what`` names
    the value in the message. Lists, tuples and dicts are looked into.
    """
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            check_plain_data(item, f"{what}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            check_plain_data(item, f"{what}[{key!r}]")
        return
    if not isinstance(value, np.ndarray):
        return
    if type(value) is not np.ndarray:
        if isinstance(value, np.ma.MaskedArray):
            remedy = ("pass x.filled(fill_value) (or np.ma.getdata(x)) and apply the mask "
                      "yourself, e.g. with np.where(mask, 0.0, x)")
        else:
            remedy = "pass a plain array: np.asarray(x)"
        raise TypeError(f"{what} is a {type(value).__module__}.{type(value).__name__}, an "
                        f"ndarray subclass srcgrad cannot differentiate: its operations are not "
                        f"the ones the derivative rules describe. Instead, {remedy}")
    if value.dtype == object:
        raise TypeError(f"{what} is an array of dtype object, which srcgrad cannot "
                        "differentiate. Instead, pass an array of floats: "
                        "np.asarray(x, dtype=float)")


class UnconnectedGradients(enum.Enum):
    """What ``gradient``/``jacobian`` return for a source the target doesn't depend on."""

    NONE = "none"
    ZERO = "zero"

    @classmethod
    def parse(cls, value):
        """The member for ``value``: a member, or ``'none'``/``'zero'`` (any case)."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            try:
                return cls(value.strip().lower())
            except ValueError:
                pass
        allowed = ", ".join(
            [f"sg.UnconnectedGradients.{m.name}" for m in cls] + [repr(m.value) for m in cls])
        raise ValueError(f"unconnected_gradients must be one of {allowed}; got {value!r}")
