"""Check every public way of differentiating a program against finite differences.

``check(program, forms, directory)`` writes the program to a module file
(harness.py), imports it, runs ``f`` plainly and takes central differences
(fd.py), then runs each form and returns one ``Outcome`` per form:

- ``ok``: values and gradients agree with the plain call and the differences;
- ``refused``: srcgrad raised ``sg.CompileError`` (allowed by the contract);
- ``inconclusive``: the differences are unstable where the gradient disagrees
  or could not be checked (a kink or a flipping branch within the step), or,
  for second order, the first-order gradient is already wrong, or, for
  ``model``, the plain program does not run on ``sg.Variable`` inputs (an
  in-place update of a Variable raises ``TypeError`` by design);
- ``FAIL``: a wrong gradient, value or shape, a changed input, any other
  exception (a crash) or a timeout;
- ``harness``: a defect of the fuzzer, not of srcgrad: ``object_f`` called
  plainly does not give exactly ``f``'s value (objects.py rewrote ``f`` wrongly).

A program that is not a valid test by itself (its plain call raises, overflows
anywhere inside, is not finite, or changes its inputs) raises ``InvalidProgram``: a generator defect,
never a verdict on srcgrad.
"""
import importlib.util
import itertools
import signal
import sys
import traceback
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import srcgrad as sg

from . import fd
from .harness import module_source
from .program import copies

FORMS = ("grad", "value", "tape", "function", "second", "tree", "jvp", "complex", "model",
         "object", "numba")
OPT_IN = ("numba",)  # forms run only when asked for (Numba compiles each program: seconds)
TIME_LIMIT = 30            # seconds per form: compiling included
PLAIN_TIME_LIMIT = 10      # seconds for the plain calls of a program (a shrinking step can
                           # delete the ``k += 1`` of a while loop)
VALUE_RTOL = 1e-9          # compiled forward code against the plain call
LARGEST = 1e6              # larger values or derivatives make the program invalid
SECOND_ORDER_SIZE = 4      # second order for one input of at most this many elements

_modules = itertools.count()


@dataclass(frozen=True)
class Outcome:
    status: str       # "ok", "refused", "inconclusive", "FAIL" or "harness"
    kind: str = ""    # FAIL: what went wrong; refused: the construct srcgrad names
    detail: str = ""  # expected and got, or the error message

    def same_failure(self, other):
        return self.status == "FAIL" and other.status == "FAIL" and self.kind == other.kind


OK = Outcome("ok")


class InvalidProgram(Exception):
    """The plain program is not a valid test."""


class _Timeout(BaseException):
    # BaseException: srcgrad's own ``except Exception`` must not swallow it.
    pass


@contextmanager
def _time_limit(seconds):
    def expire(signum, frame):
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def second_order_eligible(program):
    args = program.args
    return len(args) == 1 and np.size(args[0]) <= SECOND_ORDER_SIZE


def check(program, forms, directory):
    """``{form: Outcome}`` for the requested ``forms`` (second order only if eligible)."""
    second = "second" in forms and second_order_eligible(program)
    module = _load(program, directory, second)
    try:
        with _quiet():
            return _Checker(program, module).run(
                [f for f in forms if f != "second" or second])
    finally:
        sys.modules.pop(module.__name__, None)


def _load(program, directory, second):
    name = f"fuzz_{next(_modules)}"
    path = Path(directory) / f"{name}.py"
    try:
        text = module_source(program, np.shape(program.args[0]) if second else None)
    except (SyntaxError, ValueError) as e:  # a shrinking step removed f, or its parameter
        raise InvalidProgram(f"no module: {e}") from e
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        sys.modules.pop(name, None)
        raise InvalidProgram(f"import failed: {e!r}") from e
    return module


