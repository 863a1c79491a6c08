"""Normalize differentiable code to one operation per statement, inlining user calls.

Only statements that compute something varied (dependent on the inputs we
differentiate with respect to) are split; everything else stays exactly as the
user wrote it. Temporaries are named after the variable they help compute
(``loss_sub`` for the subtraction inside ``loss = ...``). Calls to user
functions, methods and ``__call__`` with varied arguments are replaced by the
callee's body (renamed, desugared), so the generated code is one function with
no call overhead; recursion cannot be inlined and is refused.

Before/after (``x`` varied)::

    loss = np.sum((x - y) ** 2)     loss_sub = x - y
                                    loss_pow = loss_sub ** 2
                                    loss = np.sum(loss_pow)

The pass repeats until nothing changes, because inlining a callee can make
more variables varied. ``normalizer`` rewrites statements and expressions,
``calls`` decides what a call denotes, ``inline`` replaces a user call by the
callee's body, ``structure`` tells the items and keys of the containers the code
builds, ``closures`` lifts out a nested def whose gradient the code takes,
``functions`` resolves calls through lists and dicts of functions and the
closures a call makes, ``unroll`` unrolls loops over containers known when
compiling (layers, parameter dicts holding Variables a tape watches).
"""
from .normalizer import Normalizer


def normalize(fn, ctx, wrt, desugar, load=None):
    """Normalize ``fn`` (desugared gast FunctionDef) in place for inputs ``wrt``.

    ``desugar`` is the desugar pass: each inlined callee goes through it
    first, as the function itself did. ``load(def_node)`` makes a function of a
    def nested in the code, lifted out to be differentiated (``closures.py``);
    without it, that is refused.
    """
    return Normalizer(ctx, desugar, load).run(fn, wrt)
