"""A ``try`` statement becomes a branch on whether its body raised, and is printed as a
``try`` again.

``lower`` runs once, on the parsed function, after ``loop_else.lower``. Every later
pass sees a branch, which they all know: the backward code takes the branch the
forward code took::

    try:                                    try_ok = _sg.attempting(LinAlgError)
        L = cholesky(K)                     if try_ok:
    except LinAlgError as e:        ->          L = cholesky(K)
        log(e)                              else:
        L = cholesky(K + jitter * I)            e = _sg.caught()
    else:                                       log(e)
        n_ok += 1                               L = cholesky(K + jitter * I)
                                            if _sg.attempted(try_ok):
                                                n_ok += 1

``emit`` (called by codegen on the code it prints) turns the branch's forward code
back into a ``try``, its first block the body and the other the handler, which
first sets the branch's flag (and the copy the forward code records of it) false::

    cond = try_ok                           cond = try_ok
    if cond:                                try:
        L = cholesky(K)             ->          L = cholesky(K)
    else:                                   except LinAlgError:
        ...                                     try_ok = False
                                                cond = False
                                                ...

What the body did before it raised stays done, as in Python; the branch says it
did not run. So a body whose statements before the last that may raise bind names
code outside reads, or may change values in place, is first ``split`` into the
nested ``try`` statements Python's rules make of it (one per statement that may
raise, each with the handler). What remains before a body's last raise (a helper's
append, then its ``raise``; a loop's earlier trips), after ``_sg.try_tail()``'s mark
and within the statement it marks, may change no list, dict, array or object, and
may bind only names nothing outside reads where a gradient flows, unless the
handler binds them first: ``check_heads`` looks once calls are inlined, naming the
line.
Inside a loop, what the body's forward code pushed on the backward pass's stacks
before it raised is taken off again. ``del`` of a value the body did not make is
dropped from the body (the handler may read it). A ``finally`` clause, and several
handlers, stay refused.

The derivative code is a function like any other: differentiated again, its
``try`` is lowered again; what its handler takes off and the ``if cond:`` blocks of
its backward code (which run only where the body ran to its end) are known for
what they are (``_undone``, ``_guards``).
"""
import copy
import itertools

import gast

from ..ir import anno, templates as T
from ..ir.names import fresh_name, own_nodes, scope_bound_names, scope_nodes, walk_stmts

_CONTROL = (gast.Break, gast.Continue, gast.Pass)
_TOKENS = itertools.count(1)  # (which lowered try an ``if`` block's guard is of)


def lower(fn):
    """Rewrite the ``try`` statements of ``fn`` (a gast FunctionDef) and of its nested
    defs, in place; those it cannot are left, with the reason (``sg_refusal``) for the
    fence to give. ``try`` statements in ``with`` blocks (a tape's) are left as well:
    the tape's compiler lowers them (``lowered``) or runs them as written."""
    taken = {n.id for n in T.walk(fn) if isinstance(n, gast.Name)}
    _block(fn, "body", taken, fn)


def lowered(s, scope, fresh):
    """The statements ``s`` (a ``try``) becomes, or None where it cannot: ``scope``, the
    node whose code may read what ``s`` binds; ``fresh(base)``, a name no code uses."""
    refusal, undone, token = _analysis(s, scope, [], [])
    if refusal is not None:
        return None
    out = _lowered(s, fresh, undone, token)
    # (What a tape's block binds is its result: written back to the caller's variables.)
    out[1].sg_try_visible = frozenset(scope_bound_names(_head(s.body)))
    return out


def _block(owner, field, taken, fn):
    out = []
    stmts = getattr(owner, field)
    for k, s in enumerate(stmts):
        if isinstance(s, (gast.With, gast.AsyncWith, gast.ClassDef)):
            out.append(s)
            continue
        if isinstance(s, gast.Try) and not _derivative_code(s, out, stmts[k + 1:]):
            s = split(s, fn)  # (before the blocks nested in it: the tries it makes too)
        scope = s if isinstance(s, gast.FunctionDef) else fn
        for inner in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, inner, None), list):
                _block(s, inner, taken, scope)
        for handler in getattr(s, "handlers", ()):
            _block(handler, "body", taken, fn)
        if isinstance(s, gast.Try):
            refusal, undone, token = _analysis(s, fn, out, stmts[k + 1:])
            if refusal is None:
                out += _lowered(s, lambda base: fresh_name(base, taken), undone, token)
                continue
            s.sg_refusal = refusal
        out.append(s)
    setattr(owner, field, out)


