"""Activity analysis: which variables need adjoints.

Two halves, as in Tangent and JAX: *varied* runs forward from the inputs we
differentiate with respect to, *useful* runs backward from the returned
value; only their intersection gets adjoint code. Both are flow-insensitive
fixpoints over variable names, which over-approximates and so never drops a
gradient.

Example (differentiating with respect to ``x``; ``y`` is a constant)::

    z = x * y            varied, useful: gets an adjoint ``dz``
    k = y * 2.0          neither: no adjoint code
    w = np.sin(x)        varied, not useful (nothing returned reads it): none
    loss = np.sum(z * k)
"""
import gast

from ..errors import CompileError
from ..ir import anno
from ..ir.atoms import literal_items
from ..ir.names import name_ids, walk_stmts


def flow(s):
    """(written names, read names that flow into them) for one statement.

    Only differentiable dependencies count: an index, an axis or a branch
    condition carries no gradient.
    """
    kind = anno.kind(s)
    if kind == "prim":
        reads = set()
        for atom in s.sg_args.values():
            reads |= name_ids(atom) if isinstance(atom, gast.Name) else set()
        return [s.targets[0].id], reads
    if kind == "copy":
        return [s.targets[0].id], {s.value.id}
    if kind == "getitem":
        return [s.targets[0].id], {s.value.value.id}
    if kind == "literal":
        return [s.targets[0].id], {e.id for _, e in literal_items(s.value) if isinstance(e, gast.Name)}
    if kind == "setitem":
        base = s.targets[0].value.id
        value = {s.value.id} if isinstance(s.value, gast.Name) else set()
        return [base], value | {base}
    if kind == "append":
        lst = s.value.func.value.id
        arg = s.value.args[0]
        return [lst], ({arg.id} if isinstance(arg, gast.Name) else set()) | {lst}
    if kind == "pop":
        return [s.targets[0].id], {s.value.func.value.id}
    if kind == "custom":
        return [s.targets[0].id], {a.id for a in s.sg_operands if isinstance(a, gast.Name)}
    if getattr(s, "sg_norule", None) is not None:
        return sorted(set().union(*map(name_ids, s.targets))), name_ids(s.value)
    return [], set()


class Activity:
    def __init__(self, varied, useful):
        self.varied = varied
        self.useful = useful
        self.active = varied & useful

    def __contains__(self, name):
        return name in self.active


def analyze(body, wrt, result):
    """Activity of a normalized body whose inputs are ``wrt`` and output ``result``.

    ``result`` is a name, or a set of names (a tape's targets).
    """
    flows = [(s, *flow(s)) for s in walk_stmts(body)]
    varied = set(wrt)
    changed = True
    while changed:
        changed = False
        for _, writes, reads in flows:
            if reads & varied:
                for w in writes:
                    if w not in varied:
                        varied.add(w)
                        changed = True
    useful = set(result) if isinstance(result, (set, frozenset)) else ({result} if result else set())
    changed = True
    while changed:
        changed = False
        for _, writes, reads in flows:
            if any(w in useful for w in writes):
                new = (reads & varied) - useful
                if new:
                    useful |= new
                    changed = True
    act = Activity(varied, useful)
    for s, writes, _ in flows:
        norule = getattr(s, "sg_norule", None)
        if norule is not None and any(w in act for w in writes):
            raise norule
        if anno.kind(s) == "prim" and writes[0] in act:
            _check_differentiable_params(s, act)
    return act


def _check_differentiable_params(s, act):
    """A differentiated value passed where the rule has no derivative is refused.

    Dropping it would be a silent zero (``np.einsum(x, (0, 1), (1, 0))``: the
    array sits in the ``subscripts`` slot).
    """
    for pname, atom in s.sg_args.items():
        if pname in s.sg_rule.grads or pname in s.sg_rule.nograd \
                or not (isinstance(atom, gast.Name) and atom.id in act):
            continue
        o = anno.origin(s)
        fname = getattr(getattr(s, "sg_func", None), "__name__", "this function")
        raise CompileError(
            f"the value passed as `{pname}` of `{fname}` depends on the differentiated inputs, "
            f"but `{fname}` has no derivative with respect to `{pname}`",
            o.short() if o else None,
            remedy=f"pass a constant as `{pname}`, or wrap the call with srcgrad.custom_gradient")
