"""``del name`` that nothing reads past: dropped, as the memory it frees is the
generated code's to free (``lifetimes``, after each value's last use).

Runs once, on the parsed function, with ``loop_else`` and ``try_except``. Python
would raise ``NameError`` at a read after the ``del`` (before the name is bound
again); dropping the ``del`` would read the old value instead, so a ``del`` is
dropped only where no such read can come: no read of the name after it in the
function's text, none in a loop around it (the next trip), none in a nested def.
Others (and ``del`` of items, ``del d[k]``) stay, for the fence to refuse.
"""
import gast

from ..ir.names import scope_nodes


def lower(fn):
    """Drop the ``del`` statements of ``fn`` (a gast FunctionDef) that nothing reads past,
    in place; not in nested defs nor ``with`` blocks (a tape's block unbinds the names
    it deletes when written back: ``as_written``)."""
    nested_reads = {n.id for d in scope_nodes(fn) if isinstance(d, gast.FunctionDef) and d is not fn
                    for n in gast.walk(d) if isinstance(n, gast.Name)}
    loads = [n for st in fn.body for n in scope_nodes(st)
             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
    _block(fn, "body", loads, nested_reads, loops=())


def _block(owner, field, loads, nested_reads, loops):
    out, stmts = [], getattr(owner, field)
    for s in stmts:
        if isinstance(s, (gast.With, gast.AsyncWith, gast.FunctionDef, gast.ClassDef)):
            out.append(s)
            continue
        inner_loops = loops + (s,) if isinstance(s, (gast.For, gast.While)) else loops
        for inner in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, inner, None), list):
                _block(s, inner, loads, nested_reads, inner_loops)
        for handler in getattr(s, "handlers", ()):
            _block(handler, "body", loads, nested_reads, inner_loops)
        if isinstance(s, gast.Delete) and _droppable(s, loads, nested_reads, loops):
            continue
        out.append(s)
    setattr(owner, field, out or stmts and [gast.copy_location(gast.Pass(), stmts[0])])


def _droppable(s, loads, nested_reads, loops):
    if not all(isinstance(t, gast.Name) for t in s.targets):
        return False
    names = {t.id for t in s.targets}
    if names & nested_reads:
        return False
    if any(n.id in names and _after(n, s) for n in loads):
        return False
    # A loop around it reads the name on its next trip only after binding it again.
    return all(_bound_first(loop, name) for loop in loops for name in names)


def _bound_first(loop, name):
    """Does each trip of ``loop`` bind ``name`` before any read of it (its target, or a
    plain assignment at the top of its body, before any statement reading it)?"""
    if isinstance(loop, gast.For) and any(isinstance(n, gast.Name) and n.id == name
                                          for n in gast.walk(loop.target)):
        return True
    for st in loop.body:
        if any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for n in scope_nodes(st)):
            return False
        if isinstance(st, (gast.Assign, gast.AnnAssign)) and any(
                isinstance(n, gast.Name) and n.id == name
                for t in getattr(st, "targets", [getattr(st, "target", None)])
                for n in gast.walk(t)):
            return True
    return True  # (never read in the loop)


def _after(node, s):
    """Does ``node`` come after the statement ``s`` in the source text?"""
    end = (getattr(s, "end_lineno", s.lineno), getattr(s, "end_col_offset", 0))
    return (node.lineno, node.col_offset) >= end
