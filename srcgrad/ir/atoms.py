"""Small helpers shared by the normalizing passes: constants, names for temporaries."""
import functools
import types

import gast
import numpy as np

OP_NAMES = {
    gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "div", gast.Pow: "pow",
    gast.MatMult: "matmul", gast.Mod: "mod", gast.FloorDiv: "floordiv", gast.USub: "neg",
    gast.UAdd: "pos",
}
# How the user wrote an operator: ``x -= v`` is named in messages as it was written.
OP_SYMBOLS = {
    gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
    gast.MatMult: "@", gast.Mod: "%", gast.FloorDiv: "//", gast.BitAnd: "&", gast.BitOr: "|",
    gast.BitXor: "^", gast.LShift: "<<", gast.RShift: ">>",
}


def is_constant(node):
    """Literal constants that may be repeated in adjoint code as they are."""
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return is_constant(node.operand)
    if isinstance(node, gast.Tuple):
        return all(is_constant(e) for e in node.elts)
    return False


def number(node):
    """The value of a numeric constant expression, or None."""
    try:
        value = eval(compile(gast.gast_to_ast(gast.Expression(node)), "<const>", "eval"), {})
    except Exception:
        return None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def is_simple_index(node):
    return isinstance(node, gast.Name) or is_constant(node)


def short(node):
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Constant):
        return "c"
    if isinstance(node, gast.Call):
        f = node.func
        return f.attr if isinstance(f, gast.Attribute) else getattr(f, "id", "call")
    if isinstance(node, gast.BinOp):
        return OP_NAMES.get(type(node.op), "op")
    if isinstance(node, gast.Subscript):
        return short(node.value) + "_item"
    if isinstance(node, gast.Attribute):
        return node.attr
    return "t"


def root(s):
    """The user's name a statement computes: temporaries are named after it."""
    if isinstance(s, gast.Assign):
        t = s.targets[0]
        while isinstance(t, (gast.Subscript, gast.Attribute)):
            t = t.value
        names = [n.id for n in gast.walk(t) if isinstance(n, gast.Name)]
        if names:
            return names[0]
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
        f = s.value.func
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name):
            return f.value.id
    return "result"


def hint(target):
    names = [n.id for n in gast.walk(target) if isinstance(n, gast.Name)]
    return "_".join(names) or "item"


class _Unknown:
    """An argument of the inner gradient of ``sg.grad(sg.grad(f))`` known only when the
    code runs (``calls._sample_of``): a None in a sample is the value passed.
    ``may_be_complex``: the code calling the gradient may pass a complex value (the
    inner code is compiled with the rules for complex values, whose second derivatives
    its caller takes: for a real one, ``abs``'s adjoint is ``g * sign(x)``, piecewise
    constant)."""

    def __init__(self, may_be_complex):
        self.may_be_complex = may_be_complex

    def __repr__(self):
        return "UNKNOWN_COMPLEX" if self.may_be_complex else "UNKNOWN_VALUE"


UNKNOWN_VALUE = _Unknown(False)
UNKNOWN_COMPLEX = _Unknown(True)


def unknown(value):
    """Is ``value`` one of the samples above (an argument known only when run)?"""
    return isinstance(value, _Unknown)


# A string argument longer than this is keyed by its type only, not a constant of the code.
STRING_KEY_MAX = 200


def keyed_constant(value):
    """Is ``value`` an argument the compiled code is keyed on by value, and so a
    constant of it: None, and strings (einsum subscripts, a mode's name)?"""
    return value is None or type(value) is str and len(value) <= STRING_KEY_MAX


def known_sample(sample):
    """``sample`` with each ``UNKNOWN_VALUE`` as None, for what reads values only."""
    return None if sample is None else [None if unknown(v) else v for v in sample]


def is_static_object(obj):
    return not isinstance(obj, (int, float, complex, np.ndarray, np.generic, str, bytes, list,
                                dict, tuple, type(None), _Unknown))


# Objects the compiler reads or inlines as they are: code specialised on one of them
# is only valid for that very object (the cache keys on its identity).
BY_IDENTITY = (types.FunctionType, types.BuiltinFunctionType, types.BuiltinMethodType,
               np.ufunc, functools.partial, type, types.ModuleType)


def walked_object(value):
    """Is ``value`` an object whose attributes the cache key describes (the classes of
    its attributes, its Variables' ranks and sizes: ``cache._structure``,
    ``ranks.size_classes``)? Not arrays, Variables, functions, methods, classes or
    modules."""
    return hasattr(value, "__dict__") and not isinstance(value, (BY_IDENTITY, types.MethodType)) \
        and not hasattr(value, "__array__")


def qualname(obj):
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    if module and module not in ("builtins",):
        if module.startswith("numpy"):
            module = "np" + module[5:]
        return f"{module}.{name}"
    return name


def literal_items(value):
    """(key, item) pairs of a list, tuple or dict literal, or of a record built from its
    fields (``Params(W, b)``: by position for a namedtuple, ``Params(W=W, b=b)``: by
    field name for a dataclass, whose adjoint is a dict)."""
    if isinstance(value, gast.Dict):
        return list(zip(value.keys, value.values))
    if isinstance(value, gast.Call):
        return [(gast.Constant(i, None), e) for i, e in enumerate(value.args)] + \
            [(gast.Constant(k.arg, None), k.value) for k in value.keywords]
    return [(gast.Constant(i, None), e) for i, e in enumerate(value.elts)]


def is_sg_call(node):
    """A call of a runtime helper: ``_sg.name(...)``."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and isinstance(node.func.value, gast.Name) and node.func.value.id == "_sg"
