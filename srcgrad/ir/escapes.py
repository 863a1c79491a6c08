"""Which values of a tape block's forward code no one but its record can reach.

The backward code of a tape block reads its record after the user's code has
gone on, and that code may write into an array the block read or bound
(``a[0] = 10.0``). TensorFlow's gradient is at the values the block computed
with, so the tape copies what the user can reach (``tape.once``): an input, a
variable the block binds, a view of either, whatever went into a container,
an attribute or a call that may keep it. What the block's own operations made
and only the record holds needs no copy: the private names found here.
"""
import gast
import numpy as np

from ..passes.lifetimes import SHAPE_ONLY

# Functions and methods whose result is a new array (never their argument or a
# view of it) and that keep no reference to their arguments.
_FRESH_FUNCTIONS = {
    np.sum, np.mean, np.prod, np.std, np.var, np.max, np.min, np.amax, np.amin,
    np.dot, np.matmul, np.inner, np.outer, np.tensordot, np.kron, np.trace,
    np.where, np.clip, np.cumsum, np.cumprod, np.concatenate, np.stack, np.vstack,
    np.hstack, np.tile, np.repeat, np.sort, np.copy, np.roll, np.pad, np.column_stack,
    np.dstack, np.append,
    np.zeros, np.ones, np.full, np.zeros_like, np.ones_like, np.full_like, np.arange,
    np.linalg.norm, np.linalg.inv, np.linalg.solve, np.linalg.det, np.linalg.slogdet,
    len, float, int,
}
_FRESH_METHODS = {"sum", "mean", "prod", "std", "var", "max", "min", "dot", "copy",
                  "cumsum", "cumprod", "clip"}
_HARMLESS_ATTRIBUTES = {"shape", "ndim", "dtype", "size"}
# Runtime helpers of the generated code: those that return a new array, and those
# that read an argument without keeping it or returning it.
_SG_FRESH = {"zeros_like", "seed_like", "scalar_seed"}
_SG_READERS = {"like", "seed_like", "check_scalar", "scalar_seed", "zeros_like"}


def private_names(stmts, scope, visible, params=()):
    """Names bound in ``stmts`` whose values are new arrays (or immutable) that
    only the generated code holds: every binding is a fresh value and every read
    only computes from it. ``visible``: names the user sees (inputs, outputs).

    Returns ``(private, through)``: ``through`` are names (and stacks of them) whose
    values are such new arrays or one of ``params``' values itself (``h = x`` before
    ``h = np.tanh(h @ W)`` in a loop): only those of their values that are a
    parameter's need a copy."""
    bindings, loads = {}, {}

    def visit(node, parent):
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load):
                loads.setdefault(node.id, []).append(parent)
            elif isinstance(node.ctx, gast.Store):
                simple = isinstance(parent, gast.Assign) and len(parent.targets) == 1 \
                    and parent.targets[0] is node
                bindings.setdefault(node.id, []).append(parent.value if simple else None)
            return
        for child in gast.iter_child_nodes(node):
            # The items of an index tuple (``a[i, j]``) are indices, as ``i`` in ``a[i]``.
            if isinstance(node, gast.Subscript) and child is node.slice \
                    and isinstance(child, gast.Tuple):
                for e in child.elts:
                    visit(e, node)
            else:
                visit(child, node)

    for s in stmts:
        visit(s, None)
    stacks = {n for n, values in bindings.items()
              if all(isinstance(v, gast.List) and not v.elts for v in values)
              and all(isinstance(p, gast.Attribute) and p.attr in ("append", "pop")
                      for p in loads.get(n, []))}
    pushed = {n: [p.args[0].id for s in stmts for p in gast.walk(s) if _is_append(p, n)]
              for n in stacks}

    def holding(sources, receivers=None):
        """Names (and stacks) whose values are new or one of ``sources``' values: the
        greatest such set, found by striking out until nothing changes. A method
        (``t.sum()``) makes a new array only on ``receivers`` (default: the set
        itself), not on a copy of a source that may be an object of the user's."""
        names = set(bindings) - stacks - set(visible)
        good = stacks - set(visible)
        while True:
            arrays = names if receivers is None else receivers
            kept = {n for n in names if all(
                v is not None and (_fresh(v, scope, arrays) or _popped(v) in good
                                   or isinstance(v, gast.Name)
                                   and (v.id in sources or v.id in names))
                for v in bindings[n]) and all(
                _computes_from(p, n, stacks, scope, arrays) or _copied_into(p, n, names)
                for p in loads.get(n, []))}
            kept_stacks = {k for k in good if all(v in kept for v in pushed[k])}
            if kept == names and kept_stacks == good:
                return names | good
            names, good = kept, kept_stacks

    def _popped(value):
        """The stack ``value`` pops (``x = x_stack.pop()``, restoring a value), or None."""
        f = getattr(value, "func", None)
        if isinstance(value, gast.Call) and isinstance(f, gast.Attribute) and f.attr == "pop" \
                and isinstance(f.value, gast.Name) and not value.args:
            return f.value.id
        return None

    private = holding(set())
    return private, holding(set(params), private) - private


def _copied_into(parent, name, names):
    """``t = name`` with ``t`` among ``names``."""
    return isinstance(parent, gast.Assign) and len(parent.targets) == 1 \
        and isinstance(parent.targets[0], gast.Name) and parent.targets[0].id in names \
        and isinstance(parent.value, gast.Name) and parent.value.id == name


def _is_append(node, stack):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == "append" and isinstance(node.func.value, gast.Name) \
        and node.func.value.id == stack and len(node.args) == 1 \
        and isinstance(node.args[0], gast.Name) and not node.keywords


def _fresh(value, scope, arrays):
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Constant)):
        return True
    if isinstance(value, gast.Call):
        if any(k.arg in ("out", "copy") for k in value.keywords):
            return False
        f = value.func
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) \
                and f.value.id == "_sg":
            return f.attr in _SG_FRESH
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) \
                and f.value.id in arrays:
            return f.attr in _FRESH_METHODS
        obj = scope.value(f)
        try:
            return isinstance(obj, np.ufunc) or obj in _FRESH_FUNCTIONS
        except TypeError:  # unhashable
            return False
    return False


def _computes_from(parent, name, stacks, scope, arrays):
    """Does this read of ``name`` only compute from it (keeping no reference to it,
    taking no view of it)?"""
    if isinstance(parent, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.If, gast.While,
                           gast.Delete)):
        return True
    if isinstance(parent, gast.Attribute):  # ``name.shape``, ``name.sum()``
        return parent.attr in _HARMLESS_ATTRIBUTES or parent.attr in _FRESH_METHODS
    if isinstance(parent, gast.Subscript):  # an index, not what is indexed
        return not (isinstance(parent.value, gast.Name) and parent.value.id == name)
    if isinstance(parent, gast.Call) and name in [getattr(a, "id", None) for a in parent.args]:
        f = parent.func
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and (
                (f.value.id in stacks and f.attr == "append")):
            return True
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) \
                and f.value.id == "_sg":
            # Read for its shape, dtype or value only (``_sg.like`` of a 0-d array is
            # the array: bound to a name that is not private, that name is copied).
            at = [i for i, a in enumerate(parent.args) if getattr(a, "id", None) == name]
            return f.attr in _SG_READERS or all(
                i in SHAPE_ONLY.get(f.attr, ()) for i in at)
        return _fresh(parent, scope, arrays)
    return False
