"""Calls with differentiable arguments: primitives with rules, methods, user code.

Resolves what a call denotes at compile time and turns it into one ``prim``
statement (bound to the rule's signature) or hands it to inlining.
Part of the normalize pass: each function takes the ``Normalizer`` (``norm``)
whose statement it is normalizing.
"""
import builtins
import copy
import dataclasses
import functools
import inspect
import operator
import os
import string
import sys
import types

import gast
import numpy as np

from ... import runtime as rt, trees
from ...errors import CompileError
from ...ir import anno, templates as T
from ...ir.atoms import UNKNOWN_COMPLEX, UNKNOWN_VALUE, is_static_object, keyed_constant, \
    qualname, unknown
from ...ir.resolve import MISSING, among, is_library
from ...ir.varied import expr_varied
from ...rules import helpers, rewrites, table
from ...rules.entry import params as rule_params
from . import closures, dataclass_objects, functions, inline, objects


class NotYet(Exception):
    """The function a statement calls is known in the next round of the normalizer."""


class Deferred(NotYet):
    """What a statement needs is decided once nothing else changes: the statement, as it
    was, waits for the round that decides (what it began this round is not progress)."""


# Functions NumPy 2 removed under their old names (its migration guide).
_NUMPY_2_NAMES = {"trapz": "trapezoid", "product": "prod", "cumproduct": "cumprod",
                  "sometrue": "any", "alltrue": "all", "round_": "round", "in1d": "isin",
                  "row_stack": "vstack", "msort": "sort(a, axis=0)",
                  "asfarray": "asarray(a, dtype=float)"}
_WAITS = 4  # rounds a statement may wait for that (a factory returning a factory's function)


def waits(s):
    """May statement ``s`` wait for the next round once more (a few times at most: then
    it is normalized with what is known, or refused)? Counts the wait."""
    if getattr(s, "sg_waits", 0) >= _WAITS:
        return False
    s.sg_waits = getattr(s, "sg_waits", 0) + 1
    return True


# ``_sg`` helpers whose result is the same kind of value as their first argument.
# Differentiating generated code again, a list's adjoint must stay known as a list.
_KEEPS_KIND = frozenset({rt.add, rt.add_at, rt.add_at_zeros, rt.zeros_like, rt.seed_like,
                         rt.like, rt.copy_slot, rt.read_value})


def note_container(norm, target, fn, first):
    """``target = fn(first, ...)`` binds a container if ``first`` is one and ``fn`` keeps kinds."""
    if any(fn is k for k in _KEEPS_KIND) and isinstance(first, gast.Name) \
            and first.id in norm.ctx.containers:
        norm.ctx.containers.add(target)


# The ``operator`` module's functions are the operators themselves (on lists too:
# ``operator.add`` of two lists joins them): written as the operator they are.
_BINARY = {operator.add: gast.Add, operator.sub: gast.Sub, operator.mul: gast.Mult,
           operator.truediv: gast.Div, operator.pow: gast.Pow, operator.matmul: gast.MatMult,
           operator.mod: gast.Mod, operator.floordiv: gast.FloorDiv}
_UNARY = {operator.neg: gast.USub, operator.pos: gast.UAdd}


def _as_operator(obj, node):
    """``operator.mul(a, b)`` as ``a * b`` (None if ``obj`` is not such a function)."""
    if node.keywords or any(isinstance(a, gast.Starred) for a in node.args):
        return None
    try:
        binary, unary = _BINARY.get(obj), _UNARY.get(obj)
    except TypeError:  # unhashable
        return None
    if binary is not None and len(node.args) == 2:
        return gast.BinOp(node.args[0], binary(), node.args[1])
    if unary is not None and len(node.args) == 1:
        return gast.UnaryOp(unary(), node.args[0])
    return None


def _gradient_call(norm, gradient, sample, node, out, raw):
    """``raw = gradient(*args)``, the gradient's code inlined, computed as a call of it
    computes: again with strong zeros where it comes out non-finite (runtime/strong.py,
    ``Compiled.__call__``), unless the function it differentiates does not run twice
    alike. (Else a masked NaN would make this code's values NaN where the same code run
    as Python is finite: inside a tape's block, in ``value_and_grad``.)"""
    compiled = gradient.__srcgrad_compiled__
    if not compiled.generic_entry(sample).rerunnable:
        return inline.inline(norm, compiled.generic(sample), None, node, out, raw)
    # (The arguments evaluated once for both: ``g(x + 1)``, ``g(rng.normal(size=3))``.)
    node = gast.Call(node.func, [a if isinstance(a, gast.Starred) else norm.atom(a, out, "arg")
                                 for a in node.args],
                     [gast.keyword(k.arg, norm.atom(k.value, out, "arg")) if k.arg else k
                      for k in node.keywords])
    inline.inline(norm, compiled.generic(sample), None, copy.deepcopy(node), out, raw)
    again = []
    inline.inline(norm, compiled.generic(sample, strong=True), None, node, again, raw)
    out.append(anno.like(T.unless_finite(T.name(raw), again), norm.cur))
    return raw


def _py_function_call(node, norm):
    """``sg.py_function(func, [a, b])`` is ``func(a, b)``, differentiated like any call."""
    args = list(node.args) + [k.value for k in node.keywords if k.arg in ("func", "inp")]
    if len(args) < 2 or not isinstance(args[1], (gast.List, gast.Tuple)):
        raise norm.ctx.error("py_function needs its inputs as a list literal: "
                             "py_function(f, [x, y])", norm.cur)
    return gast.Call(args[0], list(args[1].elts), [])


