"""Reject what the compiler does not support, up front, naming the user's line.

Runs before any other pass, so later passes may assume the subset of Python
listed in SPEC section 4.

Before/after::

    def f(x):                   CompileError: try statement with a finally
        try:                    clause is not supported (model.py:2). Move the
            y = x * 2           finally clause's code after the try statement
        finally:
            log(x)
        return y

(A ``try`` the compiler takes is a branch by now: passes/try_except.py; the reason
it gives for one it cannot take is ``sg_refusal``.)
"""
import builtins

import gast

from ..ir import templates as T

_REJECTED = {
    gast.Try: "try statement",
    gast.With: "with statement",
    gast.AsyncWith: "async with statement",
    gast.AsyncFor: "async for statement",
    gast.AsyncFunctionDef: "async function",
    gast.Await: "await expression",
    gast.Yield: "yield expression",
    gast.YieldFrom: "yield from expression",
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
    "nonlocal statement": "return the new value instead",
    "try statement": "move the try/except outside the differentiated function",
    # (A ``del name`` nothing reads past is dropped before: passes/deletes.py.)
    "del statement": "delete only names nothing reads afterwards (not in a loop that reads "
                     "them again), or bind a new dict without the key",
    # (An import whose names nothing else binds is read as the modules and functions it
    # imports: compiler/source.py. This one rebinds a name, or does not import.)
    "import statement inside a function": "move the import to the top of the module, or "
                                          "give the imported name no other binding",
}


def _check_top_args(args, src, node, what):
    """``**kwargs`` of the function differentiated itself: its keywords are not part of
    what the compiled code is specialised on (a function it calls may have them)."""
    if args.kwarg is not None:
        raise src.error(f"**{args.kwarg.id} parameter of {what} is not supported", node,
                        "list the keyword parameters explicitly, or differentiate a "
                        "function that calls this one with its keyword arguments")


def _starred_in_comprehensions(top):
    """Starred targets of comprehensions (``[a for a, *b in pairs]``): desugar lowers
    those of assignments and loops only."""
    for node in T.walk(top):
        if isinstance(node, gast.comprehension):
            for n in T.walk(node.target):
                if isinstance(n, gast.Starred):
                    yield n


def _from_a_string(call, src):
    """``eval(...)`` / ``exec(...)``, the builtins (not a function of that name)."""
    f = call.func
    return isinstance(f, gast.Name) and f.id in ("eval", "exec") \
        and src.freevars.get(f.id) is None \
        and src.globals.get(f.id, getattr(builtins, f.id)) is getattr(builtins, f.id)


def check(src, allow_with=False, differentiated=False, keywords=None):
    """Raise CompileError for the first unsupported construct in ``src.node``.

    ``allow_with``: with statements are left to the tape (``@sg.function``
    bodies hold ``with GradientTape()`` blocks). ``differentiated``: ``src`` is the
    function differentiated itself, not one it calls; ``keywords``: the keys its
    ``**kwargs`` holds in the call compiled for (None: not known, refused).
    """
    top = src.node
    if differentiated and keywords is None:
        _check_top_args(top.args, src, top, f"function {top.name!r}")
    for node in _starred_in_comprehensions(top):
        raise src.error("starred target of a comprehension is not supported", node,
                        "unpack the item in a for loop: first, *rest = item")
    for node in T.walk(top):
        if allow_with and isinstance(node, gast.With):
            continue
        refusal = getattr(node, "sg_refusal", None)  # (passes/try_except.py)
        if refusal is not None:
            message, at, remedy = refusal
            raise src.error(message, at, remedy)
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
        if isinstance(node, gast.Call) and _from_a_string(node, src):
            raise src.error(f"`{node.func.id}()` of code from a string is not supported", node,
                            "write the code itself in the function: srcgrad differentiates "
                            "source it can read")