def split(s, scope, everything_read=False):
    """``s`` (a ``try`` of the user's code in ``scope``, a def or a tape's block), or,
    where a statement of its body before the last that may raise binds a name code
    outside the body reads (``K = kernel(X)`` then ``L = cholesky(K)``, ``K`` read by the
    handler; with ``everything_read``, any name: a tape block's results) or may change a
    value in place (an append, a call), the ``try`` Python's rules make of it: a ``try``
    of the statements up to the first that may raise, the rest in its ``else`` clause as
    a ``try`` of their own, and so on, each with a copy of the handler, the ``else``
    clause innermost. A handler then runs after exactly the statements that ran, and
    each ``try`` may raise at its last statement only, which the branch ``lower`` makes
    of it models."""
    head = _head(s.body)
    if s.finalbody or len(s.handlers) != 1 or not head:
        return s
    bound = set(scope_bound_names(head)) - _bound_first(s.handlers[0].body)
    if all(_binds_only(st) for st in head) and not everything_read:
        body = {id(n) for st in s.body for n in scope_nodes(st)}
        # (read outside the body, or by it before it binds them: on a loop's next trip)
        bound &= {n.id for st in scope.body for n in scope_nodes(st) if id(n) not in body
                  and isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)} \
            | _read_before_bound(s.body, set())
        if not bound:
            return s  # (the branch models it as it is)
    groups = [[]]
    for st in s.body:
        if groups[-1] and not _cannot_raise(st):
            groups.append([])
        groups[-1].append(st)
    orelse = s.orelse
    for group in reversed(groups[1:]):
        inner = gast.Try(group, [copy.deepcopy(s.handlers[0])], orelse, [])
        orelse = [gast.copy_location(inner, group[0])]
    return gast.copy_location(gast.Try(groups[0], s.handlers, orelse, []), s)


def _binds_only(s):
    """Does the source statement ``s`` only bind names (``a = ...``, ``a, b = ...``, a
    loop or branch of such statements, a ``raise``): no append, store or call of its own
    that could change a value in place?"""
    if isinstance(s, gast.Assign):
        return all(isinstance(n, gast.Name) or isinstance(n, (gast.Tuple, gast.List)) and all(
            isinstance(e, gast.Name) for e in n.elts) for n in s.targets)
    if isinstance(s, (gast.For, gast.While, gast.If)):
        return (not isinstance(s, gast.For) or isinstance(s.target, gast.Name)) \
            and all(_binds_only(st) for st in s.body + s.orelse)
    return isinstance(s, (gast.Raise,) + _CONTROL)


def _derivative_code(s, before_try, after_try):
    """Is ``s`` a ``try`` that ``emit`` printed (derivative code, lowered again)?"""
    return bool(s.handlers) and bool(_undone(s, before_try)
                                     or _guards(s, before_try, after_try))


def _lowered(s, fresh, undone, token):
    handler = s.handlers[0]
    flag = fresh("try_ok")
    types = [handler.type] if handler.type is not None else []
    attempt = gast.copy_location(
        T.assign(flag, gast.Call(T.expr("_sg.attempting"), types, [])), s)
    orelse = list(handler.body)
    if handler.name is not None:
        name = handler.name.id if isinstance(handler.name, gast.Name) else handler.name
        orelse.insert(0, gast.copy_location(T.assign(name, T.expr("_sg.caught()")), handler))
    body = list(s.body)
    last = len(body) - 1
    while last > 0 and _cannot_raise(body[last]):
        last -= 1
    # What comes before the mark may not change what code outside the body reads:
    # ``check_heads`` looks again once calls are inlined (a helper's append, a method
    # setting an attribute).
    body.insert(last, gast.copy_location(gast.Expr(T.expr("_sg.try_tail()")), body[last]))
    branch = gast.copy_location(gast.If(T.name(flag), body, orelse), s)
    branch.sg_try = token
    branch.sg_emitted = getattr(s, "sg_emitted", False)
    out = [attempt, branch]
    if s.orelse:  # (not protected by the try: a branch of its own, after it, whose test
        # ``emit`` does not take for the branch's, which may be gone: nothing to record)
        test = T.expr("_sg.attempted(f)", f=flag)
        after = gast.copy_location(gast.If(test, list(s.orelse), []), s.orelse[0])
        after.sg_try_guard = token
        out.append(after)
    return out