def call(norm, node, out, dest, hint=None):
    hint = hint or dest or "t"
    f = node.func
    if any(isinstance(a, gast.Starred) for a in node.args) \
            or any(k.arg is None for k in node.keywords):
        return call(norm, spread(norm, node, out), out, dest, hint)
    grad_fn = node.args[0] if node.args and norm.scope.value(f) is norm.ctx.runtime.upstream \
        else f  # (``_sg.upstream(pair[1], g)`` calls it)
    if isinstance(grad_fn, gast.Subscript) and isinstance(grad_fn.value, gast.Name) \
            and grad_fn.value.id in norm.custom_pairs:
        # the grad_fn of a custom_gradient pair, in code srcgrad generated
        return _opaque(norm, node, out, dest, hint,
                       _twice(norm, norm.custom_pairs[grad_fn.value.id]))
    if isinstance(f, gast.Subscript) and isinstance(f.value, gast.Name) \
            and f.value.id in norm.function_tables:  # ``fs[1](x)``, ``acts[name](x)``
        return functions.call(norm, node, out, dest, hint)
    replaced = _replaced_record(norm, node)
    if replaced is not None:
        return call(norm, replaced, out, dest, hint)
    if isinstance(f, gast.Attribute) and f.attr in norm.attributes_stored \
            and _instance_attribute(norm, f) \
            and isinstance(norm.scope.value(f), _FUNCTIONS):  # (a layer there: as before)
        # (``self.act = np.sin`` in a method the code calls, then ``self.act(x)``: the
        # function called is resolved when compiling, from what the object held then)
        raise norm.ctx.error(
            f"`{gast.unparse(node).strip()}` calls what an attribute holds, and the code sets "
            f"that attribute (`.{f.attr} = ...`): srcgrad resolves a call when compiling, "
            "from what the attribute held then", norm.cur,
            f"set `.{f.attr}` before the differentiated code runs, or call the function by "
            "its name, choosing it with an if statement")
    if isinstance(f, gast.Call) and isinstance(norm.scope.value(f.func), type) \
            and trees.record_fields(norm.scope.value(f.func)) is not None:
        # ``Gain(0.5)(x)``: the record built (of constants too), then its ``__call__``
        built = norm.ctx.namer.fresh(f"{hint}_{norm.scope.value(f.func).__name__}")
        record(norm, f, norm.scope.value(f.func), out, built, built)
        return call(norm, anno.like(gast.Call(T.name(built), node.args, node.keywords), node),
                    out, dest, hint)
    head = f.value if isinstance(f, gast.Attribute) else f
    maker = norm.scope.value(head.func) if isinstance(head, gast.Call) else MISSING
    if (_user_function(maker) or _record_class(maker) and (
            head is f or _changes_its_objects(norm, maker))) and (
            head is f or isinstance(maker, type) or f.attr not in table.METHODS):
        # ``make(base)(x, y)``, ``Layer(W)(x)``, ``Model(W).predict(x)``,
        # ``make_model(W).loss(x)``: what the call makes, named (``g = make(base); g(x,
        # y)``, as closures a call makes and objects built in the code are compiled), then
        # used; both statements normalized in the next round. (Python evaluates the call
        # before the arguments, as here. ``helper(x).sum()``: an array's method, as is.)
        norm.changed = True
        made = norm.ctx.namer.fresh("made")
        norm.spelled[made] = gast.unparse(head).strip()  # (named so in messages)
        used = T.name(made) if head is f else gast.Attribute(T.name(made), f.attr, f.ctx)
        d = norm._dest(dest, hint)
        out.append(anno.like(T.assign(made, head), norm.cur))
        out.append(anno.like(T.assign(d, gast.Call(used, node.args, node.keywords)), norm.cur))
        return d
    if isinstance(f, gast.Attribute) and expr_varied(f.value, norm.varied, norm.scope) \
            and not (isinstance(f.value, gast.Name) and f.value.id in norm.scope.mirrored_names):
        return method(norm, node, out, dest, hint)
    if isinstance(f, gast.Attribute) and _super_member(norm, f) is not None:
        return method(norm, node, out, dest, hint)  # ``super().call(x)`` of a known object
    own = _record_member(norm, f, "__call__", types.FunctionType) \
        if isinstance(f, gast.Name) else None
    if own is not None:  # ``layer(h)`` of a dataclass with ``__call__`` (a module, Equinox's way)
        called = gast.Call(gast.Attribute(T.name(f.id), "__call__", gast.Load()), node.args,
                           node.keywords)
        return inline.inline(norm, own, T.name(f.id), anno.like(called, node), out, dest)
    made = norm.facts.bound_call(f.id) if isinstance(f, gast.Name) \
        and norm.scope.value(f) is MISSING else None
    if made is not None and _gradient_of(norm, made, lift=False)[0] is not MISSING:
        # ``dfdx = sg.grad(f)`` then ``dfdx(x)``: the gradient made where it is called
        # (what it differentiates is known when compiling; its closure is read then).
        return call(norm, anno.like(gast.Call(T.clone(made), node.args, node.keywords), node),
                    out, dest, hint)
    if isinstance(f, gast.Call):
        obj, captured = _gradient_of(norm, f)
        if captured:  # a nested def's gradient: the enclosing values it reads go first
            node = anno.like(gast.Call(f, [T.name(c) for c in captured] + list(node.args),
                                       node.keywords), node)
    else:
        obj = norm.scope.value(f)
    if obj is MISSING and isinstance(f, gast.Attribute) and f.attr in table.METHODS \
            and norm.scope.value(f.value) is MISSING:
        # A method of a value only known at run time: NumPy's array methods.
        return method(norm, node, out, dest, hint)
    if isinstance(f, gast.Attribute) and f.attr in table.METHODS \
            and type(getattr(obj, "__self__", None)) is np.ndarray:
        # ``G.dot(x)`` of a global array: the array's method, as of an array computed.
        return method(norm, node, out, dest, hint)
    if obj is MISSING and isinstance(f, gast.Attribute) and f.attr == "get" \
            and norm.scope.value(f.value) is MISSING \
            and not (isinstance(f.value, gast.Name) and f.value.id in norm.ctx.records):
        # ``d.get(k, x)`` of a dict holding no differentiable value, the default one (an
        # empty parameter dict): a test when the code runs, which also checks it is a dict.
        return _dict_get(norm, node, out, dest, hint)
    if obj is MISSING and isinstance(f, gast.Name) and f.id in norm.loop_closures:
        raise norm.ctx.error(
            f"`{f.id}` is a function a call makes inside a loop: each trip makes another, "
            "over its own values, which srcgrad cannot tell apart once the call is inlined",
            norm.cur, "make the functions before the loop (a list display, or a list "
            "comprehension over constants), or pass the values to a plain function: f(a, v)")
    if obj is MISSING and norm.changed and (isinstance(f, gast.Name) or isinstance(
            f, gast.Subscript) and isinstance(f.value, gast.Name)) and waits(norm.cur):
        # Maybe bound by a call inlined in this round (``g = make(a)``, ``fs = [make(a),
        # make(b)]``): known in the next.
        raise NotYet
    module = norm.scope.value(f.value) if obj is MISSING and isinstance(f, gast.Attribute) \
        else None
    if isinstance(module, types.ModuleType) and not hasattr(module, f.attr):
        # (A name the module lacks: Python would raise AttributeError here; NumPy's own
        # message names the function NumPy 2 renamed it to.)
        try:
            getattr(module, f.attr)
        except AttributeError as e:
            reason = str(e)
        renamed = _NUMPY_2_NAMES.get(f.attr) if module is np else None
        raise norm.ctx.error(f"`{gast.unparse(f).strip()}` does not exist: {reason}",
                             norm.cur, f"NumPy 2 calls it `np.{renamed}`" if renamed else
                             f"check the name against what `{module.__name__}` defines")
    if obj is MISSING and _inline_the_maker(norm, f):
        raise NotYet
    if obj is MISSING:
        base = f.value if isinstance(f, gast.Attribute) else f
        spelled = norm.spelled.get(base.id) if isinstance(base, gast.Name) else None
        text = gast.unparse(f).strip() if spelled is None else \
            spelled + (f".{f.attr}" if base is not f else "")
        raise norm.ctx.error(f"cannot tell at compile time which function `{text}` is", norm.cur,
                             "call a function or method that is known when the code is "
                             "compiled: a def or lambda, a module's function, or one of a "
                             "list or dict display of them bound once (functions a call makes, "
                             "[make(a) for a in (0.5, 2.0)], with items known when compiling)")
    if obj is builtins.sum and node.args and _iterator_call(norm, node.args[0]):
        # ``sum(map(f, xs))``: summed over the items the loop of a generator gives.
        item = norm.ctx.namer.fresh("item")
        gen = gast.GeneratorExp(T.name(item), [gast.comprehension(
            T.name(item, store=True), node.args[0], [], 0)])
        return call(norm, anno.like(gast.Call(f, [gen] + node.args[1:], node.keywords), node),
                    out, dest, hint)
    if obj is builtins.abs and len(node.args) == 1 and not node.keywords:
        operand = norm.atom(node.args[0], out, hint)
        dunder = record_operator(norm, builtins.abs, [operand])
        if dunder is not None:
            return inline_dunder(norm, dunder, out, norm._dest(dest, hint))
        node = anno.like(gast.Call(node.func, [operand], []), node)
    tested = type_test_of_variable(norm, node)
    if tested is not None:  # (the Variable's, not the array read from it)
        return norm.expr(anno.like(T.const(tested), node), out, dest, hint)
    spelled = _as_operator(obj, node)
    if spelled is not None:  # ``operator.mul(a, b)``, ``f = operator.add; f(a, b)``
        return norm.expr(anno.like(spelled, node), out, dest, hint)
    if any(obj is t for t in _FLOAT_CASTS) and len(node.args) == 1 and not node.keywords \
            and not isinstance(node.args[0], gast.Starred):
        # ``np.float32(x)``: the cast (``x.astype(np.float32)``, whose rule it has).
        cast = T.expr("_sg.astype(a, d)", a=node.args[0],
                      d=T.name(norm.ctx.inject(obj, obj.__name__)))
        return norm.expr(anno.like(cast, node), out, dest, hint)
    written_out = rewrites.rewrite(obj, {k.arg for k in node.keywords}, _positional(node.args))
    if written_out is not None:  # ``np.nanmean``: a composition, inlined as user code
        if rewrites.is_iterator(obj) and _stored(norm, obj):
            raise norm.ctx.error(
                f"`{gast.unparse(node.func).strip()}(...)` of differentiable values bound to a "
                "name: srcgrad makes the list of what it gives where it is made, which would "
                "not see a later change to the sequences it reads", norm.cur,
                "iterate it where it is made (a for loop, a comprehension, zip(...), "
                f"sum(...)), or make a list: list({gast.unparse(node.func).strip()}(...))")
        return inline.inline(norm, written_out, None, node, out, dest)
    rule = norm.ctx.rule(obj)
    if rule is not None:
        return prim_call(norm, node, obj, rule, out, dest, hint)
    if getattr(obj, "__srcgrad_py_function__", False):
        return call(norm, _py_function_call(node, norm), out, dest, hint)
    custom = getattr(obj, "__srcgrad_custom_gradient__", None)
    if custom is not None:
        # (a method's: ``op.apply(x)`` calls it with the object first, the grad_fn giving
        # the adjoints of the arguments after it)
        receiver = None
        if isinstance(obj, types.MethodType):
            # (the object as the code names it, ``op`` of ``op.apply(x)``: another call may
            # pass another one)
            receiver = norm.atom(node.func.value, out, "receiver") \
                if isinstance(node.func, gast.Attribute) else norm.ctx.constant(obj.__self__)
        return custom_call(norm, node, custom, out, dest, hint, receiver)
    paired = getattr(obj, "__srcgrad_custom_pair__", None)
    if paired is not None:
        d = _opaque(norm, node, out, dest, hint, _twice(norm, paired))
        norm.custom_pairs[d] = paired
        return d
    if isinstance(obj, functools.partial):
        return call(norm, _partial_call(norm, node, obj), out, dest, hint)
    if isinstance(obj, np.vectorize):  # (``@np.vectorize`` on a def: NumPy's object)
        own = norm.ctx.injected.get(("vectorized", id(obj)))
        if own is None:
            if obj.excluded or obj.signature is not None:
                raise norm.ctx.error("np.vectorize with excluded= or signature= is not "
                                     "supported", norm.cur, "write the loop over the elements")
            own = norm.ctx.injected["vectorized", id(obj)] = norm.ctx.inject(
                rewrites.vectorize(obj.pyfunc), "vectorized")
        return call(norm, anno.like(gast.Call(T.name(own), node.args, node.keywords), node),
                    out, dest, hint)
    generated = getattr(obj, "__srcgrad_generated__", None)
    if generated is not None:
        receiver = obj.__srcgrad_compiled__.bound  # the gradient of a bound method
        if receiver:
            node = gast.Call(node.func, [norm.ctx.constant(receiver[0])] + node.args,
                             node.keywords)
        sample = [_sample_of(norm, a) for a in _spread_known(norm, node.args)]
        if not node.keywords and not any(isinstance(a, gast.Starred) for a in node.args):
            sample += _none_defaults(obj.__srcgrad_compiled__, len(sample))
        raw = norm.ctx.namer.fresh(f"{hint}_raw")
        if norm.ctx.strong:
            inline.inline(norm, generated(sample, strong=True), None, node, out, raw)
        elif norm.ctx.values_seen:
            _gradient_call(norm, obj, sample, node, out, raw)
        else:  # (``sg.grad``: a gradient made non-finite so is computed again, strong)
            inline.inline(norm, generated(sample), None, node, out, raw)
        return call(norm, T.expr("_sg.writeable(g)", g=T.name(raw)), out, dest, hint)
    if isinstance(obj, gast.FunctionDef):
        return inline.inline(norm, obj, None, node, out, dest)
    if isinstance(obj, types.MethodType) and not is_library(obj.__func__):
        # ``obj.m(x)``, or ``f(x)`` for a bound method ``f`` passed in: its receiver
        # (``self.act(x)`` of ``self.act = other.apply``: ``other``, not ``self``).
        held = isinstance(f, gast.Attribute) \
            and not among(norm.scope.value(f.value), obj.__self__, MISSING)
        owner = f.value if isinstance(f, gast.Attribute) and not held else \
            gast.Attribute(copy.deepcopy(f), "__self__", gast.Load())
        receiver = norm.atom(owner, out, "receiver")
        return inline.inline(norm, obj.__func__, receiver, node, out, dest)
    if among(obj, copy.copy, copy.deepcopy) and len(node.args) == 1 and not node.keywords:
        return _copied(norm, node, obj is copy.deepcopy, out, dest, hint)
    if isinstance(obj, types.FunctionType) and not is_library(obj):
        return inline.inline(norm, obj, None, node, out, dest)
    if isinstance(obj, type) and trees.record_fields(obj) is not None:
        return record(norm, node, obj, out, dest, hint)
    if among(obj, list, tuple) and len(node.args) == 1 and not node.keywords:
        return sequence_call(norm, node, obj, out, dest, hint)
    if obj is dict:
        display = norm.facts.dict_display(node)
        if display is None and any(norm._pending_call(a) for a in node.args):
            norm._wait()  # (``p = helper(x)`` then ``dict(p)``: its keys once inlined)
        if display is None and not norm.deciding:
            raise Deferred
        if display is None:
            raise norm.ctx.error(
                f"`{gast.unparse(node).strip()}` builds a dict of differentiable values whose "
                "keys srcgrad cannot tell when compiling", norm.cur,
                "give the keys as constants: dict(a=x), dict(zip((\"a\", \"b\"), values)), "
                "dict(other_dict), dict([(\"a\", x), ...]), or a dict display {\"a\": x}")
        return norm.expr(anno.like(display, node), out, dest, hint)
    if among(obj, builtins.map, builtins.reversed):
        raise norm.ctx.error(
            f"`{obj.__name__}(...)` of differentiable values is supported as what a `for` loop "
            "or a comprehension iterates, and inside sum(...), list(...) and tuple(...)",
            norm.cur, f"iterate it where it is made, or make a list: list({obj.__name__}(...))")
    if isinstance(obj, type):
        _refuse_built(norm, obj)
    call_fn = getattr(type(obj), "__call__", None)
    if isinstance(call_fn, types.FunctionType) and not is_library(call_fn):
        receiver = norm.atom(f, out, "receiver")
        return inline.inline(norm, call_fn, receiver, node, out, dest)
    o = anno.origin(norm.cur)
    error = CompileError(f"no derivative rule for `{qualname(obj)}`", o.short() if o else None,
                         remedy="use a supported NumPy function, or wrap it with "
                         "srcgrad.custom_gradient")
    return _opaque(norm, node, out, dest, hint, error)