class _Checker:
    def __init__(self, program, module):
        self.args = program.args
        self.module = module
        self.f = module.f
        self.wrt = 0 if len(self.args) == 1 else tuple(range(len(self.args)))
        self.value = self._plain(self.f, self.args)
        self.scale = max(1.0, abs(self.value))
        self.reference = [self._partials(self.f, i) for i in range(len(self.args))]

    # ---------------------------------------------------------------- the plain program

    def _plain(self, fn, args):
        given = copies(args)
        try:
            # (An overflow inside, even one the result does not show, makes the
            # derivative inf * 0 = nan where finite differences see a flat function.)
            with _time_limit(PLAIN_TIME_LIMIT), np.errstate(over="raise"):
                value = fn(*given)
        except _Timeout:
            raise InvalidProgram("plain call did not finish") from None
        except Exception as e:
            raise InvalidProgram(f"plain call raised {e!r}") from e
        if not _is_float_scalar(value) or not np.isfinite(value) or abs(value) > LARGEST:
            raise InvalidProgram(f"plain call returned {value!r}")
        if _changed(given, args):
            raise InvalidProgram("plain call changed its inputs")
        return float(value)

    def _partials(self, fn, i):
        def scalar(*a):
            return float(np.asarray(fn(*a), dtype=np.float64))

        try:
            with _time_limit(PLAIN_TIME_LIMIT):
                estimate, stable = fd.partials(scalar, self.args, i, self.scale)
        except _Timeout:
            raise InvalidProgram("finite differences did not finish") from None
        except Exception as e:
            raise InvalidProgram(f"finite differences raised {e!r}") from e
        if np.any(np.abs(estimate[stable]) > LARGEST):
            raise InvalidProgram("derivatives too large for finite differences")
        return estimate, stable

    # ---------------------------------------------------------------- forms

    def run(self, forms):
        outcomes = {}
        for form in forms:
            if form == "second":
                outcomes[form] = self._second(outcomes.get("grad"))
            else:
                outcomes[form] = self._guarded(getattr(self, f"_{form}"))
        return outcomes

    def _guarded(self, compute):
        """Run one form: ``compute(args)`` -> Outcome, with errors classified."""
        given = copies(self.args)
        try:
            with _time_limit(TIME_LIMIT):
                outcome = compute(given)
        except sg.CompileError as e:
            return Outcome("refused", getattr(e, "construct", str(e)), str(e))
        except _Timeout:
            return Outcome("FAIL", "timeout", f"no result within {TIME_LIMIT} s")
        except Exception as e:
            return Outcome("FAIL", f"crash: {type(e).__name__}", _error_text(e))
        if outcome.status == "ok" and _changed(given, self.args):
            return Outcome("FAIL", "mutated input", "an input differs after the call")
        return outcome

    def _grad(self, given):
        return self._judge(_as_list(sg.grad(self.f, wrt=self.wrt)(*given), self.wrt))

    def _value(self, given):
        value, grads = sg.value_and_grad(self.f, wrt=self.wrt)(*given)
        return self._judge(_as_list(grads, self.wrt), value)

    def _numba(self, given):
        """``backend="numba"``: the generated code compiled with Numba; a refusal is a
        ``CompileError`` like any other."""
        return self._judge(_as_list(sg.grad(self.f, wrt=self.wrt, backend="numba")(*given),
                                    self.wrt))

    def _tree(self, given):
        """The inputs as one parameter tree: a dict read by key, and a tuple unpacked."""
        keys = list(self.module.f.__code__.co_varnames[:len(given)])  # f's parameters
        by_key = sg.grad(self.module.dict_f)(dict(zip(keys, given)))
        if list(by_key) != keys:
            return Outcome("FAIL", "wrong structure", f"dict gradient keys {list(by_key)}")
        outcome = self._judge([by_key[k] for k in keys])
        if outcome.status != "ok":
            return outcome
        value, by_position = sg.value_and_grad(self.module.tuple_f)(tuple(copies(self.args)))
        if type(by_position) is not tuple or len(by_position) != len(keys):
            return Outcome("FAIL", "wrong structure", f"tuple gradient {by_position!r}")
        return self._judge(list(by_position), value)

    def _complex(self, given):
        """The same program compiled for complex values (a complex constant beside it):
        the complex forms of its rules must give the real gradient on real inputs."""
        return self._judge(_as_list(sg.grad(self.module.complex_f, wrt=self.wrt)(*given),
                                    self.wrt))

    def _jvp(self, given):
        """Forward mode (``compiler/tangents.py``, not sg.jvp's fallback): the tangent along
        each input element is that partial derivative."""
        from srcgrad.compiler.tangents import compile_tangent

        jvp = compile_tangent(self.f, list(range(len(self.args))), copies(given)).fn
        grads, value = [], None
        for i, arg in enumerate(self.args):
            partials = np.zeros(np.shape(arg))
            for idx in np.ndindex(np.shape(arg)):
                tangents = [np.zeros(np.shape(a)) if np.ndim(a) else 0.0 for a in self.args]
                one = np.zeros(np.shape(arg))
                one[idx] = 1.0
                tangents[i] = one if np.ndim(arg) else 1.0
                value, partials[idx] = jvp(*copies(given), *tangents)
            grads.append(partials if np.ndim(arg) else float(partials))
        return self._judge(grads, value)

    def _tape(self, given):
        value, grads = self.module.tape_f(*given)
        return self._judge(grads, value)

    def _function(self, given):
        value, grads = self.module.function_f(*given)
        return self._judge(grads, value)

    def _model(self, given):
        """Each input a trainable ``sg.Variable`` in a container the tape block reads
        (harness.model_style); the plain program must first run the same on Variables."""
        problem = self._on_variables(given)
        if problem:
            return Outcome("inconclusive", "not a program of Variables", problem)
        value, grads = self.module.model_f(*given)
        return self._judge(grads, value)

    def _object(self, given):
        """``f``'s state in an object built inside the differentiated function (objects.py):
        ``value_and_grad`` and ``grad`` of ``object_f``, once its plain call is ``f``'s."""
        fn = getattr(self.module, "object_f", None)
        if fn is None:
            return Outcome("inconclusive", "no object form",
                           getattr(self.module, "OBJECT_F_PROBLEM", "object_f missing"))
        problem = self._plain_object(fn)
        if problem:
            return Outcome("harness", "object_f differs from f", problem)
        value, grads = sg.value_and_grad(fn, wrt=self.wrt)(*given)
        outcome = self._judge(_as_list(grads, self.wrt), value)
        if outcome.status != "ok":
            return outcome
        return self._judge(_as_list(sg.grad(fn, wrt=self.wrt)(*given), self.wrt))

    def _plain_object(self, fn):
        """Why the plain call of ``object_f`` is not exactly ``f``'s, or ''."""
        given = copies(self.args)
        try:
            with _time_limit(PLAIN_TIME_LIMIT), np.errstate(over="raise"):
                value = fn(*given)
        except _Timeout:
            return "the plain call of object_f did not finish"
        except Exception as e:
            return f"the plain call of object_f raised {_error_text(e)}"
        if not _is_float_scalar(value) or float(value) != self.value:
            return f"object_f gave {value!r}, f {self.value!r}"
        if _changed(given, self.args):
            return "the plain call of object_f changed its inputs"
        return ""

    def _on_variables(self, given):
        """Why ``f`` called plainly with Variables is no test of the tape, or ''."""
        try:
            with np.errstate(over="raise"):
                value = self.f(*(sg.Variable(a) for a in copies(given)))
            value = float(value)
        except Exception as e:
            return f"the plain call with Variables raised {_error_text(e)}"
        if not abs(value - self.value) <= VALUE_RTOL * self.scale:
            return f"the plain call with Variables gave {value!r}, with arrays {self.value!r}"
        return ""

    _NO_VALUE = object()

    def _judge(self, grads, value=_NO_VALUE):
        """The verdict on ``grads``, and on ``value`` for the forms that return one."""
        if value is not self._NO_VALUE:
            ok = value is not None and np.shape(value) == () and \
                abs(float(value) - self.value) <= VALUE_RTOL * self.scale
            if not ok:
                return Outcome("FAIL", "wrong value", f"expected {self.value!r}, got {value!r}")
        return compare(grads, self.args, self.reference, self.scale)

    def _second(self, first):
        """Second order: the gradient of ``np.sum(sg.grad(f)(x) * DIRECTION)``."""
        if first is None:
            first = self._guarded(self._grad)
        if first.status == "refused":
            return first
        if first.status != "ok":
            return Outcome("inconclusive", "first order " + first.status,
                           "the first-order gradient could not be confirmed")
        second_f = self.module.second_f
        try:
            scale = max(1.0, abs(self._plain(second_f, self.args)))
            with _time_limit(PLAIN_TIME_LIMIT):
                reference = [fd.partials(lambda *a: float(second_f(*a)), self.args, 0, scale)]
        except (Exception, _Timeout) as e:  # the first-order gradient fails near x, not at it
            return Outcome("inconclusive", "second-order differences",
                           f"grad(f) near x failed: {e!r}")
        return self._guarded(lambda given: compare(
            [sg.grad(second_f)(*given)], self.args, reference, scale))


