"""The statement builders of each feature family.

A builder ``build(ctx)`` emits one construct (one to a few statements) into
the function being generated and returns True, or returns False, emitting
nothing, when the variables in scope do not allow it. ``BUILDERS`` maps each
statement-level family to its builders; the expression-level families
(elementwise, broadcast, reduce, index_read, shape_ops, matmul) are reached
through ``core.assign``.
"""
from .calls import closure, comprehension, helper_call, nested_grad
from .control import early_return, for_loop, if_else, rebind_loop, try_except, while_loop
from .core import assign, augassign
from .memory import alias_update, index_write, rebind_param
from .structures import container, scalar_accumulate, swap, tuple_assign

BUILDERS = {
    "core": (assign, assign, augassign),
    "index_write": (index_write,),
    "alias": (alias_update,),
    "branches": (if_else,),
    "exceptions": (try_except,),
    "loops": (for_loop, for_loop, while_loop),
    "rebind_loop": (rebind_loop,),
    "rebind_param": (rebind_param,),
    "early_return": (early_return,),
    "helpers": (helper_call,),
    "closures": (closure,),
    "nested_grad": (nested_grad,),
    "comprehensions": (comprehension,),
    "unpack": (tuple_assign, swap),
    "containers": (container,),
    "scalars": (scalar_accumulate,),
}
