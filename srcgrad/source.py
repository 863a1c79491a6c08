"""Find and parse the source of a function, keeping the way back to user lines."""
import inspect
import linecache
import os
import textwrap
from dataclasses import dataclass, field

import gast

from .errors import CompileError, SourceUnavailableError

# Counts parses, so tests can prove that a cached call parses nothing.
PARSE_COUNT = [0]


@dataclass
class Origin:
    """Where a statement came from in the user's code."""

    filename: str
    lineno: int
    text: str

    def short(self):
        return f"{os.path.basename(self.filename)}:{self.lineno}"


@dataclass
class FunctionSource:
    """A parsed function plus what is needed to resolve its names."""

    fn: object
    node: gast.FunctionDef
    filename: str
    line_offset: int  # add to a node's lineno to get the file's line number
    globals: dict
    freevars: dict = field(default_factory=dict)  # name -> cell

    def origin(self, node):
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return Origin(self.filename, self.line_offset + 1, "")
        real = lineno + self.line_offset
        return Origin(self.filename, real, linecache.getline(self.filename, real).strip())

    def error(self, message, node, remedy=None):
        o = self.origin(node)
        return CompileError(message, o.short(), None, remedy)


def _lambda_to_def(fn, module):
    code = fn.__code__
    names = list(code.co_varnames[: code.co_argcount])
    found = [n for n in gast.walk(module) if isinstance(n, gast.Lambda)
             and [a.id for a in n.args.args] == names]
    if len(found) != 1:
        raise CompileError(
            "cannot tell which lambda on this line to differentiate",
            f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}",
            remedy="define the function with def",
        )
    lam = found[0]
    node = gast.FunctionDef(
        name="lambda_", args=lam.args, body=[gast.Return(lam.body)],
        decorator_list=[], returns=None, type_comment=None, type_params=[],
    )
    gast.copy_location(node, lam)
    gast.copy_location(node.body[0], lam)
    return node


def parse_function(fn):
    """Parse ``fn``'s source into a gast FunctionDef."""
    generated = getattr(fn, "__srcgrad_source__", None)
    code = fn.__code__
    filename = code.co_filename
    try:
        if generated is not None:
            lines, start = generated.splitlines(True), 1
        else:
            lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(
            f"cannot find the source code of {fn.__qualname__!r}",
            filename,
            remedy="put the code in a file (or a notebook cell) rather than typing it at "
            "a bare python prompt or running exec() on a string, or use @srcgrad.function",
        ) from exc
    text = textwrap.dedent("".join(lines))
    PARSE_COUNT[0] += 1
    try:
        module = gast.parse(text)
    except SyntaxError as exc:
        # A decorated one-liner or a lambda in the middle of an expression.
        raise SourceUnavailableError(
            f"cannot parse the source of {fn.__qualname__!r}: {exc.msg}", filename
        ) from exc
    if fn.__name__ == "<lambda>":
        node = _lambda_to_def(fn, module)
    else:
        defs = [n for n in module.body if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef))]
        if not defs:
            raise SourceUnavailableError(f"no function definition found for {fn.__qualname__!r}", filename)
        node = defs[0]
    node.decorator_list = []
    freevars = {}
    if code.co_freevars:
        freevars = dict(zip(code.co_freevars, fn.__closure__ or ()))
    return FunctionSource(
        fn=fn, node=node, filename=filename, line_offset=start - 1,
        globals=fn.__globals__, freevars=freevars,
    )