def _analysis(s, fn, before_try, after_try):
    """``(refusal, undone, token)`` of ``s``: why the compiler cannot take it (message,
    node, remedy) or None; the lists its handler takes the body's appends off
    (``_undone``); the number marking (``sg_try_guard``) the ``if`` blocks of ``fn`` that
    run only if the body ran to its end (``_guards``). ``before_try``, ``after_try``: the
    statements before and after it in its block."""
    token = next(_TOKENS)
    if s.finalbody or len(s.handlers) != 1:
        return _refusal(s), set(), token
    undone, guards = _undone(s, before_try), _guards(s, before_try, after_try)
    if guards:  # (derivative code: check_heads)
        s.sg_emitted = True
    for node in _nodes(fn):
        if isinstance(node, gast.If) and isinstance(node.test, gast.Name) \
                and node.test.id in guards:
            node.sg_try_guard = token
    for st in walk_stmts(s.body):
        if _appends_to(st) in undone:
            st.sg_undone = True
    return _refusal(s), undone, token


def _refusal(s):
    if s.finalbody:
        return ("try statement with a finally clause is not supported", s,
                "move the finally clause's code after the try statement")
    if len(s.handlers) != 1:
        return ("try statement with several except clauses is not supported", s,
                "catch the exceptions in one clause, except (A, B):, and tell them apart "
                "outside the differentiated function")
    return None  # (what the body changes and binds: check_heads, once calls are inlined)


def _head(body):
    """The statements of a ``try`` body before its last one that may raise."""
    body = list(body)
    while body and _cannot_raise(body[-1]):
        body.pop()
    return body[:-1]


def _undone(s, before_try):
    """Lists whose items the body appends its handler takes off again, first thing
    (``_sg.rolled_back(X, n, ...)``, ``n = len(X)`` right before the ``try``): what
    ``emit`` prints."""
    lengths = {}
    for st in reversed(before_try):
        if not (isinstance(st, gast.Assign) and isinstance(st.value, gast.Call)
                and isinstance(st.value.func, gast.Name) and st.value.func.id == "len"
                and len(st.value.args) == 1 and isinstance(st.value.args[0], gast.Name)
                and isinstance(st.targets[0], gast.Name)):
            break
        lengths[st.targets[0].id] = st.value.args[0].id
    out = set()
    for st in s.handlers[0].body:
        call = st.value if isinstance(st, (gast.Assign, gast.Expr)) else None
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
                and call.func.attr == "rolled_back" and len(call.args) >= 2
                and all(isinstance(a, gast.Name) for a in call.args[:2])
                and lengths.get(call.args[1].id) == call.args[0].id):
            break
        out.add(call.args[0].id)
    return out


def _guards(s, before_try, after_try):
    """Names holding the flag of an earlier lowering (``flag = _sg.attempting(...)``, a
    copy ``cond = flag``) that the handler sets false first thing, and copies of those
    made after the ``try``: the derivative code ``emit`` printed, whose backward code
    reads what the body recorded only in ``if cond:``, which runs only if the body ran
    to its end."""
    flags = set()
    for st in s.handlers[0].body:
        if _is_rollback(st):
            continue
        if not (isinstance(st, gast.Assign) and isinstance(st.targets[0], gast.Name)
                and isinstance(st.value, gast.Constant) and st.value.value is False):
            break
        flags.add(st.targets[0].id)
    made = {st.targets[0].id for st in before_try if _attempt(st) is not None}
    copies = {st.targets[0].id for st in before_try if isinstance(st, gast.Assign)
              and isinstance(st.targets[0], gast.Name) and isinstance(st.value, gast.Name)
              and st.value.id in made}
    guards = flags & (made | copies)
    return guards | {st.targets[0].id for st in after_try if isinstance(st, gast.Assign)
                     and isinstance(st.targets[0], gast.Name)
                     and _flag_read(st.value) in guards}


def _flag_read(value):
    """``f`` of ``f`` or ``_sg.attempted(f)`` (the test of a ``try``'s ``else``)."""
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
            and value.func.attr == "attempted" and len(value.args) == 1:
        value = value.args[0]
    return value.id if isinstance(value, gast.Name) else None


def _is_rollback(st):
    call = st.value if isinstance(st, (gast.Assign, gast.Expr)) else None
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) \
        and call.func.attr == "rolled_back" and isinstance(call.func.value, gast.Name) \
        and call.func.value.id == "_sg"


