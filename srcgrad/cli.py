"""The ``srcgrad`` command (SPEC section 3).

``srcgrad show TARGET`` prints exactly what ``srcgrad.adjoint_source`` returns,
so the command and the API can never disagree about the generated code.

Every failure is one line ``srcgrad: <message>`` on stderr and a non-zero exit
status, never a traceback: the user's problem is their target or their code,
and a traceback into srcgrad's internals would only hide that.
"""
import argparse
import contextlib
import importlib
import importlib.util
import inspect
import os
import re
import sys

import numpy as np

from . import __version__, adjoint_source
from .errors import CompileError

EXIT_FAILURE = 1  # the target's code cannot be compiled
EXIT_USAGE = 2  # the command line or the target itself is wrong

TARGET_FORMS = "'package.module:function' or 'path/to/file.py:function'"


class UsageError(Exception):
    """A bad command line or target: exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like all of ours.

    argparse prints the whole usage block before its message; the help is
    one ``--help`` away, and one line keeps errors greppable and uniform.
    """

    def error(self, message):
        self.exit(EXIT_USAGE, f"srcgrad: {message} (see '{self.prog} --help')\n")


def main(argv=None) -> int:
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, --version and usage errors
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    try:
        return args.run(args)
    except UsageError as error:
        return _fail(EXIT_USAGE, str(error))
    except CompileError as error:
        return _fail(EXIT_FAILURE, str(error))
    except (TypeError, ValueError) as error:
        # The API raises these for a bad ``wrt`` (unknown name, integer input).
        return _fail(EXIT_USAGE, str(error))
    except Exception as error:  # a bug in srcgrad: still one line, no traceback
        return _fail(EXIT_FAILURE, f"internal error: {_describe(error)}")


