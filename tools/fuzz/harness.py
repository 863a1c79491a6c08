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
- ``model_f``: every input a trainable ``sg.Variable`` held in a container
  (a dict, layer objects, a list of dicts, a model object, a closure's or a
  global's container), read by the tape block without ``tape.watch``; the
  container style is drawn from the program's name (``model_style``), so a
  failure reproduces. Returns ``(value, [gradients])``.
- ``object_f``: ``f``'s state in an object of a plain class built inside it
  (objects.py; the style drawn from the program's name by ``object_style``).
  If the rewrite cannot model ``f``, ``OBJECT_F_PROBLEM`` says why instead.
"""
import ast
import random
from dataclasses import dataclass

import numpy as np

from .objects import Untransformable, object_style, object_wrapper
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


def module_source(program, second_shape=None, tapes=True, style=None, objects=True,
                  object_style_=None):
    """The module text; ``second_shape`` (the input's shape) adds ``second_f``; ``style``
    overrides the ``model_f`` style drawn from the program's name, ``object_style_`` that
    of ``object_f``."""
    f = function_def(program.source)
    parts = [IMPORTS, program.source.rstrip() + "\n", _tree_wrappers(f), _complex_wrapper(f)]
    if tapes:
        parts += [_tape_wrapper("tape_f", f, decorated=False),
                  _tape_wrapper("function_f", f, decorated=True),
                  _model_wrapper(f, style or model_style(program.name))]
    if objects:
        parts.append(_object_part(program, f, object_style_ or object_style(program.name)))
    if second_shape is not None:
        parts.append(_second_wrapper(f, second_shape))
    return "\n\n".join(parts)


def _object_part(program, f, style):
    taken = {n.id for n in ast.walk(ast.parse(program.source)) if isinstance(n, ast.Name)}
    taken |= {n.name for n in ast.walk(ast.parse(program.source))
              if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    try:
        return object_wrapper(f, style, taken)
    except Untransformable as e:
        return f"OBJECT_F_PROBLEM = {str(e)!r}\n"


# ---------------------------------------------------------------- model_f: Variables in containers

# How ``model_f`` holds its Variables and how the tape block reaches them:
CONTAINERS = (
    "dict",     # params = {'x': sg.Variable(x)}; the block reads params['x']
    "items",    # the block copies params.items() (a loop, a dict comprehension) into vals,
                # or params.values() (a generator expression) into a list
    "layers",   # layers = [Layer(sg.Variable(x)), ...]; the block gathers layer.w
    "slots",    # slots = [{'w': sg.Variable(x)}, ...]; the block gathers slot['w']
    "method",   # model.loss() reads self.p['x'] (gather "loop"), or self.p[i].w of Layers
    "closure",  # a nested def reads the wrapper's list of Variables
    "global",   # a module-level helper reads a module-level dict of Variables
)
GATHERS = ("loop", "comprehension", "generator")   # how items, layers and slots are gathered
DECORATIONS = ("", "whole", "step")   # @sg.function on nothing, on model_f, or on a step
                                      # function that gets the container from model_f


@dataclass(frozen=True)
class ModelStyle:
    container: str
    gather: str = "loop"
    inline: bool = False   # f's body copied into the block (or into the loss function)
    decorated: str = ""

    def __str__(self):
        if self.container == "method":   # gather: a dict attribute (loop) or Layer objects
            how = "self.p a dict" if self.gather == "loop" else "self.p a list of Layers"
        else:
            how = self.gather if self.container in _GATHERED else ""
        decorated = "whole" if self.decorated and self.container == "closure" else self.decorated
        words = [self.container, how, "f's body inlined" if self.inline else "f called",
                 {"whole": "@sg.function", "step": "@sg.function step"}.get(decorated, "")]
        return ", ".join(w for w in words if w)


_GATHERED = ("items", "layers", "slots")
_CALLED = ("method", "closure", "global")   # the block calls a loss function


def model_style(name):
    """The style of ``model_f`` for the program called ``name`` (deterministic)."""
    rng = random.Random(f"model:{name}")
    container = rng.choice(CONTAINERS)
    decorated = rng.choice(DECORATIONS[:2] if container == "closure" else DECORATIONS)
    return ModelStyle(container, rng.choice(GATHERS), rng.random() < 0.5, decorated)


def _model_wrapper(f, style):
    params = [a.arg for a in f.args.args]
    names = ", ".join(params)
    n = len(params)
    variables = [f"sg.Variable({p})" for p in params]
    by_key = "{" + ", ".join(f"{p!r}: {v}" for p, v in zip(params, variables)) + "}"
    helpers = []          # module-level definitions before model_f
    make = []             # model_f's statements before the tape
    block = []            # the with block's statements before it computes tape_out
    container = None      # the name model_f hands to a decorated step
    c, gather = style.container, style.gather

    if c == "dict":
        container, make = "params", [f"params = {by_key}"]
        reads = [f"params[{p!r}]" for p in params]
        sources, grads = "params", [f"grads[{p!r}]" for p in params]
    elif c == "items":
        container, make = "params", [f"params = {by_key}"]
        if gather == "loop":
            block = ["vals = {}", "for name, var in params.items():", "    vals[name] = var"]
            reads = [f"vals[{p!r}]" for p in params]
        elif gather == "comprehension":
            block = ["vals = {name: var for name, var in params.items()}"]
            reads = [f"vals[{p!r}]" for p in params]
        else:  # (dict(generator) is refused: its keys are unknown when compiling)
            block = ["args = list(var for var in params.values())"]
            reads = [f"args[{i}]" for i in range(n)]
        sources, grads = "list(params.values())", [f"grads[{i}]" for i in range(n)]
    elif c in ("layers", "slots"):
        if c == "layers":
            helpers.append(_LAYER)
            container = "layers"
            make = [f"layers = [{', '.join(f'Layer({v})' for v in variables)}]"]
            item, each, loop = "layer.w", "layer", "layers"
            sources, grads = "[layer.w for layer in layers]", [f"grads[{i}]" for i in range(n)]
        else:
            container = "slots"
            make = [f"slots = [{', '.join('{' + repr('w') + ': ' + v + '}' for v in variables)}]"]
            item, each, loop = "slot['w']", "slot", "slots"
            sources, grads = "slots", [f"grads[{i}]['w']" for i in range(n)]
        if gather == "loop":
            block = ["args = []", f"for {each} in {loop}:", f"    args.append({item})"]
        elif gather == "comprehension":
            block = [f"args = [{item} for {each} in {loop}]"]
        else:
            read = f"getattr({each}, 'w')" if c == "layers" else item
            block = [f"args = tuple({read} for {each} in {loop})"]
        reads = [f"args[{i}]" for i in range(n)]
    elif c == "method":
        container = "model"
        if gather == "loop":   # the Variables in a dict attribute
            make = [f"model = Model({by_key})"]
            reads = [f"self.p[{p!r}]" for p in params]
            sources = "[" + ", ".join(f"model.p[{p!r}]" for p in params) + "]"
        else:                  # in Layer objects: self.p[i].w
            helpers.append(_LAYER)
            make = [f"model = Model([{', '.join(f'Layer({v})' for v in variables)}])"]
            reads = [f"self.p[{i}].w" for i in range(n)]
            sources = "[layer.w for layer in model.p]"
        grads = [f"grads[{i}]" for i in range(n)]
        helpers.append("class Model:\n    def __init__(self, p):\n        self.p = p\n\n"
                       "    def loss(self):\n" + _indent(_loss_body(f, params, reads, style), 2)
                       + "\n")
        block_call = "model.loss()"
    elif c == "closure":
        make = [f"params = [{', '.join(variables)}]", "",
                "def loss():\n" + _indent(_loss_body(f, params, [f"params[{i}]" for i in range(n)],
                                                      style), 1), ""]
        sources, grads = "params", [f"grads[{i}]" for i in range(n)]
        block_call = "loss()"
    else:  # global
        helpers.append("MODEL_PARAMS = {}\n\n\ndef global_loss():\n" + _indent(_loss_body(
            f, params, [f"MODEL_PARAMS[{p!r}]" for p in params], style), 1) + "\n")
        make = [f"MODEL_PARAMS[{p!r}] = {v}" for p, v in zip(params, variables)]
        sources = "[" + ", ".join(f"MODEL_PARAMS[{p!r}]" for p in params) + "]"
        grads = [f"grads[{i}]" for i in range(n)]
        block_call = "global_loss()"

    if c in _CALLED:
        block.append(f"tape_out = {block_call}")
    elif style.inline and _returns(f) == [f.body[-1]]:
        block += [f"{p} = {r}" for p, r in zip(params, reads)]
        block += [ast.unparse(s) for s in f.body[:-1]]
        block.append(f"tape_out = {ast.unparse(f.body[-1].value)}")
    else:
        block.append(f"tape_out = f({', '.join(reads)})")

    tape = ("with sg.GradientTape() as tape:\n" + _indent("\n".join(block), 1) + "\n"
            f"grads = tape.gradient(tape_out, {sources})\n"
            f"return tape_out, [{', '.join(grads)}]")
    head = f"# model_f: {style}\n"
    if style.decorated == "step" and c != "closure":   # (closure: loss is model_f's)
        step_params = container or ""
        text = (f"{head}@sg.function\ndef model_step({step_params}):\n" + _indent(tape, 1)
                + f"\n\n\ndef model_f({names}):\n" + _indent("\n".join(make), 1)
                + f"\n    return model_step({step_params})\n")
    else:
        text = (head + ("@sg.function\n" if style.decorated else "") + f"def model_f({names}):\n"
                + _indent("\n".join(make + [tape]), 1) + "\n")
    return "\n\n".join(helpers + [text])


_LAYER = "class Layer:\n    def __init__(self, w):\n        self.w = w\n"


def _loss_body(f, params, reads, style):
    """The body of a loss function that reads the Variables: a call of f, or (inlined)
    f's own body after binding its parameters (its returns are the loss function's)."""
    if style.inline:
        lines = [f"{p} = {r}" for p, r in zip(params, reads)]
        return "\n".join(lines + [ast.unparse(s) for s in f.body])
    return f"return f({', '.join(reads)})"
