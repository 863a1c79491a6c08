"""Rules for the helpers that generated adjoint code calls (``_sg.*``).

They make adjoint code differentiable again: ``sg.grad(sg.grad(f))`` reads
the generated code of ``sg.grad(f)`` like any user code. Same format and
scope as ``derivatives.py``.
"""
from . import runtime as rt
from .rules import Rule
from .variables import stop_gradient

TABLE = {
    rt.unbroadcast: Rule("grad, like", grad="_sg.broadcast_like(g, grad)"),
    rt.broadcast_like: Rule("grad, like", grad="_sg.unbroadcast(g, grad)"),
    rt.add: Rule("a, b", a="g", b="g"),
    rt.add_at: Rule("base, index, grad", base="g", grad="_sg.unbroadcast(g[index], grad)"),
    rt.add_at_zeros: Rule("like, index, grad", grad="_sg.unbroadcast(g[index], grad)"),
    rt.gather_items: Rule("like, items", items="_sg.array_grad(g[:len(items)], items)"),
    rt.zero_at: Rule("base, index", base="_sg.zero_at(g, index)"),
    rt.copy_slot: Rule("value", value="g"),
    rt.read_value: Rule("value", value="g"),
    rt.as_list: Rule("grad, like", grad="_sg.from_list(g, grad)"),
}

# ``a + b`` and ``a * n`` where the operands are lists or tuples.
SEQUENCE_CONCAT = Rule("a, b", a="g[:len(a)]", b="g[len(a):]")
SEQUENCE_REPEAT = Rule("a, n", a="_sg.repeat_grad(g, a)")

NONDIFF = {rt.seed_like, rt.like, rt.zeros_like, rt.check_scalar, rt.check_not_array, stop_gradient}