def _build_parser():
    parser = _Parser(
        prog="srcgrad",
        description="Source-to-source gradients for plain Python + NumPy.",
    )
    parser.add_argument("--version", action="version", version=f"srcgrad {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)

    show = commands.add_parser("show", help="print the generated gradient source")
    _add_target_arguments(show)
    show.add_argument(
        "--mode", choices=("reverse", "forward"), default="reverse",
        help="reverse (adjoint) or forward (tangent) mode; default reverse",
    )
    show.set_defaults(run=_cmd_show)

    export = commands.add_parser("export", help="write a standalone module that needs only NumPy")
    _add_target_arguments(export)
    export.add_argument("-o", "--output", required=True, metavar="FILE", help="module to write")
    export.add_argument(
        "--mode", choices=("reverse", "value_and_grad", "forward"), default="reverse",
        help="the gradient (reverse, default), the value and the gradient, or the "
             "forward-mode code (value and directional derivative)")
    export.set_defaults(run=_cmd_export)

    explain = commands.add_parser("explain", help="print the activity analysis of the target")
    _add_target_arguments(explain)
    explain.set_defaults(run=_cmd_explain)
    return parser


def _add_target_arguments(parser):
    parser.add_argument("target", metavar="TARGET", help=f"the function: {TARGET_FORMS}")
    parser.add_argument(
        "--wrt", metavar="NAMES", type=_parse_wrt,
        help="comma-separated parameter names or indices (default: the first parameter)",
    )
    parser.add_argument(
        "--args", metavar="KINDS", type=_parse_kinds,
        help="the kinds of the positional arguments, to show the code compiled for them, "
             "e.g. 'float64[3], float64[100,3], float' (default: code for any kinds)",
    )


# --- subcommands: one small function each, returning the exit status -------

def _cmd_show(args):
    from .forward import tangent_source

    function = load_target(args.target)
    show = tangent_source if args.mode == "forward" else adjoint_source
    source = show(function, **_wrt_keyword(args))
    _write_stdout(source if source.endswith("\n") else source + "\n")
    return 0


def _cmd_export(args):
    from .export import export_source

    function = load_target(args.target)
    text = export_source(function, mode=args.mode, **_wrt_keyword(args))
    try:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as error:
        raise UsageError(f"cannot write {args.output!r}: {error.strerror}") from None
    name = text.split("\ndef ")[-1].split("(", 1)[0]
    needs = "NumPy and SciPy" if "\nimport scipy" in text else "only NumPy"
    _write_stdout(f"wrote {args.output}: {name}() needs {needs}\n")
    return 0


def _cmd_explain(args):
    from .explain import explain

    function = load_target(args.target)
    _write_stdout(str(explain(function, **_wrt_keyword(args))) + "\n")
    return 0


def _wrt_keyword(args):
    # Without --wrt the API's own default applies, so the two cannot drift.
    out = {} if args.wrt is None else {"wrt": args.wrt}
    if getattr(args, "args", None) is not None:
        out["args"] = args.args
    return out


def _parse_kinds(text):
    """``"float64[3], float64[2,3], float"`` -> example values of those kinds: arrays of
    ones of the dtype and shape, a Python float (``float``), int or complex."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text + ","):
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    if depth != 0 or not all(items):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of kinds "
                                         "such as float64[3], float64[2,3] or float")
    values = []
    for item in items:
        match = re.fullmatch(r"([a-z]+[0-9]*)(?:\[([0-9, ]*)\])?", item)
        if match is None:
            raise argparse.ArgumentTypeError(f"{item!r} in {text!r} is not a kind such as "
                                             "float, float64[3] or float32[2,3]")
        dtype, shape = match.groups()
        if shape is None and dtype in ("float", "int", "complex"):
            values.append({"float": 1.0, "int": 1, "complex": 1j}[dtype])
            continue
        try:
            kind = np.dtype(dtype)
        except TypeError:
            raise argparse.ArgumentTypeError(f"unknown dtype {dtype!r} in {text!r}") from None
        dims = tuple(int(d) for d in shape.split(",") if d.strip()) if shape else ()
        values.append(np.ones(dims, kind) if shape is not None else kind.type(1))
    return values


def _parse_wrt(text):
    """``"x"`` -> ``"x"``, ``"0"`` -> ``0``, ``"x,1"`` -> ``("x", 1)``.

    One item stays a scalar: the API returns a tuple of gradients only when
    ``wrt`` names several arguments, and ``show`` must match that call.
    """
    items = [item.strip() for item in text.split(",")]
    parsed = []
    for item in items:
        if item.lstrip("-").isdigit():
            parsed.append(int(item))
        elif item.isidentifier():
            parsed.append(item)
        else:
            raise argparse.ArgumentTypeError(
                f"{item!r} in {text!r} is neither a parameter name nor an index"
            )
    return parsed[0] if len(parsed) == 1 else tuple(parsed)


# --- targets --------------------------------------------------------------

def load_target(target):
    """The function named by ``module:attr`` or ``file.py:attr``.

    ``attr`` may be dotted (``Class.method``). Raises ``UsageError`` with a
    one-line message for anything that does not name a Python function.
    """
    location, _, qualname = target.rpartition(":")  # rpartition: "C:\x.py:f"
    parts = qualname.split(".")
    if not location or not all(part.isidentifier() for part in parts):
        raise UsageError(f"bad target {target!r}: expected {TARGET_FORMS}")
    if _looks_like_path(location):
        module = _import_file(location)
    else:
        module = _import_module(location, target)
    obj = module
    for depth, part in enumerate(parts):
        if not hasattr(obj, part):
            owner = location if depth == 0 else ".".join(parts[:depth])
            raise UsageError(f"{owner!r} has no attribute {part!r}{_suggest(obj)}")
        obj = getattr(obj, part)
    if not (inspect.isfunction(obj) or inspect.ismethod(obj)):
        raise UsageError(f"{target!r} is not a Python function (it is {_kind(obj)})")
    return obj


def _looks_like_path(location):
    return location.endswith(".py") or "/" in location or os.sep in location


def _import_file(path):
    if not os.path.isfile(path):
        raise UsageError(f"no such file: {path!r}")
    given, path = path, os.path.abspath(path)
    name = _module_name_for(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise UsageError(f"cannot load {given!r}: not a Python source file")
    # Its directory goes first on sys.path, as when running the file as a
    # script, so that the file's imports of its siblings work.
    directory = os.path.dirname(path)
    if sys.path[:1] != [directory]:
        sys.path.insert(0, directory)
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs: inspect.getsource and the module's own
    # dataclasses/pickling look functions up through sys.modules.
    sys.modules[name] = module
    try:
        _run_user_module(lambda: spec.loader.exec_module(module), repr(given))
    except UsageError:
        del sys.modules[name]
        raise
    return module


def _module_name_for(path):
    """A module name for ``path`` that does not hide an unrelated module.

    The file's stem, as a sibling's ``import stem`` would name it, unless
    that name already belongs to another module (``types.py``, ``test.py``).
    """
    stem = os.path.splitext(os.path.basename(path))[0]
    name = re.sub(r"\W", "_", stem)
    if not name.isidentifier():  # empty, or starts with a digit
        name = "_" + name
    existing = sys.modules.get(name)
    if existing is None:
        return name
    existing_file = getattr(existing, "__file__", None)
    if existing_file and os.path.abspath(existing_file) == path:
        return name
    return f"_srcgrad_target_{name}"


def _import_module(dotted, target):
    if not all(part.isidentifier() for part in dotted.split(".")):
        raise UsageError(f"bad target {target!r}: expected {TARGET_FORMS}")
    # The console script does not put the working directory on sys.path;
    # `python -m srcgrad` does. Both should find the same modules.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    return _run_user_module(lambda: importlib.import_module(dotted), f"module {dotted!r}")


def _run_user_module(load, what):
    """``load()``, turning any failure of the user's module into one line."""
    try:
        # What the module prints goes to stderr: stdout carries only the
        # generated source, so that `srcgrad show f.py:f > g.py` works.
        with contextlib.redirect_stdout(sys.stderr):
            return load()
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # SystemExit too: a module may call sys.exit
        raise UsageError(f"cannot import {what}: {_describe(error)}") from None


def _suggest(obj):
    if not inspect.ismodule(obj):
        return ""
    names = sorted(
        name for name, value in vars(obj).items()
        if inspect.isfunction(value) and value.__module__ == obj.__name__
        and not name.startswith("_")
    )
    if not names:
        return ""
    shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
    return f" (functions defined there: {shown})"


def _kind(obj):
    if inspect.isclass(obj):
        return f"the class {obj.__name__}"
    if inspect.ismodule(obj):
        return f"the module {obj.__name__}"
    return f"a value of type {type(obj).__name__}"


# --- output ---------------------------------------------------------------

def _describe(error):
    text = str(error)
    if isinstance(error, SystemExit):
        text = f"exit status {error.code}"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _fail(status, message):
    # One line even when an exception's text spans several.
    sys.stderr.write("srcgrad: " + message.replace("\n", " ") + "\n")
    return status


def _write_stdout(text):
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # `srcgrad show ... | head`: the reader left; Python would otherwise
        # print a traceback while flushing stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
