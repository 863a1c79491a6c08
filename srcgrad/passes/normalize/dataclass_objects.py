"""Dataclass objects the code changes, kept as their attributes (``objects.py``).

A dataclass object the code only reads is a record (``calls.record``): a value made of
its fields, which the code may return or keep in a list. One the code changes
(``state.t = state.t + dt``, a method setting ``self.v``), or whose class computes
fields in ``__post_init__``, is an object like a plain class's, kept as its attributes.
The ``__init__`` that ``dataclasses`` generates has no source to inline: it is written
out here (each field set from its parameter, then ``__post_init__`` called), and the
call passes each field it leaves out its default, or its ``default_factory``'s new
value, as the generated ``__init__`` does::

    @dataclass                          def __init__(self, w, acc, k):
    class State:                            self.w = w
        w: np.ndarray                       self.acc = acc
        acc: np.ndarray = field(            self.k = k
            default_factory=zeros)
        k: float = 2.0                  State(x)  ->  __init__(s, x, zeros(), 2.0)
"""
import dataclasses
import inspect
import types

import gast

from ...ir import templates as T
from ...ir.resolve import is_library


def supported(cls):
    """A dataclass that is not frozen, whose ``__init__`` is the generated one or the
    user's, and whose generated ``__init__`` takes its fields only (no ``InitVar``)."""
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        return False
    if cls.__dataclass_params__.frozen:
        return False
    init = inspect.getattr_static(cls, "__init__")
    if not isinstance(init, types.FunctionType):
        return False
    if not _generated(init):
        return True
    params = list(inspect.signature(init).parameters)[1:]
    return params == [f.name for f in dataclasses.fields(cls) if f.init]


def _generated(fn):
    return fn.__code__.co_filename.startswith("<")


def methods_set_attributes(norm, cls):
    """Does a method of ``cls`` (the user's code) set an attribute of its object?"""
    for k in cls.__mro__[:-1]:
        if is_library(k):
            continue
        for member in vars(k).values():
            fn = member.fget if isinstance(member, property) else member
            if not isinstance(fn, types.FunctionType) or _generated(fn) or is_library(fn):
                continue
            try:
                node = norm.ctx.source(fn).node
            except Exception:  # (no source: it is not inlined either)
                continue
            first = node.args.args[0].id if node.args.args else None
            if first is not None and any(
                    isinstance(n, gast.Attribute) and isinstance(n.ctx, gast.Store)
                    and isinstance(n.value, gast.Name) and n.value.id == first
                    for n in T.walk(node)):
                return True
    return False


def default_of(norm, f, cls, s):
    """The expression of dataclass field ``f``'s value where the call building a ``cls``
    (statement ``s``) leaves it out: ``default_factory()`` (a new value each time) or its
    default; refused where it has neither."""
    if f.default_factory is not dataclasses.MISSING:
        return gast.Call(T.name(norm.ctx.inject_once(f.default_factory, "default_factory")),
                         [], [])
    if f.default is dataclasses.MISSING:
        raise norm.ctx.error(f"`{cls.__name__}` is built without its field `{f.name}`, which "
                             "has no default value", s)
    return norm.ctx.constant(f.default)


def init(norm, cls, call, s):
    """(the ``__init__`` to inline, the call to inline it for): the user's own as it is;
    the generated one written out, called with every field's value."""
    generated = inspect.getattr_static(cls, "__init__")
    if not _generated(generated):
        return generated, call
    if any(isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        raise norm.ctx.error(f"*args or **kwargs building a `{cls.__name__}` the code "
                             "changes is not supported", s, "pass its fields by name")
    fields = dataclasses.fields(cls)
    positional = [f for f in fields if f.init and not getattr(f, "kw_only", False)]
    if len(call.args) > len(positional):
        raise norm.ctx.error(f"`{cls.__name__}` takes {len(positional)} positional "
                             f"arguments, {len(call.args)} given", s)
    given = {f.name: a for f, a in zip(positional, call.args)}
    for k in call.keywords:
        f = cls.__dataclass_fields__.get(k.arg)
        if f is None or not f.init or k.arg in given:
            raise norm.ctx.error(f"`{cls.__name__}` has no field `{k.arg}` to pass, or it "
                                 "is given twice", s)
        given[k.arg] = k.value
    # (a field out of ``__init__`` with no default is not set there: ``__post_init__``
    # or a method sets it, as Python runs it)
    fields = [f for f in fields if f.init or f.default is not dataclasses.MISSING
              or f.default_factory is not dataclasses.MISSING]
    values = [given[f.name] if f.init and f.name in given else default_of(norm, f, cls, s)
              for f in fields]
    lines = [f"def __init__(self, {', '.join(f.name for f in fields)}):"] if fields \
        else ["def __init__(self):"]
    lines += [f"    self.{f.name} = {f.name}" for f in fields]
    if hasattr(cls, "__post_init__"):
        lines.append("    self.__post_init__()")
    if len(lines) == 1:
        lines.append("    pass")
    written = gast.parse("\n".join(lines) + "\n").body[0]
    written.name = f"{cls.__name__}__init__"
    return written, gast.Call(call.func, values, [])