def _read_outside(body, fn, token, derivative_code):
    """Names ``fn``'s normalized code reads outside ``body`` and the ``if`` blocks marked
    ``token`` (which run only if the body ran to its end). For a ``try`` of derivative
    code, only where a gradient may flow: not in statements without derivative
    (``_sg.zeros_like(x)`` reads a shape); for the user's, a value rolled back (``emit``)
    is seen by a ``print`` too."""
    skipped = {id(st) for st in walk_stmts(body)}
    for node in walk_stmts(fn.body):
        if isinstance(node, gast.If) and getattr(node, "sg_try_guard", None) == token:
            skipped |= {id(st) for st in walk_stmts(node.body)}
    return {n.id for st in walk_stmts(fn.body) if id(st) not in skipped
            and not (derivative_code and anno.kind(st) == "opaque") for n in own_nodes(st)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def check_heads(fn, error, kinds_changing):
    """After the normalizer (calls inlined, objects' fields made names): the code before
    each lowered ``try`` body's mark, and what the statement after it runs before its
    last raise (``_before_last_raise``), changes no list, dict or array (a statement of a kind
    in ``kinds_changing``) and binds no name read outside the body (or, in a loop, by the
    body before it binds it), unless the handler binds it first. Removes the marks.
    ``error(message, node, remedy)`` makes the exception raised."""
    for node in list(_nodes(fn)):
        token = getattr(node, "sg_try", None)
        if not isinstance(node, gast.If) or token is None:
            continue
        marks = [k for k, st in enumerate(node.body) if _is_mark(st)]
        if not marks:
            continue
        node.body = node.body[:marks[0]] + node.body[marks[0] + 1:]
        # (The mark stands before the source statement that may raise last; once calls
        # are inlined, what that statement runs before its own last raise counts too: a
        # helper's append, then its ``raise``.)
        head = node.body[:marks[0]] + _before_last_raise(node.body[marks[0]:])
        for st in walk_stmts(head):
            if anno.kind(st) in kinds_changing and not (
                    anno.kind(st) == "append" and getattr(st, "sg_undone", False)):
                changed = st.targets[0].value if isinstance(st, gast.Assign) \
                    else st.value.func.value
                raise error(f"the try body changes `{gast.unparse(changed).strip()}` (a list, "
                            "dict or array) before its last statement (here, or in code it "
                            "calls); if a later statement raises, the change stays, which "
                            "srcgrad does not model", st, "make the change in the try body's "
                            "last statement, or after the try statement")
        read_elsewhere = _read_outside(node.body, fn, token, node.sg_emitted) \
            | getattr(node, "sg_try_visible", frozenset())
        if id(node) in _in_loops(fn):  # (a value the body bound on an earlier trip)
            read_elsewhere |= _read_before_bound(node.body, set())
        rebound = _bound_first(node.orelse)
        for name in scope_bound_names(head):
            if name in read_elsewhere and name not in rebound:
                raise error(f"the try body binds `{name}` before its last statement (here, or "
                            "in code it calls), and code outside the body reads it: if a later "
                            "statement of the body raises, that value is read where srcgrad "
                            "takes the body for not run", next(
                                st for st in walk_stmts(head) if name in scope_bound_names([st])),
                            f"bind `{name}` again at the start of the except clause, or make "
                            "the binding the try body's last statement or after the try")


def _before_last_raise(stmts):
    """The statements of normalized code ``stmts`` that run before the last one that may
    raise does: those before it, and of a loop there, its whole body (its earlier trips
    run before a later one raises); of a branch, what its blocks run before theirs."""
    last = len(stmts) - 1
    while last >= 0 and not _may_raise(stmts[last]):
        last -= 1
    if last < 0:
        return []
    s = stmts[last]
    if isinstance(s, (gast.For, gast.While)):
        inner = list(s.body) + list(s.orelse)
    elif isinstance(s, gast.If):
        inner = _before_last_raise(s.body) + _before_last_raise(s.orelse)
    else:
        inner = []
    return list(stmts[:last]) + inner


def _may_raise(s):
    """Can the normalized statement ``s`` raise: not a copy (``a = b``, a constant, a
    tuple of names), an append of a name, ``pass``, ``break`` or ``continue``."""
    if isinstance(s, _CONTROL + (gast.Delete,)) or _is_mark(s):
        return False
    if isinstance(s, gast.Assign) and all(isinstance(n, gast.Name) for t in s.targets
                                          for n in gast.walk(t) if isinstance(n, gast.expr)
                                          and not isinstance(n, (gast.Tuple, gast.List))):
        v = s.value
        if isinstance(v, (gast.Name, gast.Constant)) or isinstance(v, gast.Tuple) and all(
                isinstance(e, (gast.Name, gast.Constant)) for e in v.elts):
            return False
    return not (_appends_to(s) is not None and len(s.value.args) == 1
                and isinstance(s.value.args[0], gast.Name))


def _in_loops(fn):
    """The ids of the statements of ``fn`` inside a loop of it."""
    out = set()
    for loop in walk_stmts(fn.body):
        if isinstance(loop, (gast.For, gast.While)):
            out |= {id(st) for st in walk_stmts(loop.body)}
    return out


def _read_before_bound(stmts, bound):
    """Names ``stmts`` may read before they bind them (``bound``: bound before them)."""
    found = set()
    for st in stmts:
        found |= {n.id for n in own_nodes(st) if isinstance(n, gast.Name)
                  and isinstance(n.ctx, gast.Load)} - bound
        if isinstance(st, (gast.If, gast.For, gast.While)):
            inner = set(bound)
            if isinstance(st, gast.For):  # (its target, bound at each trip)
                inner |= {n.id for n in gast.walk(st.target) if isinstance(n, gast.Name)}
            found |= _read_before_bound(st.body, inner) \
                | _read_before_bound(st.orelse, set(bound))
        else:
            bound |= set(scope_bound_names([st]))
    return found


def _nodes(fn):
    """The nodes of ``fn``'s body (a def's or a module's), not of the defs in it."""
    return (n for st in fn.body for n in scope_nodes(st))


def _is_mark(st):
    value = st.value if isinstance(st, gast.Expr) else None
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
        and value.func.attr == "try_tail" and isinstance(value.func.value, gast.Name) \
        and value.func.value.id == "_sg"


def _cannot_raise(s):
    """``break``, ``continue``, ``pass``, ``name = <constant>`` (a flag a ``break`` set)."""
    return isinstance(s, _CONTROL) or isinstance(s, gast.Assign) and len(s.targets) == 1 \
        and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Constant)


