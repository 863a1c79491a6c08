"""srcgrad refuses unsupported code with a CompileError naming construct, file and line.

The refused functions live in ``tests/error_cases`` so that their file names and
line numbers are real; each offending line carries a ``# MARK: <key>`` comment
and the expected line number is found by searching for it.
"""
import os
import re

import numpy as np
import pytest

import srcgrad as sg
from error_cases import semantic_cases as sem
from error_cases import syntax_cases as syn

_MARK = re.compile(r"#\s*MARK:\s*(\S+)")


def _marks(module):
    path = module.__file__
    found = {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            for key in _MARK.findall(line):
                assert key not in found, f"duplicate marker {key} in {path}"
                found[key] = lineno
    return found


SYN_LINES = _marks(syn)
SEM_LINES = _marks(sem)


def _where(module, key):
    lines = SYN_LINES if module is syn else SEM_LINES
    return f"{os.path.basename(module.__file__)}:{lines[key]}"


def _compile_error(f, args, wrt=0):
    with pytest.raises(sg.CompileError) as info:
        sg.grad(f, wrt=wrt)(*args)
    return str(info.value)


def _assert_names(message, words, where):
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert f"({where})" in message, f"expected location ({where}) in {message!r}"


X = np.array([0.5, 1.5, 2.5])

# (function, args, words the message must contain, marker key)
SYNTAX_CASES = [
    (syn.try_statement, (1.0,), ["try statement", "not supported"], "try"),
    (syn.try_star_statement, (1.0,), ["try/except*", "not supported"], "try_star"),
    (syn.with_statement, (1.0,), ["with statement", "not supported"], "with"),
    (syn.yield_expression, (1.0,), ["yield expression", "not supported"], "yield"),
    (syn.yield_from_expression, (1.0,), ["yield from", "not supported"], "yield_from"),
    (syn.global_statement, (1.0,), ["declared global", "bound other than by `=`"], "global"),
    (syn.nonlocal_statement, (1.0,), ["nonlocal statement", "not supported"], "nonlocal"),
    (syn.async_function, (1.0,), ["async function", "not supported"], "async_def"),
    (syn.lambda_in_comprehension, (1.0,), ["lambda expression", "not supported"], "lambda"),
    (syn.class_definition, (1.0,), ["class definition", "not supported"], "class"),
    (syn.del_statement, (1.0,), ["del statement", "not supported"], "del"),
    (syn.match_statement, (1.0, 0), ["match statement", "not supported"], "match"),
    (syn.import_statement, (1.0,), ["import statement", "not supported"], "import"),
    (syn.import_from_statement, (1.0,), ["import statement", "not supported"], "import_from"),
    (syn.walrus, (1.0,), [":=", "not supported"], "walrus"),
    (syn.set_comprehension, (X,), ["set comprehension", "not supported"], "setcomp"),
    (syn.dict_comprehension, (X,), ["dict comprehension", "not supported"], "dictcomp"),
    (syn.double_star_call, (X,), ["`**_options()` in a call", "which keys"], "double_star"),
]


@pytest.mark.parametrize("f, args, words, key", SYNTAX_CASES,
                         ids=[c[3] for c in SYNTAX_CASES])
def test_unsupported_syntax(f, args, words, key):
    message = _compile_error(f, args)
    _assert_names(message, words, _where(syn, key))


@pytest.mark.parametrize("f, args, words, key", SYNTAX_CASES,
                         ids=[c[3] for c in SYNTAX_CASES])
def test_unsupported_syntax_through_value_and_grad(f, args, words, key):
    """value_and_grad refuses the same code at the same line; the source was found."""
    with pytest.raises(sg.CompileError) as info:
        sg.value_and_grad(f)(*args)
    err = info.value
    assert not isinstance(err, sg.SourceUnavailableError)
    assert _where(syn, key) in str(err)


def test_kwargs_parameter_where_its_keys_are_not_known():
    """A call compiles for the keys it passes (tests/test_keyword_parameters.py); the
    code shown without a call has no keys to compile for."""
    with pytest.raises(sg.CompileError) as info:
        sg.adjoint_source(syn.kwargs_parameter)
    _assert_names(str(info.value), ["**options parameter", "not supported"],
                  _where(syn, "kwargs"))


def test_await_expression():
    """``await`` only exists inside ``async def``: either construct may be named."""
    message = _compile_error(syn.await_expression, (1.0,))
    assert "not supported" in message
    assert (f"({_where(syn, 'await_def')})" in message and "async function" in message) or \
           (f"({_where(syn, 'await')})" in message and "await" in message), message


def test_error_is_raised_at_call_not_at_grad():
    g = sg.grad(syn.try_statement)  # creating the gradient function must not fail
    assert callable(g)
    with pytest.raises(sg.CompileError):
        g(1.0)


def test_error_is_raised_again_on_second_call():
    g = sg.grad(syn.del_statement)
    for _ in range(2):
        with pytest.raises(sg.CompileError, match="del statement"):
            g(1.0)


def test_adjoint_source_raises_compile_error():
    with pytest.raises(sg.CompileError) as info:
        sg.adjoint_source(syn.del_statement)
    _assert_names(str(info.value), ["del statement"], _where(syn, "del"))


def test_remedies_are_given():
    message = _compile_error(syn.try_statement, (1.0,))
    assert "move the finally clause's code after the try statement" in message.lower()
    message = _compile_error(syn.lambda_in_comprehension, (1.0,))
    assert "def" in message.split(")", 1)[1]


# ---- found after the fence ---------------------------------------------------

def test_direct_recursion():
    message = _compile_error(sem.direct_recursion, (1.0, 3))
    _assert_names(message, ["recursive call", "`direct_recursion`", "not supported"],
                  _where(sem, "recursion"))


def test_mutual_recursion():
    message = _compile_error(sem.mutual_a, (1.0, 3))
    assert "recursive call" in message and "not supported" in message, message
    # Either call that closes the cycle may be reported, naming the callee of that line.
    a_line = f"({_where(sem, 'mutual_a_calls_b')})"
    b_line = f"({_where(sem, 'mutual_b_calls_a')})"
    assert (a_line in message and "`mutual_b`" in message) or \
           (b_line in message and "`mutual_a`" in message), message


def test_mutual_recursion_from_the_other_end():
    message = _compile_error(sem.mutual_b, (1.0, 3))
    a_line = f"({_where(sem, 'mutual_a_calls_b')})"
    b_line = f"({_where(sem, 'mutual_b_calls_a')})"
    assert "recursive call" in message, message
    assert (a_line in message and "`mutual_b`" in message) or \
           (b_line in message and "`mutual_a`" in message), message


def test_recursion_through_value_and_grad_and_adjoint_source():
    with pytest.raises(sg.CompileError, match="recursive call"):
        sg.value_and_grad(sem.direct_recursion)(1.0, 2)
    with pytest.raises(sg.CompileError, match="recursive call"):
        sg.adjoint_source(sem.direct_recursion)


def test_call_without_derivative_rule():
    # (the premise: np.sort_complex really has no rule; np.roots, the example before, has)
    assert np.sort_complex not in _table_keys()
    message = _compile_error(sem.no_rule_sort_complex, (X,))
    _assert_names(message, ["no derivative rule", "sort_complex"], _where(sem, "no_rule"))


def _table_keys():
    from srcgrad.rules import table

    return list(table.TABLE)


def test_attribute_assignment_of_differentiable_value():
    message = _compile_error(sem.attribute_assignment, (sem.Model(), 1.5), wrt=1)
    _assert_names(message, ["assigning a differentiable value to attribute", "not supported"],
                  _where(sem, "attribute"))
    # The attribute is named as the user wrote it, not with internal renamings.
    assert "`self.x`" in message, message


def test_and_on_differentiable_values():
    message = _compile_error(sem.and_operator, (1.0, 2.0), wrt=(0, 1))
    _assert_names(message, ["`and`", "differentiable", "not supported"], _where(sem, "and"))


def test_or_on_differentiable_values():
    message = _compile_error(sem.or_operator, (1.0, 2.0), wrt=(0, 1))
    _assert_names(message, ["`or`", "differentiable", "not supported"], _where(sem, "or"))


def test_index_computed_from_differentiable_value():
    message = _compile_error(sem.differentiable_index, (np.array([0.6, 1.0, 2.0]),))
    _assert_names(message, ["index computed from differentiable values", "not supported"],
                  _where(sem, "index"))


def test_a_function_numpy_does_not_have():
    """Python would raise AttributeError on running the line; the message says so, and
    for a name NumPy 2 removed, the one it has now (not "cannot tell which function")."""
    message = _compile_error(sem.numpy_1_name, (X,))
    _assert_names(message, ["`np.trapz` does not exist", "no attribute 'trapz'",
                            "`np.trapezoid`"], _where(sem, "removed_name"))
    message = _compile_error(sem.misspelt_name, (X,))
    _assert_names(message, ["`np.exq` does not exist", "what `numpy` defines"],
                  _where(sem, "misspelt"))


# ---- no source --------------------------------------------------------------

_EXEC_SOURCE = "def from_string(x):\n    return x * x\n"


def _exec_function():
    namespace = {}
    exec(compile(_EXEC_SOURCE, "<string>", "exec"), namespace)
    return namespace["from_string"]


def test_source_unavailable_for_exec_of_a_string():
    f = _exec_function()
    assert f(3.0) == 9.0
    with pytest.raises(sg.SourceUnavailableError) as info:
        sg.grad(f)(3.0)
    err = info.value
    assert isinstance(err, sg.CompileError)
    message = str(err)
    assert "from_string" in message
    assert "file" in message
    assert "@srcgrad.function" in message


def test_source_unavailable_for_plain_exec():
    namespace = {}
    exec(_EXEC_SOURCE, namespace)
    with pytest.raises(sg.SourceUnavailableError, match=r"(?i)put the code in a file"):
        sg.adjoint_source(namespace["from_string"])


def test_source_unavailable_is_a_compile_error_subclass():
    assert issubclass(sg.SourceUnavailableError, sg.CompileError)
    with pytest.raises(sg.CompileError):
        sg.grad(_exec_function())(2.0)



def test_row_read_then_write_into_its_array_is_refused():
    """``r = A[0]`` is a view of a 2-D array: writing into A afterwards changes r."""
    import numpy as np

    def g(x):
        A = np.zeros((2, 2))
        A[0] = x * np.ones(2)
        r = A[0]
        A[0, 1] = 3.0  # MARK
        return np.sum(r * x)

    with pytest.raises(sg.CompileError, match=r"`r = A\[0\]` reads a view of `A`.*"
                                              r"`r = A\[0\]\.copy\(\)`"):
        sg.grad(g)(0.7)


def _row_plus_row(x):
    s = x[0]
    s += x[1]  # a view of x: NumPy would write into x
    return np.sum(s)


def _shared_through_a_list(x):
    a = [x, x]
    s = a[0]
    s += x
    return np.sum(s)


@pytest.mark.parametrize("f", [_row_plus_row, _shared_through_a_list])
def test_augmented_assignment_on_a_shared_array_is_refused_at_run_time(f):
    """The run-time check of ``x += v`` raises the CompileError it promises.

    After the package moved into folders, the check's own import of the error
    class pointed at a module that no longer existed (found by the fuzzer).
    """
    with pytest.raises(sg.CompileError, match=r"in-place update `s \+= \.\.\.` of an array"):
        sg.grad(f)(np.ones((2, 3)))
