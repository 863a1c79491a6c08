"""The shape of one entry of the derivative table: everything srcgrad knows about a primitive."""
import ast
from dataclasses import dataclass, field

# How a result's rank (number of dimensions) follows from the arguments' ranks
# (``passes/ranks.py`` reads this; None: not known at compile time).
RANKS = (
    "elementwise",  # broadcasting: the largest rank of the operands
    "same",         # the first operand's rank (transpose, flip, copy)
    "reduce",       # a reduction over a constant ``axis`` with ``keepdims``
    "product",      # matmul / dot rank arithmetic
    "from_list",    # ``np.array([a, b])`` of values of one rank r: r + 1
    "identity",     # the argument's own value
    "like_second",  # shaped like the ``like`` argument
    "scalar",       # always a Python float (the math module)
)

# Kinds of input the table-driven tests draw a parameter from (JAX's rand_positive...).
DOMAINS = ("real", "pos", "unit", "nonzero", "gt1", "matrix")


@dataclass(frozen=True)
class Rule:
    """How to differentiate one primitive, and what the passes need to know of it.

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

    The other fields, each optional:

    - ``rank``: one of ``RANKS``, how the result's rank follows from the operands';
    - ``by_rank``: ``{(rank of operand 1, rank of operand 2): {param: grad}}``, the
      adjoints a person writes for operands of known ranks (matrix products),
      which need no helper and no ``_sg.unbroadcast``; ``by_rank_rows`` the same
      for adjoints with a leading axis of seed rows;
    - ``rows``: ``{param: grad}`` for ``tape.jacobian``, where ``g`` has a leading
      axis of seed rows, for the grads that ``rules/rows.row_form`` cannot
      derive by itself (it keeps elementwise expressions and swaps helpers for
      their ``*_rows`` twins);
    - ``view``: the result may share memory with the first argument (the alias
      analysis treats the binding as sharing);
    - ``domain``: ``{param: kind}`` with a kind of ``DOMAINS``, the inputs the
      table-driven tests draw for the parameter (``"real"`` when not listed);
    - ``nograd``: parameters not in ``grads`` that may still receive a
      differentiated value and rightly pass no gradient to it: read only for
      their shape or dtype (``like``), or piecewise constant in it
      (``np.where``'s ``condition``). A differentiated value in any other
      parameter without a grad is refused at compile time (``activity``);
    - ``tangent``: forward mode's rule (empty until forward mode exists).

    Grad parameters are passed as keywords, so no parameter of a primitive may
    be named like one of these fields.
    """

    signature: str
    grads: dict = field(default_factory=dict)
    broadcast: bool = False
    rank: str = None
    by_rank: dict = None
    by_rank_rows: dict = None
    rows: dict = None
    view: bool = False
    domain: dict = None
    nograd: frozenset = frozenset()
    tangent: str = None

    def __init__(self, signature, broadcast=False, *, rank=None, by_rank=None, by_rank_rows=None,
                 rows=None, view=False, domain=None, nograd=(), tangent=None, **grads):
        if rank is not None and rank not in RANKS:
            raise ValueError(f"unknown rank rule {rank!r}; one of {RANKS}")
        for kind in (domain or {}).values():
            if kind not in DOMAINS:
                raise ValueError(f"unknown domain {kind!r}; one of {DOMAINS}")
        set_ = object.__setattr__
        set_(self, "signature", signature)
        set_(self, "grads", dict(grads))
        set_(self, "broadcast", broadcast)
        set_(self, "rank", rank)
        set_(self, "by_rank", by_rank)
        set_(self, "by_rank_rows", by_rank_rows)
        set_(self, "rows", dict(rows or {}))
        set_(self, "view", view)
        set_(self, "domain", dict(domain or {}))
        set_(self, "nograd", frozenset(nograd))
        set_(self, "tangent", tangent)


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


def array_operands(expr, names, helpers=False):
    """Grad expression ``expr`` with the parameters ``names`` read as arrays where a
    Python operator takes them: ``x2 - 1`` becomes ``_sg.arrayed(x2) - 1``.

    NumPy functions take array_likes, so ``np.power([1.5, 2.0], x)`` and
    ``x ** [1.0, 2.0]`` are fine in user code; an operator of the grad expression
    is not (``[1.0, 2.0] - 1`` fails, ``[0.5] > 0`` raises, ``[1.0] == 0`` is one
    ``False``). A parameter an operator meets alongside an array for sure (``ans``,
    a ``np.`` call) is left as it is: NumPy broadcasts the list there.

    ``helpers``: also where the expression passes them to an ``_sg.`` helper (helpers
    that compute with them by operators, as ``_sg.gamma_score(z, a)`` does).
    """
    # (The standard ``ast``: tables are built when SciPy's modules are imported, at a
    # compile; gast's conversion would triple the cost.)
    tree = ast.parse(expr, mode="eval").body
    wrapped = []

    def array_for_sure(node):
        if isinstance(node, ast.Name):
            return node.id == "ans"
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np"

    def arrayed(node, others):
        if isinstance(node, ast.Name) and node.id in names \
                and not (others and all(array_for_sure(o) for o in others)):
            wrapped.append(node.id)
            return ast.Call(ast.Attribute(ast.Name("_sg", ast.Load()), "arrayed", ast.Load()),
                            [node], [])
        return node

    def is_helper(node):
        return isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
            and node.func.value.id == "_sg" and node.func.attr != "arrayed"

    class Rewrite(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if helpers and is_helper(node):
                node.args = [arrayed(a, []) for a in node.args]
            return node

        def visit_BinOp(self, node):
            self.generic_visit(node)
            node.left, node.right = arrayed(node.left, [node.right]), \
                arrayed(node.right, [node.left])
            return node

        def visit_UnaryOp(self, node):
            self.generic_visit(node)
            node.operand = arrayed(node.operand, [])
            return node

        def visit_Compare(self, node):
            self.generic_visit(node)
            operands = [node.left] + node.comparators
            new = [arrayed(o, operands[:i] + operands[i + 1:]) for i, o in enumerate(operands)]
            node.left, node.comparators = new[0], new[1:]
            return node

    tree = Rewrite().visit(tree)
    return ast.unparse(tree).strip() if wrapped else expr


def with_array_operands(rule, names=None, helpers=False):
    """``rule`` with its grads rewritten by ``array_operands`` for ``names`` (by default
    every parameter)."""
    names = {p.name for p in params(rule)} if names is None else set(names)
    return Rule(rule.signature, rule.broadcast, rank=rule.rank, by_rank=rule.by_rank,
                by_rank_rows=rule.by_rank_rows, rows=rule.rows, view=rule.view,
                domain=rule.domain, nograd=rule.nograd, tangent=rule.tangent,
                **{p: array_operands(e, names, helpers) for p, e in rule.grads.items()})