def _appends_to(n):
    """``X`` of the statement ``X.append(v)``, else None."""
    call = n.value if isinstance(n, gast.Expr) else None
    return call.func.value.id if isinstance(call, gast.Call) \
        and isinstance(call.func, gast.Attribute) and call.func.attr == "append" \
        and isinstance(call.func.value, gast.Name) else None


def _bound_first(stmts):
    """Names the statements bind, in straight-line code, before any read of them."""
    bound, read = set(), set()
    for s in stmts:
        if _is_rollback(s):  # (``v = _sg.rolled_back(v_stack, n, v)``: v as before the try)
            bound |= set(scope_bound_names([s])) - read
            continue
        if not isinstance(s, (gast.Assign, gast.AnnAssign)):
            break
        read |= {n.id for n in gast.walk(s.value) if isinstance(n, gast.Name)} - bound
        bound |= set(scope_bound_names([s])) - read
    return bound


# ---------------------------------------------------------------------------
# Printing the branch as a try again
# ---------------------------------------------------------------------------

def emit(tree):
    """Turn each branch ``lower`` made, in the forward code of ``tree`` (a module),
    back into a ``try`` statement, in place (a second call changes nothing)."""
    tree.body = _emitted_block(tree.body)


def _emitted_block(stmts):
    """``stmts`` with the blocks nested in them first (a ``try`` in a ``try``)."""
    for s in stmts:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                setattr(s, field, _emitted_block(inner))
        for handler in getattr(s, "handlers", ()):
            handler.body = _emitted_block(handler.body)
    return _emitted(stmts)


def _emitted(stmts):
    out = []
    for s, flag, types in _branches(stmts):
        out += _as_try(s, flag, types) if flag is not None else [s]
    return out