def _stored(norm, iterator):
    """Is the statement ``name = iterator(...)``: an iterator kept for later, not read
    where it is made?"""
    st = norm.cur
    return isinstance(st, gast.Assign) and isinstance(st.value, gast.Call) \
        and norm.scope.value(st.value.func) is iterator \
        and not all(isinstance(t, (gast.Tuple, gast.List)) for t in st.targets)


def _refuse_built(norm, cls):
    """``Model(W)`` of a class whose objects are not kept as their attributes
    (objects.py): refused, saying why."""
    why = objects.plain_class(cls)
    user_class = cls.__module__ != "builtins" and not is_library(cls)
    if why is None:
        why = ("the object is used other than through its attributes and methods (passed to "
               "code srcgrad does not compile, returned, put in a list or dict), its name is "
               "bound to other values, or it is built where the code may not run it (in a "
               "comprehension, a condition, after a read it could change)")
    raise norm.ctx.error(
        f"creating a `{cls.__name__}` from differentiable values is not supported"
        + (f": {why}" if user_class else ""), norm.cur,
        f"bind the object to a name used only for it (m = {cls.__name__}(...)), use it "
        f"through its attributes and methods, or make `{cls.__name__}` a dataclass (or a "
        "NamedTuple) of the values it holds" if user_class else None)


_DUNDERS = {gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "truediv",
            gast.FloorDiv: "floordiv", gast.Mod: "mod", gast.Pow: "pow", gast.MatMult: "matmul",
            gast.USub: "neg", gast.Invert: "invert", "getitem": "getitem", builtins.abs: "abs",
            gast.BitAnd: "and", gast.BitOr: "or", gast.BitXor: "xor", gast.LShift: "lshift",
            gast.RShift: "rshift"}


def record_operator(norm, op, operands):
    """``u @ v``, ``-u``, ``u[i]``, ``abs(u)`` where an operand is a dataclass built here
    (a record, ctx.records): (its class's method for it, the arguments), to inline as
    Python calls it; None if no operand is such a record, or it is a namedtuple without
    its own method (a tuple's operators: ``p + q`` joins). Refused where the class has
    no such method: the array rule would run on the record."""
    name = _DUNDERS.get(op if isinstance(op, str) or op is builtins.abs else type(op))
    if name is not None and any(getattr(a, "id", None) in norm.maybe_records for a in operands):
        # ``w = 2.0 * u`` inlined ``Vec.__rmul__`` this round: whether ``w`` is a record
        # is known in the next one (each round settles one more call).
        raise NotYet
    kinds = [norm.ctx.records.get(getattr(a, "id", None)) for a in operands]
    if name is None or not any(kinds):
        return None
    order = [(0, f"__{name}__")]
    if len(operands) == 2 and name != "getitem":
        order.append((1, f"__r{name}__"))
    for i, dunder in order:
        cls = kinds[i]
        member = inspect.getattr_static(cls, dunder, None) if cls is not None else None
        if isinstance(member, types.FunctionType) and not is_library(member):
            norm.ctx.guards.attribute(cls, dunder, member)
            args = [operands[i]] + [a for j, a in enumerate(operands) if j != i]
            if isinstance(args[-1], gast.Slice):
                raise norm.ctx.error(f"a slice passed to `{cls.__name__}.{dunder}` is not "
                                     "supported", norm.cur, "pass the start and stop to a method")
            return member, args
    if all(k is None or trees.is_namedtuple_class(k) for k in kinds):
        return None
    cls = next(k for k in kinds if k is not None)
    raise norm.ctx.error(f"`{cls.__name__}` defines no `__{name}__` for this operation on it",
                         norm.cur, f"define `__{name}__` in `{cls.__name__}`, or compute "
                         "with its fields")


def inline_dunder(norm, dunder, out, d):
    fn, args = dunder
    return inline.inline(norm, fn, None, gast.Call(T.name(fn.__name__), args, []), out, d)


