"""Reject what the compiler does not support, up front, naming the user's line.

Runs before any other pass, so later passes may assume the subset of Python
listed in SPEC section 4.

Before/after::

    def f(x):                   CompileError: try statement is not supported
        try:                    (model.py:2). Move the try/except outside the
            y = x * 2           differentiated function
        except ValueError:
            y = x
        return y
"""
import builtins

import gast

_REJECTED = {
    gast.Try: "try statement",
    gast.With: "with statement",
    gast.AsyncWith: "async with statement",
    gast.AsyncFor: "async for statement",
    gast.AsyncFunctionDef: "async function",
    gast.Await: "await expression",
    gast.Yield: "yield expression",
    gast.YieldFrom: "yield from expression",
    gast.Global: "global statement",
    gast.Nonlocal: "nonlocal statement",
    gast.ClassDef: "class definition inside a function",
    gast.Delete: "del statement",
    gast.Import: "import statement inside a function",
    gast.ImportFrom: "import statement inside a function",
    gast.Lambda: "lambda expression",
    gast.NamedExpr: "assignment expression (:=)",
    gast.SetComp: "set comprehension",
}
for _name, _what in (("TryStar", "try/except* statement"), ("Match", "match statement")):
    if hasattr(gast, _name):
        _REJECTED[getattr(gast, _name)] = _what

_REMEDIES = {
    "lambda expression": "define the function with def",
    "global statement": "pass the value in as an argument",
    "nonlocal statement": "return the new value instead",
    "try statement": "move the try/except outside the differentiated function",
}


def _check_args(args, src, node, what):
    if args.kwarg is not None:
        raise src.error(f"**{args.kwarg.id} parameter of {what} is not supported", node,
                        "list the keyword parameters explicitly")


def _from_a_string(call, src):
    """``eval(...)`` / ``exec(...)``, the builtins (not a function of that name)."""
    f = call.func
    return isinstance(f, gast.Name) and f.id in ("eval", "exec") \
        and src.freevars.get(f.id) is None \
        and src.globals.get(f.id, getattr(builtins, f.id)) is getattr(builtins, f.id)


def check(src, allow_with=False):
    """Raise CompileError for the first unsupported construct in ``src.node``.

    ``allow_with``: with statements are left to the tape (``@sg.function``
    bodies hold ``with GradientTape()`` blocks).
    """
    top = src.node
    _check_args(top.args, src, top, f"function {top.name!r}")
    for node in gast.walk(top):
        if allow_with and isinstance(node, gast.With):
            continue
        what = _REJECTED.get(type(node))
        if what is not None:
            raise src.error(f"{what} is not supported", node, _REMEDIES.get(what))
        if isinstance(node, (gast.For, gast.While)) and node.orelse:
            kind = "for" if isinstance(node, gast.For) else "while"
            raise src.error(f"else clause on a {kind} loop is not supported", node,
                            "use a flag variable instead")
        if isinstance(node, gast.FunctionDef) and node is not top:
            if node.decorator_list:
                raise src.error("decorated nested function is not supported", node)
            _check_args(node.args, src, node, f"nested function {node.name!r}")
        if isinstance(node, gast.Starred) and isinstance(node.ctx, gast.Store):
            raise src.error("starred assignment target is not supported", node)
        if isinstance(node, gast.Call) and _from_a_string(node, src):
            raise src.error(f"`{node.func.id}()` of code from a string is not supported", node,
                            "write the code itself in the function: srcgrad differentiates "
                            "source it can read")
        if isinstance(node, gast.Call):
            for kw in node.keywords:
                if kw.arg is None:
                    raise src.error("**mapping argument in a call is not supported", node)
