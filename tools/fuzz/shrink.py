"""Greedy reduction of a failing program to a small reproducer.

Candidates are edits of the program's syntax tree, coarse ones first:
deleting a statement, replacing a compound statement by its body, replacing
an expression by one of its operands, shortening a ``range``. A candidate is
kept when it is still a valid program (the oracle does not raise
``InvalidProgram``) and the same form still fails the same way (same
``Outcome.kind``); then the search starts over from the smaller program.
Candidates already tried are never run twice, and a budget bounds the runs.
"""
import ast
import copy

from .oracle import InvalidProgram, check

BUDGET = 400  # oracle runs per failure


def shrink(program, form, outcome, directory, budget=BUDGET):
    """``(smallest program found, its outcome)`` that still fails ``form`` like ``outcome``."""
    best, best_outcome = program, outcome
    tried = {program.source}
    runs = 0
    progress = True
    while progress and runs < budget:
        progress = False
        for source in candidates(best.source):
            if source in tried:
                continue
            tried.add(source)
            runs += 1
            found = _reproduces(best.with_source(source), form, outcome, directory)
            if found is not None:
                best, best_outcome, progress = best.with_source(source), found, True
                break
            if runs >= budget:
                break
    return best, best_outcome


def _reproduces(program, form, outcome, directory):
    try:
        got = check(program, [form], directory).get(form)
    except InvalidProgram:
        return None
    return got if got is not None and got.same_failure(outcome) else None


def candidates(source):
    """Edited sources, coarse edits first (deterministic order)."""
    tree = ast.parse(source)
    edits = []
    slots = list(_statement_slots(tree))
    edits += [(_delete, slot) for slot in reversed(slots)]
    edits += [(unwrap, slot) for slot in slots for unwrap in (_unwrap_body, _unwrap_else)]
    edits += [(_replace, slot) for slot in _operand_slots(tree)]
    edits += [(_shorten_range, k) for k, node in enumerate(ast.walk(tree)) if _is_range(node)]
    for edit, slot in edits:
        new = copy.deepcopy(tree)
        if edit(list(ast.walk(new)), slot):
            yield ast.unparse(ast.fix_missing_locations(new)) + "\n"


def _statement_slots(tree):
    """(node index, field, position) of every statement in a body or orelse list."""
    for k, node in enumerate(ast.walk(tree)):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                for i, s in enumerate(stmts):
                    if isinstance(s, ast.stmt):
                        yield k, field, i


def _delete(nodes, slot):
    k, field, i = slot
    stmts = getattr(nodes[k], field)
    del stmts[i]
    if not stmts and field == "body":
        stmts.append(ast.Pass())
    return True


def _unwrap_body(nodes, slot):
    """Replace an if/for/while by its body."""
    k, field, i = slot
    stmts = getattr(nodes[k], field)
    if not isinstance(stmts[i], (ast.If, ast.For, ast.While)):
        return False
    stmts[i:i + 1] = stmts[i].body
    return True


def _unwrap_else(nodes, slot):
    """Replace an if by its else branch."""
    k, field, i = slot
    stmts = getattr(nodes[k], field)
    if not (isinstance(stmts[i], ast.If) and stmts[i].orelse):
        return False
    stmts[i:i + 1] = stmts[i].orelse
    return True


def _operand_slots(tree):
    """(node index, field, position or None, operand index) for each expression operand.

    Assignment targets are left alone (``a[1] = v`` must not become
    ``a = v``: another construct), and so is the whole value of a ``return``
    (in a branch not taken it could become an array and still "reproduce").
    """
    for k, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.Return):
            continue
        for field, value in ast.iter_fields(node):
            items = [(None, value)] if isinstance(value, ast.expr) else \
                list(enumerate(value)) if isinstance(value, list) else []
            for pos, child in items:
                if isinstance(child, ast.expr) and not isinstance(getattr(child, "ctx", None),
                                                                  ast.Store):
                    for j in range(len(_operands(child))):
                        yield k, field, pos, j


def _operands(e):
    if isinstance(e, ast.BinOp):
        return [e.left, e.right]
    if isinstance(e, ast.UnaryOp):
        return [e.operand]
    if isinstance(e, ast.Call):
        return [a for a in e.args if not isinstance(a, ast.Starred)]
    if isinstance(e, (ast.Subscript, ast.Attribute)):
        return [e.value]
    if isinstance(e, ast.IfExp):
        return [e.body, e.orelse]
    if isinstance(e, ast.BoolOp):
        return list(e.values)
    return []


def _replace(nodes, slot):
    k, field, pos, j = slot
    parent = nodes[k]
    if pos is None:
        setattr(parent, field, _operands(getattr(parent, field))[j])
    else:
        getattr(parent, field)[pos] = _operands(getattr(parent, field)[pos])[j]
    return True


def _is_range(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "range" and len(node.args) == 1
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, int)
            and node.args[0].value > 1)


def _shorten_range(nodes, k):
    nodes[k].args[0].value -= 1
    return True