def _super_member(norm, f):
    """The method ``super(Cls, r).m`` calls, ``r`` a record built here or an object known
    when compiling: the class after
    ``Cls`` in ``r``'s class's order that defines ``m``, if a user function; else None."""
    if not (isinstance(f.value, gast.Call) and norm.scope.value(f.value.func) is super
            and len(f.value.args) == 2 and isinstance(f.value.args[1], gast.Name)):
        return None
    start, receiver = norm.scope.value(f.value.args[0]), f.value.args[1].id
    cls = norm.ctx.records.get(receiver)
    held = norm.scope.value(f.value.args[1])
    if cls is None and held is not MISSING and is_static_object(held):
        cls = type(held)  # (an object the code was handed: a layer a tape's block calls)
    if cls is None or not isinstance(start, type) or start not in cls.__mro__:
        return None
    for k in cls.__mro__[cls.__mro__.index(start) + 1:]:
        if f.attr in vars(k):
            member = vars(k)[f.attr]
            norm.ctx.guards.attribute(k, f.attr, member)
            return member if isinstance(member, types.FunctionType) and not is_library(member) \
                else None
    return None


def type_test_of_variable(norm, node):
    """``isinstance(v, sg.Variable)`` where ``v`` holds the array read from a Variable a
    tape watches (what the compiled code computes with): the Variable's answer, known
    when compiling; None for any other expression."""
    if not (isinstance(node, gast.Call) and len(node.args) == 2 and not node.keywords
            and isinstance(node.args[0], gast.Name)
            and node.args[0].id in norm.ctx.read_from
            and norm.scope.value(node.func) is isinstance):
        return None
    cls = norm.scope.value(node.args[1])
    if cls is MISSING:
        return None
    try:
        return isinstance(norm.ctx.read_from[node.args[0].id], cls)
    except TypeError:
        return None


def _iterator_call(norm, node):
    """Is ``node`` ``map(...)`` or ``reversed(...)``, which a loop takes item by item?"""
    return isinstance(node, gast.Call) and not isinstance(node.func, gast.Call) \
        and norm.scope.value(node.func) in (builtins.map, builtins.reversed)


def record(norm, node, cls, out, dest, hint):
    """``Params(W, b)`` (a namedtuple) or ``Layer(W=W, b=b)`` (a dataclass) of
    differentiable values: a display of its fields, like a tuple or dict display
    (``ir.atoms.literal_items``), whose fields ``p.W`` reads back (``field``)."""
    fields = trees.record_fields(cls)
    if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None
                                                                  for k in node.keywords):
        raise norm.ctx.error(f"*args or **kwargs building a `{cls.__name__}` of "
                             "differentiable values is not supported", norm.cur)
    given = dict(zip(fields, node.args))
    for k in node.keywords:
        if k.arg not in fields or k.arg in given:
            raise norm.ctx.error(f"`{cls.__name__}` has no field `{k.arg}`, or it is given "
                                 "twice", norm.cur)
        given[k.arg] = k.value
    values = []
    for f in fields:
        if f in given:
            values.append(norm.atom(given[f], out, f"{hint}_{f}"))
            continue
        default = _record_default(norm, cls, f)  # (a factory's call: a new value here)
        values.append(norm.atom(default, out, f"{hint}_{f}") if isinstance(default, gast.Call)
                      else default)
    func = T.name(norm.ctx.inject(cls, cls.__name__))
    if trees.is_namedtuple_class(cls):
        display = gast.Call(func, values, [])
    else:
        display = gast.Call(func, [], [gast.keyword(f, v) for f, v in zip(fields, values)])
    d = norm._dest(dest, hint)
    built = norm._mark(T.assign(d, display), "literal")
    out.append(built)
    norm.ctx.containers.add(d)
    # (what each field holds: a list of records read back as one, ``model.layers``)
    inner = [(f, kind_of(norm.ctx, v.id)) for f, v in zip(fields, values)
             if isinstance(v, gast.Name)]
    built.sg_record = (cls, {f: k for f, k in inner if k is not None})
    note_kind(norm.ctx, d, built.sg_record)
    norm.varied.add(d)
    return d


def kind_of(ctx, name):
    """Where the records are in what ``name`` holds (``trees.record_kind``), as far as
    the compiler knows: a record built here or passed, a container of them, or None."""
    if name in ctx.records:
        return ctx.records[name], ctx.record_fields.get(name, {})
    return ctx.record_items.get(name)


def note_kind(ctx, name, kind):
    """``name`` holds a value of this ``kind`` (``kind_of``): its fields or items that are
    records are read as such (``field``, ``normalizer._split_subscript``)."""
    if isinstance(kind, tuple):
        ctx.records[name], ctx.record_fields[name] = kind
        ctx.record_items.pop(name, None)
    elif kind:
        ctx.record_items[name] = kind
        ctx.records.pop(name, None)
    else:  # (bound again to what is no record: a loop's variable over mixed items)
        ctx.records.pop(name, None)
        ctx.record_fields.pop(name, None)
        ctx.record_items.pop(name, None)


def sequence_call(norm, node, kind, out, dest, hint):
    """``list(seq)`` / ``tuple(seq)`` of differentiable values: of a list or tuple, the
    same items; of anything else (an array's rows, a generator expression), the list
    a comprehension makes (``[v for v in seq]``), then the tuple of it."""
    arg = node.args[0]
    if not (isinstance(arg, (gast.List, gast.Tuple, gast.ListComp))
            or isinstance(arg, gast.Name) and arg.id in norm.ctx.containers):
        if isinstance(arg, gast.GeneratorExp):
            arg = gast.ListComp(arg.elt, arg.generators)
        else:
            item = norm.ctx.namer.fresh("item")
            arg = gast.ListComp(T.name(item), [gast.comprehension(T.name(item, store=True),
                                                                  arg, [], 0)])
        if kind is list:
            return norm.expr(anno.like(arg, node), out, dest, hint)
    items = norm.atom(arg, out, f"{hint}_items")
    d = norm._dest(dest, hint)
    name = T.name(kind.__name__) if norm.scope.value(T.name(kind.__name__)) is kind \
        else norm.ctx.constant(kind)
    stmt = T.assign(d, gast.Call(name, [items], []))
    norm.ctx.containers.add(d)
    return _prim(norm, stmt, None, [items], {}, out, d, rule=helpers.SEQUENCE_COPY)


def _copied(norm, node, deep, out, dest, hint):
    """``copy.copy(v)`` / ``copy.deepcopy(v)`` of differentiable values: a dict whose keys
    or a list or tuple whose length the code shows built anew from its items (each item
    deep-copied, for ``deepcopy``), an array copied; another value is refused when run
    (``_sg.copy_value``)."""
    arg = node.args[0]

    def item(v):
        return gast.Call(norm.ctx.constant(copy.deepcopy), [v], []) if deep else v
    pairs = norm.facts.mapping(arg)
    n = norm.facts.length(arg) if pairs is None else None
    if pairs is not None:
        display = gast.Dict([T.const(k) for k, _ in pairs], [item(v) for _, v in pairs])
    elif n is not None:
        items = [item(gast.Subscript(T.clone(arg), T.const(i), gast.Load())) for i in range(n)]
        display = gast.Tuple(items, gast.Load()) if norm.facts.container_type(arg) is tuple \
            else gast.List(items, gast.Load())
    else:
        if norm._pending_call(arg):
            norm._wait()  # (``p = helper(x)`` then ``copy.copy(p)``: known once inlined)
        if not norm.deciding:
            raise Deferred
        o = anno.origin(norm.cur)
        operands = [norm.atom(arg, out, hint), T.const(f"copy.{'deepcopy' if deep else 'copy'}"),
                    T.const(o.short() if o else "?")]
        d = norm._dest(dest, hint)
        stmt = T.assign(d, T.expr("_sg.copy_value(v, n, w)", v=operands[0], n=operands[1],
                                  w=operands[2]))
        return _prim(norm, stmt, rt.copy_value, operands, {}, out, d)
    return norm.expr(anno.like(display, node), out, dest, hint)


def _record_default(norm, cls, field):
    """The expression of a record field's value where a call leaves it out: its
    default, a dataclass's ``default_factory`` called; refused where it has neither."""
    if not trees.is_namedtuple_class(cls):
        return dataclass_objects.default_of(norm, cls.__dataclass_fields__[field], cls,
                                            norm.cur)
    default = cls._field_defaults.get(field, MISSING)
    if default is MISSING:
        raise norm.ctx.error(f"`{cls.__name__}` is built without its field `{field}`, which "
                             "has no default value", norm.cur)
    return norm.ctx.constant(default)


def _replaced_record(norm, node):
    """``p._replace(b=v)`` of a namedtuple, ``dataclasses.replace(p, b=v)`` of a dataclass
    (``p`` a record the compiler reads by its fields): the record built anew, ``Cls(a=p.a,
    b=v)``, as both build it. None for another call (an unknown field: Python's error)."""
    f = node.func
    if isinstance(f, gast.Attribute) and f.attr == "_replace" and not node.args:
        record = f.value
    elif node.args and len(node.args) == 1 and norm.scope.value(f) is dataclasses.replace:
        record = node.args[0]
    else:
        return None
    if not isinstance(record, gast.Name):
        return None
    cls = norm.ctx.records.get(record.id) or norm.facts.record_class(record.id)
    if cls is None:
        return None
    fields = trees.record_fields(cls)
    given = {k.arg: k.value for k in node.keywords}
    if not set(given) <= set(fields) or dataclasses.is_dataclass(cls) and not all(
            fld.init for fld in dataclasses.fields(cls)):
        return None
    values = [gast.keyword(name, given[name] if name in given else
                           gast.Attribute(T.name(record.id), name, gast.Load()))
              for name in fields]
    return anno.like(gast.Call(norm.ctx.constant(cls), [], values), node)


