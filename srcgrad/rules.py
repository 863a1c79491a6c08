"""The shape of one entry of the derivative table (see ``derivatives.py``)."""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rule:
    """How to differentiate one primitive.

    ``signature`` lists the primitive's parameters as in a ``def`` line
    (``"a, axis=None, keepdims=False"``); call sites are bound to it at compile
    time, by position or keyword. ``grads`` maps a parameter name to one Python
    expression: the contribution to that parameter's adjoint. Parameters not in
    ``grads`` are not differentiable (``axis``). In a grad expression these names
    are in scope:

    - ``g``: the adjoint of the primitive's result,
    - ``ans``: the primitive's result,
    - every parameter name of the signature, bound to the call's argument,
    - ``np`` (numpy), ``math``, and ``_sg`` (``srcgrad.runtime``).

    ``broadcast=True`` marks elementwise primitives whose inputs broadcast: each
    grad expression is then reduced to its parameter's shape by
    ``_sg.unbroadcast`` in one place, the compiler, never in the rule.

    A grad expression must use only functions that themselves have rules (or
    are plain Python helpers in ``srcgrad.runtime`` that the compiler can read),
    so that adjoint code can be differentiated again.
    """

    signature: str
    grads: dict = field(default_factory=dict)
    broadcast: bool = False

    def __init__(self, signature, broadcast=False, **grads):
        object.__setattr__(self, "signature", signature)
        object.__setattr__(self, "grads", dict(grads))
        object.__setattr__(self, "broadcast", broadcast)


@dataclass(frozen=True)
class Param:
    name: str
    default: object = None  # a gast expression, or None when required
    variadic: bool = False


_SIGNATURES = {}


def params(rule):
    """The parsed parameters of ``rule.signature`` (cached)."""
    import gast

    if rule.signature not in _SIGNATURES:
        fn = gast.parse(f"def _({rule.signature}): pass").body[0]
        args = fn.args
        defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
        out = [Param(a.id, d) for a, d in zip(args.args, defaults)]
        if args.vararg is not None:
            out.append(Param(args.vararg.id, None, True))
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            out.append(Param(a.id, d))
        _SIGNATURES[rule.signature] = tuple(out)
    return _SIGNATURES[rule.signature]
