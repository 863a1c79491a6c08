"""A generated program: its source, its inputs and the families it uses."""
from dataclasses import dataclass, replace

import numpy as np

# Every program module starts with these; ``source`` never repeats them.
IMPORTS = "import copy\nimport dataclasses\nimport math\n\nimport numpy as np\n\nimport srcgrad as sg\n"


@dataclass(frozen=True)
class Program:
    name: str             # "<seed>:<index>", from which the generator rebuilds it
    source: str           # module-level helpers and ``def f(...)``
    args: tuple           # f's inputs: ndarrays, 0-d arrays, Python floats
    features: frozenset   # the families the generator used

    def with_source(self, source):
        return replace(self, source=source)


def literal(value):
    """Source text that rebuilds an input value exactly (inputs have 3 decimals)."""
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r})"
    return repr(value)


def args_literal(args):
    return "(" + ", ".join(literal(a) for a in args) + ("," if len(args) == 1 else "") + ")"


def copies(args):
    """Fresh copies of the inputs, so that no call can change the caller's."""
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