def _record_member(norm, receiver, attr, kind):
    """The user function (``kind``: a method's, or a ``property``'s getter) that ``attr``
    of a record built here (a dataclass or namedtuple, whose instances hold their fields
    only) reads through its class, or None."""
    cls = norm.ctx.records.get(getattr(receiver, "id", None))
    if cls is None or attr in trees.record_fields(cls):
        return None
    member = inspect.getattr_static(cls, attr, None)
    norm.ctx.guards.attribute(cls, attr, getattr(cls, attr, MISSING))  # (not replaced since)
    if kind is property:
        member = member.fget if isinstance(member, property) else None
    return member if isinstance(member, types.FunctionType) and not is_library(member) \
        else None


def field(norm, node, out, dest, hint):
    """``p.W`` of a record built here: its item ``W`` (an index of a namedtuple)."""
    cls = norm.ctx.records[node.value.id]
    fields = trees.record_fields(cls)
    getter = _record_member(norm, node.value, node.attr, property)
    if getter is not None:  # ``p.area``, a property
        return inline.inline(norm, getter, T.name(node.value.id),
                             gast.Call(gast.Attribute(node.value, node.attr, gast.Load()),
                                       [], []), out, dest or norm._dest(dest, hint))
    if node.attr not in fields:
        raise norm.ctx.error(f"attribute `.{node.attr}` of a `{cls.__name__}` of "
                             "differentiable values is not one of its fields", norm.cur)
    d = norm._dest(dest, hint)
    if trees.is_namedtuple_class(cls):
        # An item, as unpacking reads it; its index taken from the record's own class
        # when run (the compiler's idea of which class it is only picks the path).
        index = norm.ctx.namer.fresh(f"{node.attr}_index")
        out.append(norm._mark(T.assign(index, T.expr("_sg.field_index(r, name)", r=node.value.id,
                                                       name=T.const(node.attr))), "opaque"))
        stmt = T.assign(d, gast.Subscript(T.name(node.value.id), T.name(index), gast.Load()))
        out.append(norm._mark(stmt, "getitem"))
        norm.varied.add(d)
        _note_field(norm, node, d)
        return d
    stmt = T.assign(d, T.expr("_sg.field(r, name)", r=node.value.id, name=T.const(node.attr)))
    d = _prim(norm, stmt, rt.field, [T.name(node.value.id), T.const(node.attr)], {}, out, d)
    _note_field(norm, node, d)
    return d


def _note_field(norm, node, d):
    """``d = r.f``: a record, or a container of records, if the field holds one."""
    note_kind(norm.ctx, d, norm.ctx.record_fields.get(node.value.id, {}).get(node.attr))


_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, np.ufunc,
              functools.partial)


def _instance_attribute(norm, f):
    """Is ``f`` (``obj.attr``) an attribute of an object known when compiling held in its
    own ``__dict__`` (not a method its class defines)?"""
    base = norm.scope.value(f.value)
    return base is not MISSING and not isinstance(base, (type, types.ModuleType)) \
        and f.attr in getattr(base, "__dict__", {})


def _opaque(norm, node, out, dest, hint, error):
    """A call run as it is; ``error`` is raised if a gradient must flow through it."""
    d = norm._dest(dest, hint)
    stmt = norm._mark(T.assign(d, node), "opaque")
    stmt.sg_norule = error
    out.append(stmt)
    norm.varied.add(d)
    return d


def _twice(norm, fn):
    """The error for differentiating a custom_gradient function's gradient again."""
    o = anno.origin(norm.cur)
    code = fn.__code__
    where = f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}"
    return CompileError(
        f"differentiating the gradient of custom_gradient function `{fn.__name__}` ({where}) "
        "again is not supported: its grad_fn is used as given, never differentiated",
        o.short() if o else None,
        remedy=f"for higher derivatives, differentiate a plain version of `{fn.__name__}` "
        "(without custom_gradient)")


def custom_call(norm, node, fn, out, dest, hint, receiver=None):
    """A ``custom_gradient`` function: keep its ``grad_fn`` for the backward pass
    (``receiver``: the object of a method's call, passed first, no adjoint of its own)."""
    if node.keywords:
        raise norm.ctx.error("keyword arguments to a custom_gradient function are not "
                             "supported", norm.cur)
    raw = norm.ctx.inject(_paired(fn), f"{fn.__name__}_with_grad")
    atoms = [norm.atom(a, out, hint) for a in node.args]
    d = norm._dest(dest, hint)
    pair = norm.ctx.namer.fresh(f"{d}_and_grad")
    given = ([receiver] if receiver is not None else []) + atoms
    out.append(norm._mark(T.assign(pair, gast.Call(T.name(raw), given, [])), "custom_pair"))
    stmt = T.assign(d, gast.Subscript(T.name(pair), T.const(0), gast.Load()))
    out.append(norm._mark(stmt, "custom", pair=pair, operands=atoms))
    norm.varied.add(d)
    return d


def _partial_call(norm, node, p):
    """``p(a)`` for ``p = functools.partial(f, c, k=d)``: ``f(c, a, k=d)``, the bound
    arguments being values known when compiling."""
    func = T.name(norm.ctx.inject(p.func, getattr(p.func, "__name__", "partial_func")))
    args = [norm.ctx.constant(a) for a in p.args] + list(node.args)
    given = {k.arg for k in node.keywords}
    keywords = [gast.keyword(k, norm.ctx.constant(v)) for k, v in p.keywords.items()
                if k not in given]
    return gast.Call(func, args, keywords + list(node.keywords))


def _paired(fn):
    """``fn`` (returning ``(y, grad_fn)``), marked so that a gradient of generated
    code calling it knows what it is. One per function: generated code stays cached."""
    pair = getattr(fn, "__srcgrad_paired__", None)
    if pair is None:
        def pair(*args):
            return fn(*args)
        pair.__srcgrad_custom_pair__ = fn
        fn.__srcgrad_paired__ = pair
    return pair


def _gradient_of(norm, call, lift=True):
    """``sg.grad(f, wrt=1)`` written where a function is called: made at compile time.

    Only srcgrad's own ``grad``/``value_and_grad`` with arguments known when
    compiling; the result is differentiated like any gradient (higher order).
    Returns it and the enclosing variables to pass first: those a def nested in the
    code reads (``closures.py``), or none. (``lift=False``: only whether it is one,
    without lifting a nested def out.)
    """
    import srcgrad

    fn = norm.scope.value(call.func)
    if fn is not srcgrad.grad and fn is not srcgrad.value_and_grad:
        return MISSING, []
    values = []
    for node in list(call.args) + [k.value for k in call.keywords]:
        if isinstance(node, (gast.Tuple, gast.List)) and all(isinstance(e, gast.Constant)
                                                            for e in node.elts):
            value = tuple(e.value for e in node.elts)  # wrt=(0, 1)
        elif isinstance(node, gast.Constant):
            value = node.value
        else:
            value = norm.scope.value(node)
        if value is MISSING:
            return MISSING, []
        values.append(value)
    args = values[:len(call.args)]
    kwargs = {k.arg: v for k, v in zip(call.keywords, values[len(call.args):])}
    target = args[0] if args else kwargs.get("f")
    if isinstance(target, gast.FunctionDef) and not lift:
        return target, []
    if isinstance(target, gast.FunctionDef):
        if not args or any(k.arg is None for k in call.keywords):
            raise norm.ctx.error(f"`{gast.unparse(call).strip()}`: pass the function first",
                                 norm.cur)
        return closures.lifted_gradient(norm, fn, target, args, kwargs)
    return fn(*args, **kwargs), []


def _inline_the_maker(norm, f):
    """``m.loss(y, x)`` where ``m = make_model(w)``, a call of the user's code that no
    differentiable value reaches, was run as it is: what it returns is not known when
    compiling. Its call is marked to be inlined (``sg_inline``) in the next round, which
    then knows the object ``m`` is (built in the code) and its method."""
    if not (isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name)
            and norm.counts.get(f.value.id) == 1
            and getattr(norm.cur, "sg_waits", 0) < _WAITS):
        return False
    bound = norm.facts.bound.get(f.value.id)
    if not isinstance(bound, gast.Call) or not _user_function(norm.scope.value(bound.func)):
        return False
    if getattr(bound, "sg_inline", False) and not norm.changed:
        return False  # (inlined, and still not known)
    bound.sg_inline = True
    norm.changed = True
    return waits(norm.cur)


