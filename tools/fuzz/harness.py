"""The module file a program is checked in: its source plus one wrapper per form.

srcgrad reads source code (of ``f``, and of a tape's ``with`` block from the
calling frame), so every program is written to a real ``.py`` file:

- ``tape_f``: ``f``'s computation recorded by a ``GradientTape`` in plain
  code. When ``f`` returns only at its end, its body is copied into the
  ``with`` block (the block is compiled as a region, not as a call); else the
  block calls ``f``. Returns ``(value, [gradients])``.
- ``function_f``: the same, decorated with ``@sg.function``.
- ``second_f`` (one-input programs): ``np.sum(sg.grad(f)(x) * DIRECTION)``,
  whose gradient is a Hessian-vector product.
- ``dict_f`` and ``tuple_f``: ``f`` with its inputs passed as one parameter
  tree, a dict read by key and a tuple unpacked (``sg.grad`` of a tree).
"""
import ast

import numpy as np

from .program import IMPORTS

# A fixed direction for second order: any vector with no special structure.
DIRECTION = (0.7, -0.4, 1.1, 0.3)


def function_def(source, name="f"):
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise ValueError(f"no function {name} in the program")


def _returns(node):
    """The return statements of a function body, not counting nested functions."""
    found = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Return):
            found.append(child)
        elif not isinstance(child, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
            found += _returns(child)
    return found


def _block(f, params):
    """The statements of the tape's ``with`` block, computing ``tape_out``."""
    returns = _returns(f)
    last = f.body[-1]
    if returns == [last]:
        lines = [ast.unparse(s) for s in f.body[:-1]]
        lines.append(f"tape_out = {ast.unparse(last.value)}")
    else:
        lines = [f"tape_out = f({params})"]
    return "\n".join(lines)


def _indent(text, depth):
    pad = "    " * depth
    return "\n".join(pad + line if line else line for line in text.splitlines())


def _tape_wrapper(name, f, decorated):
    params = ", ".join(a.arg for a in f.args.args)
    watches = "\n".join(f"tape.watch({a.arg})" for a in f.args.args)
    block, target = _block(f, params), "tape_out"
    if decorated:
        # The target as an item of a dict the block builds, bound to no name of its own
        # (``losses["loss"]``): the tape finds it inside the container.
        head, _, value = block.rpartition("tape_out = ")
        block, target = head + "tape_outs = {'loss': " + value + "}", "tape_outs['loss']"
    return (("@sg.function\n" if decorated else "")
            + f"def {name}({params}):\n"
            + f"    tape_sources = [{params}]\n"
            + "    with sg.GradientTape() as tape:\n"
            + _indent(watches, 2) + "\n"
            + _indent(block, 2) + "\n"
            + f"    return {target}, tape.gradient({target}, tape_sources)\n")


def direction(shape):
    if shape == ():
        return DIRECTION[0]
    return np.array(DIRECTION[:int(np.prod(shape))]).reshape(shape)


def _second_wrapper(f, shape):
    (param,) = [a.arg for a in f.args.args]
    d = direction(shape)
    literal = repr(d) if shape == () else f"np.array({d.tolist()!r})"
    return (f"GRAD_F = sg.grad(f)\nDIRECTION = {literal}\n\n\n"
            f"def second_f({param}):\n"
            f"    return np.sum(GRAD_F({param}) * DIRECTION)\n")


def _tree_wrappers(f):
    params = [a.arg for a in f.args.args]
    by_key = ", ".join(f"tree_params[{p!r}]" for p in params)
    unpack = ", ".join(params) + ("," if len(params) == 1 else "")
    return (f"def dict_f(tree_params):\n    return f({by_key})\n\n\n"
            f"def tuple_f(tree_params):\n    {unpack} = tree_params\n"
            f"    return f({', '.join(params)})\n")


def _complex_wrapper(f):
    """``complex_f``: ``f`` with a complex constant beside it, so that srcgrad compiles it
    for complex values (every rule's complex form, on real inputs: rules/complexes.py)."""
    params = ", ".join(a.arg for a in f.args.args)
    return (f"def complex_f({params}):\n"
            f"    return f({params}) + 0.0 * np.real(1j)\n")


def module_source(program, second_shape=None, tapes=True):
    """The module text; ``second_shape`` (the input's shape) adds ``second_f``."""
    f = function_def(program.source)
    parts = [IMPORTS, program.source.rstrip() + "\n", _tree_wrappers(f), _complex_wrapper(f)]
    if tapes:
        parts += [_tape_wrapper("tape_f", f, decorated=False),
                  _tape_wrapper("function_f", f, decorated=True)]
    if second_shape is not None:
        parts.append(_second_wrapper(f, second_shape))
    return "\n\n".join(parts)