def _branches(stmts):
    """Each statement of ``stmts`` as ``(s, flag, types)``: for the branch ``lower`` made
    of a try (its test the flag ``_sg.attempting(*types)`` set in this block, or a copy
    the forward code made of it), that flag and types; ``(s, None, None)`` for others."""
    pending = {}  # flag -> the exception types of its handler, until its branch is met
    copies = {}   # a name the forward code copied a flag into -> the flag
    for s in stmts:
        attempt = _attempt(s)
        if attempt is not None:
            pending[attempt[0]] = attempt[1]
        elif isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name) \
                and s.value.id in pending:
            copies[s.targets[0].id] = s.value.id
        elif isinstance(s, gast.Try) and getattr(s, "sg_try_flag", None) in pending:
            del pending[s.sg_try_flag]  # (printed before)
        elif isinstance(s, gast.If) and isinstance(s.test, gast.Name) \
                and copies.get(s.test.id, s.test.id) in pending:
            flag = copies.get(s.test.id, s.test.id)
            yield s, flag, pending.pop(flag)
            # (Derivative code lowered again: the flags of the try it printed, which its
            # handler sets false first, are this branch's too. Their copies test the
            # backward code's blocks, ``if cond:``, no try of their own.)
            for st in s.orelse:
                if _is_rollback(st):
                    continue
                if not (isinstance(st, gast.Assign) and isinstance(st.targets[0], gast.Name)
                        and isinstance(st.value, gast.Constant) and st.value.value is False):
                    break
                pending.pop(copies.get(st.targets[0].id, st.targets[0].id), None)
            continue
        yield s, None, None


def protected(tree_stmts):
    """The ids of the statements in the body of a branch ``lower`` made (in ``tree_stmts``,
    forward code): they may raise, an effect, so none is dropped for its value being
    unused (``cleanup.drop_unused``)."""
    out = set()

    def visit(stmts):
        for s, flag, _ in _branches(stmts):
            if flag is not None:
                out.update(id(t) for t in walk_stmts(s.body))
            for field in ("body", "orelse"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and not isinstance(s, gast.FunctionDef):
                    visit(inner)
    visit(tree_stmts)
    return out


def _attempt(s):
    """``(flag, types)`` of ``flag = _sg.attempting(*types)``, else None."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name) \
            and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Attribute) \
            and s.value.func.attr == "attempting" and isinstance(s.value.func.value, gast.Name) \
            and s.value.func.value.id == "_sg":
        return s.targets[0].id, s.value.args
    return None


def _as_try(s, flag, types):
    body = list(s.body)
    made = {n.id for st in body for n in scope_nodes(st)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    body = _without_foreign_dels(body, made)
    # The backward pass's stacks the body pushes on, and the value each push saves (a
    # name the push is before a binding of; None for an item's slot).
    stacks = {}
    for st in walk_stmts(body):
        if getattr(st, "sg_push", False) and st.value.func.value.id not in made:
            saved = st.value.args[0]
            stacks[st.value.func.value.id] = saved.id if isinstance(saved, gast.Name) else None
    lengths = {stack: f"{stack}_at_try" for stack in sorted(stacks)}
    before = [gast.copy_location(T.assign(n, T.expr("len(x)", x=stack)), s)
              for stack, n in lengths.items()]
    undo = []
    for stack, n in lengths.items():
        call = T.expr("_sg.rolled_back(s, n)", s=stack, n=n)
        if stacks[stack] is not None:
            call.args.append(T.name(stacks[stack]))
            undo.append(gast.copy_location(T.assign(stacks[stack], call), s))
        else:
            undo.append(gast.copy_location(gast.Expr(call), s))
    flags = [T.assign(flag, T.const(False))]
    if s.test.id != flag:
        flags.append(T.assign(s.test.id, T.const(False)))
    kind = None
    if len(types) == 1:
        kind = copy.deepcopy(types[0])
    elif types:
        kind = gast.Tuple([copy.deepcopy(t) for t in types], gast.Load())
    handler = gast.ExceptHandler(kind, None, undo + [gast.copy_location(f, s) for f in flags]
                                 + list(s.orelse))
    node = gast.copy_location(gast.Try(body or [gast.Pass()], [handler], [], []), s)
    node.sg_try_flag = flag
    for made_here in before + undo + [node]:  # (their lines are the try statement's)
        anno.like(made_here, s)
    return before + [node]


def _without_foreign_dels(stmts, made):
    """``stmts`` without deleting names they do not bind (the handler may read them)."""
    out = []
    for s in stmts:
        if isinstance(s, gast.Delete):
            targets = [t for t in s.targets if not isinstance(t, gast.Name) or t.id in made]
            if targets:
                out.append(gast.copy_location(gast.Delete(targets), s))
            continue
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and not isinstance(s, gast.FunctionDef):
                setattr(s, field, _without_foreign_dels(inner, made) or [gast.Pass()])
        out.append(s)
    return out