def _record_class(obj):
    """A dataclass or namedtuple class of the user's (``Cls(...)(x)`` calls its
    ``__call__``)."""
    return isinstance(obj, type) and not is_library(obj) and trees.record_fields(obj) is not None


def _changes_its_objects(norm, cls):
    """A dataclass whose methods set its objects' attributes (``Cls(...).run()``: the
    object named first is one the code changes, objects.py; a record's methods are
    read from the call itself)."""
    return dataclass_objects.supported(cls) and dataclass_objects.methods_set_attributes(
        norm, cls)


def _user_function(obj):
    """A def or a plain class of the user's (not a library's, nor a record, whose methods
    are read from the call itself), as the code or a module holds it."""
    if isinstance(obj, gast.FunctionDef):
        return True
    if not isinstance(obj, (types.FunctionType, type)) or is_library(obj):
        return False
    module = (getattr(obj, "__module__", None) or "").split(".")[0]
    return module not in sys.stdlib_module_names and module != "srcgrad" \
        and not (isinstance(obj, type) and trees.record_fields(obj) is not None)


# NumPy's float types other than float64 (which has a rule of its own) called as casts.
_FLOAT_CASTS = (np.float32, np.float16, np.longdouble)  # (compared by identity)


def _spread_known(norm, args):
    """``args`` with each ``*seq`` of a known length written as its items (``gf(*args)``
    of a ``def h(*args)``: each item's sample), up to the first that is not."""
    out = []
    for k, a in enumerate(args):
        n = norm.facts.length(a.value) if isinstance(a, gast.Starred) else None
        if isinstance(a, gast.Starred) and n is None:
            return out + args[k:]
        out += [gast.Subscript(T.clone(a.value), T.const(i), gast.Load()) for i in range(n)] \
            if isinstance(a, gast.Starred) else [a]
    return out


def _keys_skeleton(norm, node, depth=4):
    """The dict ``node`` with its keys, and the nested dicts' keys the code shows, its
    other values None; or None if its keys are not known."""
    pairs = norm.facts.mapping(node) if depth else None
    if pairs is None:
        return None
    return {k: _keys_skeleton(norm, v, depth - 1) for k, v in pairs}


def _sample_of(norm, node):
    """What the inner gradient of ``sg.grad(sg.grad(f))`` may be specialised on.

    Objects, None, and the first call's value of a parameter passed on unchanged
    (its kind, rank included, is part of this code's own cache key), or of its item by
    constant keys; a dict's keys (nested dicts' too) and a tuple's length where the
    code shows them; else ``UNKNOWN_VALUE``.
    """
    if isinstance(node, gast.Name) and node.id in norm.ctx.arg_values \
            and norm.counts.get(node.id, 0) == 0:
        return norm.ctx.arg_values[node.id]
    passed = norm.facts.passed(node) if isinstance(node, gast.Subscript) else MISSING
    if type(passed) in (dict, tuple, np.ndarray):
        return passed  # (``args[0]``, ``params["enc"]``: an argument's value, or its item)
    skeleton = _keys_skeleton(norm, node)
    if skeleton is not None:
        # A dict display, or a name bound to one: its keys, nested dicts' too (the inner
        # code's d.get, dict comprehensions and views read them), its values only known
        # when run.
        return skeleton
    items = norm.facts.items(node) if norm.facts.container_type(node) is tuple else None
    if items is not None:
        # A tuple display, or a name bound to one (a tuple of parameters rebuilt from
        # its leaves): as many items (the inner code unrolls what it makes of them).
        return tuple(_sample_of(norm, item) for item in items)
    if isinstance(node, gast.Constant) and keyed_constant(node.value):
        return node.value  # (``sg.grad(f)(x, None)``: its tests on the None decided inside too)
    known = norm.known_constants().get(node.id, MISSING) if isinstance(node, gast.Name) \
        else MISSING
    if known is not MISSING and keyed_constant(known):
        return known
    obj = norm.scope.value(node) if isinstance(node, (gast.Name, gast.Attribute)) else MISSING
    if obj is not MISSING and is_static_object(obj):
        return obj
    return UNKNOWN_COMPLEX if norm.ctx.may_be_complex else UNKNOWN_VALUE


def _none_defaults(compiled, given):
    """The positional parameters a call of the gradient leaves to their defaults, up to
    the last one that is None (``act=None``): None for those, ``UNKNOWN_VALUE`` for the
    others. (Only for a call without keywords: one passing ``act=np.sin`` has another
    sample, and so other code.)"""
    out = []
    params = list(compiled.signature.parameters.values())[given - len(compiled.bound):]
    for p in params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.default is p.empty:
            break
        out.append(None if p.default is None else UNKNOWN_VALUE)
    while out and unknown(out[-1]):
        out.pop()
    return out


def _count_after(norm, args):
    """How many positional arguments ``args`` give (starred ones of known items)."""
    return sum(len(norm.facts.items(a.value)) if isinstance(a, gast.Starred) else 1
               for a in args)


def spread(norm, node, out):
    """``f(*args, **kw)`` as ``f(args[0], args[1], scale=kw["scale"])``: one argument per
    item, where the code shows how many items and which keys (``structure.py``), or
    where ``f`` takes a fixed number of positional arguments (checked when it runs,
    as Python does)."""
    args, keywords = [], []
    for at, a in enumerate(node.args):
        if not isinstance(a, gast.Starred):
            args.append(a)
            continue
        items = norm.facts.items(a.value)
        known = norm.known_constants().get(("len", a.value.id)) \
            if isinstance(a.value, gast.Name) else None
        if items is None:
            # (Another starred argument after it may hold any number: then the count of
            # this one is not the arity less the rest; hunt 6 bug_03.)
            later_unknown = any(isinstance(b, gast.Starred) and norm.facts.items(b.value) is None
                                for b in node.args[at + 1:])
            count = None if later_unknown else known if known is not None else \
                _arity(norm, node, len(args), _count_after(norm, node.args[at + 1:]))
            if count is None and norm.changed and waits(norm.cur):
                # Maybe bound by a call inlined in this round (``rows = pair(p)``): its
                # items are known in the next.
                raise NotYet
            if count is None:
                text = gast.unparse(a).strip()
                raise norm.ctx.error(
                    f"`{text}` in a call: srcgrad cannot tell when compiling how many items "
                    f"`{gast.unparse(a.value).strip()}` holds", norm.cur,
                    "spread a tuple or list the function builds (a display, list(...) or a "
                    "constant slice of one) or its own *args, call a function taking a fixed "
                    "number of arguments, or pass the items one by one")
            seq = norm.atom(a.value, out, "args")
            o = anno.origin(norm.cur)
            out.append(norm._mark(T.stmt("_sg.check_count(s, n, f, w)", s=T.clone(seq),
                                         n=T.const(count),
                                         f=T.const(gast.unparse(node.func).strip()),
                                         w=T.const(o.short() if o else "?")), "opaque"))
            items = [gast.Subscript(T.clone(seq), T.const(i), gast.Load()) for i in range(count)]
        args += items
    given = set()
    for k in node.keywords:
        pairs = [(k.arg, k.value)] if k.arg is not None else norm.facts.mapping(k.value)
        if pairs is None:
            text = gast.unparse(k.value).strip()
            raise norm.ctx.error(
                f"`**{text}` in a call: srcgrad cannot tell when compiling which keys "
                f"`{text}` holds", norm.cur,
                "spread a dict the function builds with constant keys (a display, dict(...), "
                "its own **kwargs), or pass the keyword arguments one by one")
        for key, value in pairs:
            if not isinstance(key, str) or key in given:
                raise norm.ctx.error(
                    f"keyword argument {key!r} is given twice, or is not a string, in "
                    f"`{gast.unparse(node).strip()}`", norm.cur)
            given.add(key)
            keywords.append(gast.keyword(key, value))
    return anno.like(gast.Call(node.func, args, keywords), node)


def _arity(norm, node, before, after):
    """How many items a ``*`` argument of ``node`` must give when the function called
    takes a fixed number of positional arguments (no ``*args``, no default from the
    items' place on), given ``before`` and ``after`` positional arguments around it."""
    obj = norm.scope.value(node.func) if not isinstance(node.func, gast.Call) else MISSING
    skip = 0  # ``self``
    if isinstance(obj, types.MethodType) and not is_library(obj.__func__):
        obj, skip = obj.__func__, 1
    elif obj is not MISSING and not isinstance(obj, (types.FunctionType, gast.FunctionDef, type)) \
            and norm.ctx.rule(obj) is None:
        call_fn = getattr(type(obj), "__call__", None)
        if isinstance(call_fn, types.FunctionType) and not is_library(call_fn):
            obj, skip = call_fn, 1
    if isinstance(obj, gast.FunctionDef):
        a = obj.args
        names = [p.id for p in a.posonlyargs + a.args]
        variadic, defaults = a.vararg is not None, len(a.defaults)
    elif isinstance(obj, types.FunctionType) and not is_library(obj):
        code = obj.__code__
        names = list(code.co_varnames[:code.co_argcount])
        variadic, defaults = bool(code.co_flags & inspect.CO_VARARGS), len(obj.__defaults__ or ())
    elif norm.ctx.rule(obj) is not None:
        ps = rule_params(norm.ctx.rule(obj))
        names = [p.name for p in ps if not p.variadic]
        variadic, defaults = any(p.variadic for p in ps), sum(p.default is not None for p in ps)
    else:
        return None
    start = skip + before
    count = len(names) - start - after
    if variadic or count < 0 or count and defaults \
            or {k.arg for k in node.keywords} & set(names[start:start + count]):
        return None  # the count would depend on the run, or Python refuses the call
    return count