def compare(grads, args, reference, scale):
    """The verdict on gradients ``grads`` of ``args`` against (estimate, stable) pairs."""
    if len(grads) != len(args):
        return Outcome("FAIL", "wrong shape", f"{len(grads)} gradients for {len(args)} inputs")
    unstable = []
    for i, (g, arg, (estimate, stable)) in enumerate(zip(grads, args, reference)):
        if g is None:  # unconnected (a tape's None): the true gradient must be zero
            g = np.zeros(np.shape(arg))
        if np.shape(g) != np.shape(arg):
            return Outcome("FAIL", "wrong shape",
                           f"gradient {i} has shape {np.shape(g)}, input {np.shape(arg)}")
        g = np.asarray(g, dtype=np.float64)
        wrong = ~np.isfinite(g) | (np.abs(g - estimate) > 2 * fd.tolerance(estimate, scale))
        if np.any(wrong & stable):
            return Outcome("FAIL", "wrong gradient",
                           f"gradient {i}: expected {_show(estimate)}, got {_show(g)}")
        if np.any(wrong & ~stable):
            unstable.append(i)
    if unstable:
        return Outcome("inconclusive", "unstable differences",
                       f"gradients {unstable} disagree where finite differences are unstable")
    return OK


def _is_float_scalar(value):
    return isinstance(value, (float, np.floating, np.ndarray)) and np.shape(value) == () \
        and np.asarray(value).dtype.kind == "f"


def _as_list(grads, wrt):
    return list(grads) if isinstance(wrt, tuple) else [grads]


def _changed(given, original):
    return any(isinstance(a, np.ndarray) and not np.array_equal(a, b, equal_nan=True)
               for a, b in zip(given, original))


def _show(a):
    text = np.array2string(np.asarray(a), precision=6, suppress_small=True, separator=", ",
                           max_line_width=10_000)
    return " ".join(text.split())  # one line, for summaries and reproducer comments


def _error_text(e):
    """The message and the innermost frame: where in srcgrad or the generated code."""
    frames = traceback.extract_tb(e.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{type(e).__name__}: {e}{where}"