def _dict_get(norm, node, out, dest, hint):
    """``d.get(key)`` / ``d.get(key, default)`` of a dict of differentiable values.

    With a key and keys known when compiling: ``d[key]``, or the default. Otherwise a
    test when the code runs (``_sg.dict_has`` also checks that ``d`` is a dict)::

        v = d.get(k, 0.0)     ->     if _sg.dict_has(d, k): v = d[k]
                                     else: v = 0.0
    """
    f = node.func
    args = list(node.args) + [k.value for k in node.keywords if k.arg == "default"]
    if not 1 <= len(args) <= 2 or any(k.arg != "default" for k in node.keywords):
        raise norm.ctx.error("`.get()` takes a key and an optional default", norm.cur)
    key, default = args[0], args[1] if len(args) == 2 else T.const(None)
    if expr_varied(key, norm.varied, norm.scope):
        raise norm.ctx.error("`.get()` of a dict with a key computed from differentiable "
                             "values is not supported", norm.cur,
                             "compute the key from values that carry no gradient")
    value = norm.facts.constant(key)
    keys = norm.facts.keys(f.value)
    if value is not MISSING and keys is not None:
        found = value in keys
        chosen = gast.Subscript(T.clone(f.value), T.const(value), gast.Load()) if found \
            else default
        return norm.expr(anno.like(chosen, node), out, dest, hint)
    receiver = norm.atom(f.value, out, hint)
    key = norm.atom(key, out, f"{hint}_key")
    test = T.expr("_sg.dict_has(d, k)", d=T.clone(receiver), k=T.clone(key))
    chosen = gast.IfExp(test, gast.Subscript(T.clone(receiver), T.clone(key), gast.Load()),
                        default)
    return norm.expr(anno.like(chosen, node), out, dest, hint)


def _a_variable(norm, node):
    """Is ``node`` a Variable a tape watches, or the array the compiled code holds for one
    (read from it, or passed in its place: ``as_arrays``)?"""
    if isinstance(node, gast.Name) and (
            node.id in norm.ctx.read_values or node.id in getattr(norm.ctx, "as_arrays", ())
            or norm.ctx.is_variable(getattr(norm.ctx, "param_values", {}).get(node.id))):
        return True
    return norm.scope.is_source(node)


def method(norm, node, out, dest, hint):
    f = node.func
    inherited = _super_member(norm, f)
    if inherited is not None:  # ``super().energy()`` in a record's method (inline.py)
        return inline.inline(norm, inherited, f.value.args[1], node, out, dest)
    if f.attr == "get" and not (isinstance(f.value, gast.Name) and f.value.id in norm.ctx.records):
        return _dict_get(norm, node, out, dest, hint)
    if f.attr == "numpy" and not node.args and not node.keywords and _a_variable(norm, f.value):
        # ``w.numpy()`` of a Variable a tape watches: its value as a new array, which
        # carries no gradient (TensorFlow's ``.numpy()``; logging a loss, a history).
        receiver = norm.atom(f.value, out, hint)
        d = norm._dest(dest, hint)
        out.append(norm._mark(T.assign(d, T.expr("_sg.value_copy(v)", v=receiver)), "opaque"))
        return d
    receiver = norm.atom(f.value, out, hint)
    own = _record_member(norm, receiver, f.attr, types.FunctionType)
    if own is not None:  # ``Point(x, y).norm()``: a method of a record built here
        return inline.inline(norm, own, receiver, node, out, dest)
    if f.attr == "pop" and isinstance(receiver, gast.Name) and not node.args and not node.keywords:
        if receiver.id not in norm.scope.locals:
            # (the backward code would put the item back into the module's list, where
            # the code's later calls read it)
            raise norm.ctx.error(
                f"`{gast.unparse(node).strip()}` takes a differentiable value off a module's "
                "list: srcgrad's backward code puts such items back, which would change what "
                "the list holds after the call", norm.cur,
                "keep the values in a list the function makes (or is given), not a module's")
        norm.ctx.containers.add(receiver.id)
        d = norm._dest(dest, hint)
        call = gast.Call(gast.Attribute(receiver, "pop", gast.Load()), [], [])
        out.append(norm._mark(T.assign(d, call), "pop"))
        norm.varied.add(d)
        return d
    spec = table.METHODS.get(f.attr)
    if spec is None and norm.changed and waits(norm.cur):
        # Maybe of a record a call inlined in this round returns (``p.scaled(k).norm()``).
        raise NotYet
    if spec is None and f.attr in ("keys", "values", "items") and not norm.deciding:
        # ``sum(merged.values())`` of a dict a later round shows (a merge, the items of a
        # helper's tuple): its items then (dict_keys.py), decided when nothing changes
        raise Deferred
    if spec is None and f.attr in ("keys", "values") and not node.args and not node.keywords:
        # Of a dict whose keys only the run knows (``layer.values()`` of a layer a loop
        # reads from a tree by its runtime keys): the view as a list when it runs.
        d = norm._dest(dest, hint)
        norm.ctx.containers.add(d)
        if f.attr == "keys":
            out.append(norm._mark(T.assign(d, T.expr("_sg.dict_keys(v)", v=receiver)),
                                  "opaque"))
            return d
        stmt = T.assign(d, T.expr("_sg.dict_values(v)", v=receiver))
        return _prim(norm, stmt, rt.dict_values, [receiver], {}, out, d)
    if spec is None and isinstance(f.value, gast.Call):
        raise norm.ctx.error(
            f"method `.{f.attr}()` of the value `{gast.unparse(f.value).strip()}` returns: "
            "srcgrad cannot tell yet whether it is a record whose class has that method",
            norm.cur, f"bind it to a name first: p = {gast.unparse(f.value).strip()}; "
            f"p.{f.attr}(...)")
    if spec is None:
        raise norm.ctx.error(f"method `.{f.attr}()` of a differentiable value has no derivative "
                             "rule", norm.cur)
    fn, style = spec
    args = list(node.args)
    if style == "shape" and len(args) > 1:
        args = [gast.Tuple(args, gast.Load())]
    written_out = rewrites.rewrite(fn, {k.arg for k in node.keywords},
                                   1 + _positional(args)) if style == "plain" else None
    if written_out is not None:  # ``x.sum(where=m)``: ``np.sum(x, where=m)`` written out
        return inline.inline(norm, written_out, None,
                             gast.Call(f, [receiver] + args, node.keywords), out, dest)
    call = gast.Call(gast.Attribute(receiver, f.attr, gast.Load()), args, node.keywords)
    rule = norm.ctx.rule(fn)
    if rule is None and table.nondiff(fn):
        # x.argmax(), x.round(): integer-valued or piecewise constant, no gradient flows
        # (where ir/varied did not already tell).
        d = norm._dest(dest, hint)
        out.append(norm._mark(T.assign(d, call), "opaque"))
        return d
    return prim_call(norm, call, fn, rule, out, dest, hint, receiver=receiver)


def _positional(args):
    """How many positional arguments ``args`` are (0 if one is unpacked: not known)."""
    return 0 if any(isinstance(a, gast.Starred) for a in args) else len(args)


def _einsum_string(norm, node):
    """``np.einsum(x, [0, 1], [1, 0])`` (the sublist form) as ``np.einsum('ab->ba', x)``.

    The rule reads a subscripts string; sublists written as constants convert
    when compiling, others when the code runs (``_sg.einsum_sublists``).
    """
    args = node.args
    if not args or isinstance(args[0], gast.Constant) and isinstance(args[0].value, str):
        return node
    known = norm.scope.value(args[0]) if isinstance(args[0], (gast.Name, gast.Attribute)) \
        else None
    if isinstance(args[0], gast.Name) and not isinstance(known, str):
        known = norm.known_constants().get(args[0].id)  # (a parameter given a string)
    if isinstance(known, str):  # (a constant, guarded as the code's constants are)
        return gast.Call(node.func, [T.const(known)] + list(args[1:]), node.keywords)
    if any(isinstance(a, gast.Starred) for a in args):
        raise norm.ctx.error("np.einsum with arguments spread from a sequence (*args) is not "
                             "supported", norm.cur, "pass the subscripts and operands one by one")
    o = anno.origin(norm.cur)
    where = T.const(o.short() if o else "?")
    subs = args[1::2]
    output = args[-1] if len(args) % 2 else None
    axes = [_sublist_axes(norm, sub) for sub in subs + ([output] if output else [])]
    if None in axes:
        # Subscripts the code computes: made a string when it runs (which also checks
        # the form taken: an operand where a string is read, or the reverse, is refused).
        if not _einsum_operand_first(norm, args[0]):
            text = T.expr("_sg.einsum_subscripts(s, w)", s=args[0], w=where)
            return gast.Call(node.func, [text] + list(args[1:]), node.keywords)
        text = T.expr("_sg.einsum_sublists(s, w)", w=where,
                      s=gast.List(list(subs) + [output or T.const(None)], gast.Load()))
    else:
        letters = string.ascii_letters
        spec = ["".join("..." if a is Ellipsis else letters[a] for a in sub) for sub in axes]
        text = T.const(",".join(spec[:len(subs)]) + ("->" + spec[-1] if output else ""))
    operands = args[0:len(args) - len(args) % 2:2]
    return gast.Call(node.func, [text] + list(operands), node.keywords)


def _einsum_operand_first(norm, first):
    """Is ``np.einsum(first, ...)`` the sublist form: ``first`` differentiated, or an array
    when compiled (a parameter passed unchanged: its kind is part of the cache key)?"""
    if expr_varied(first, norm.varied, norm.scope):
        return True
    if isinstance(first, gast.Name) and first.id in norm.ctx.arg_values \
            and norm.counts.get(first.id, 0) == 0:
        return not isinstance(norm.ctx.arg_values[first.id], str)
    value = norm.scope.value(first) if isinstance(first, (gast.Name, gast.Attribute)) else None
    return isinstance(value, np.ndarray)


def _sublist_axes(norm, sub):
    """The axes of an einsum sublist written as a list or tuple of constant axis numbers
    (or ``...``), else None."""
    if not isinstance(sub, (gast.Tuple, gast.List)):
        return None
    axes = [e.value if isinstance(e, gast.Constant) else norm.scope.value(e) for e in sub.elts]
    ok = all(a is Ellipsis or type(a) is int and 0 <= a < 52 for a in axes)
    return axes if ok else None


# Parameters of NumPy's and SciPy's functions that take a sequence of arrays, not one
# array_like (np.concatenate's ``arrays``, np.select's ``choicelist``, cho_solve's pair).
_SEQUENCE_PARAMS = frozenset({"operands", "arrays", "tup", "object", "arys", "choicelist",
                              "condlist", "c_and_lower", "varargs"})


def _reads_arrays(fn, rule):
    """Does ``fn`` read its differentiated operands as NumPy arrays (NumPy's and SciPy's
    functions; not Python's ``pow`` or ``sum``, where a list is a list)?"""
    if rule.rank == "from_list":
        return False
    module = getattr(fn, "__module__", None)
    return module is None and isinstance(fn, np.ufunc) \
        or module is not None and module.split(".")[0] in ("numpy", "scipy")


def _ufunc_dtype(norm, node, fn):
    """``np.sin(x, dtype=np.float32)``: the ufunc's loop for a floating or complex dtype
    known when compiling, which casts the operands to it: written as the cast
    (``_sg.astype``, which has a rule). Other dtypes stay refused."""
    given = [k for k in node.keywords if k.arg == "dtype"]
    if not given or len(node.args) != fn.nin or any(isinstance(a, gast.Starred) for a in node.args):
        return node
    value = given[0].value
    found = value.value if isinstance(value, gast.Constant) else norm.scope.value(value)
    try:
        dtype = np.dtype(found)
    except TypeError:
        return node
    if found is None or dtype.kind not in "fc":
        return node
    cast = [T.expr("_sg.astype(a, d)", a=a, d=copy.deepcopy(value)) for a in node.args]
    keywords = [k for k in node.keywords if k.arg != "dtype"]
    return anno.like(gast.Call(node.func, cast, keywords), node)


def prim_call(norm, node, fn, rule, out, dest, hint, receiver=None):
    if fn is np.einsum:
        node = _einsum_string(norm, node)
    if isinstance(fn, np.ufunc):
        node = _ufunc_dtype(norm, node, fn)
    fname = getattr(fn, "__name__", "call")
    base = f"{norm.root}_{fname}" 
    ps = rule_params(rule)
    positional = [receiver] if receiver is not None else []
    positional += list(node.args)
    bound = {}
    i = 0
    for p in ps:
        if p.variadic:
            rest = positional[i:]
            elts = [norm.atom(a, out, f"{base}_{p.name}") for a in rest]
            lst = norm.ctx.namer.fresh(f"{base}_{p.name}")
            lit = norm._mark(T.assign(lst, gast.List(elts, gast.Load())), "literal")
            out.append(lit)
            norm._list_items[lst] = elts
            norm.ctx.containers.add(lst)
            if any(isinstance(e, gast.Name) and e.id in norm.varied for e in elts):
                norm.varied.add(lst)
            bound[p.name] = T.name(lst)
            i = len(positional)
            continue
        if i < len(positional):
            bound[p.name] = positional[i]
            i += 1
    if i < len(positional):
        raise norm.ctx.error(f"too many arguments to `{fname}`", norm.cur)
    kw_names = {p.name for p in ps}
    for kw in node.keywords:
        if kw.arg not in kw_names:
            raise norm.ctx.error(f"keyword argument `{kw.arg}` of `{fname}` is not supported "
                                 "when differentiating", norm.cur)
        bound[kw.arg] = kw.value
    written = dict(bound)
    if _reads_arrays(fn, rule):
        # NumPy reads a list or tuple operand as an array; the grads compute with their
        # operands by operators (``x * x`` for np.arctan, ``x > 0`` for an l1 norm's),
        # which a list would repeat or compare as a whole.
        for name in set(rule.grads) - _SEQUENCE_PARAMS:
            value = bound.get(name)
            if isinstance(value, (gast.List, gast.Tuple)) or value is not receiver \
                    and isinstance(value, gast.Name) and value.id in norm.ctx.containers:
                bound[name] = T.expr("_sg.arrayed(a)", a=value)
    args = {}
    for p in ps:
        if p.name in bound:
            value = bound[p.name]
            if value is receiver or (isinstance(value, gast.Name) and p.variadic):
                args[p.name] = value
            else:
                args[p.name] = norm.atom(value, out, f"{base}_{p.name}")
        elif p.default is not None:
            args[p.name] = copy.deepcopy(p.default)
        elif not p.variadic:
            raise norm.ctx.error(f"missing argument `{p.name}` of `{fname}`", norm.cur)
    # The forward call keeps the user's spelling, with atoms in place of expressions.
    atoms = {id(written[k]): args[k] for k in bound if k in args}
    variadic = next((p for p in ps if p.variadic), None)
    if variadic is not None and variadic.name in args:
        # The rule sees the varargs as one list (its adjoint is a list);
        # the forward call keeps them spread out.
        fixed = [args[p.name] for p in ps if not p.variadic and p.name in args
                 and any(bound.get(p.name) is a for a in positional)]
        if receiver is not None:
            fixed = fixed[1:]
        new_args = fixed + [copy.deepcopy(e) for e in norm._list_items[args[variadic.name].id]]
    else:
        new_args = [atoms.get(id(a), a) for a in node.args]
    new_kw = [gast.keyword(k.arg, atoms.get(id(k.value), k.value)) for k in node.keywords]
    func = node.func
    if receiver is not None:
        func = gast.Attribute(receiver, func.attr, gast.Load())
    d = norm._dest(dest, hint)
    stmt = T.assign(d, gast.Call(func, new_args, new_kw))
    note_container(norm, d, fn, args.get(ps[0].name) if ps else None)
    return _prim(norm, stmt, fn, None, args, out, d, rule=rule)


def _prim(norm, stmt, fn, operands, args, out, d, rule=None):
    rule = rule or norm.ctx.rule(fn)
    if rule is None:
        raise norm.ctx.error(f"no derivative rule for `{qualname(fn)}`", norm.cur)
    if operands is not None:
        ps = rule_params(rule)
        args = dict(zip([p.name for p in ps], operands))
        for p in ps:
            if p.name not in args and p.default is not None:
                args[p.name] = copy.deepcopy(p.default)
    norm._mark(stmt, "prim", rule=rule, args=args, func=fn)
    out.append(stmt)
    try:
        fields = table.RESULT_FIELDS.get(fn)
    except TypeError:  # an unhashable callable
        fields = None
    if fields is not None:
        norm.ctx.result_fields[d] = fields
    if any(isinstance(a, gast.Name) and a.id in norm.varied for k, a in args.items()
           if k in rule.grads):
        norm.varied.add(d)
    return d

# -- inlining --------------------------------------------------------------
