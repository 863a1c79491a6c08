"""Lists and iterables whose value depends on when, and through which name, the code
uses them: what srcgrad's name-by-name, evaluated-where-made model of them takes
exactly, and what it refuses.

- A list appended to (or popped from) is followed by its adjoint under the name the
  append was made through: one read back through another name that holds it (a copy
  of the name, an object's field, a container it was stored in, an item read of a
  container, a loop's variable) would miss the change (``check_list_updates``).
- A generator expression or a dict's view bound to a name is evaluated where it is
  made; Python's runs when it is read (``check_stored_iterables``).
"""
import gast

from ...ir import anno, templates as T
from ...ir.names import statement_lists, walk_stmts

_CONSUMERS = (sum, list, tuple, sorted, min, max, set, any, all, dict)


def check_stored_iterables(fn, scope, error):
    """``g = (v ** 2 for v in x)`` or ``vals = d.values()`` bound to a name: srcgrad
    evaluates it where it is made. Exact where one later statement of the same block,
    and nothing else, reads the name, once, consuming it whole (``sum(g)``, ``list(vals)``,
    a loop without ``break``), and the statements before that one do not mention what it
    reads (``x``, ``d``); else refused: Python's generator runs when consumed, once (a
    second ``sum(g)`` is 0), and a dict's view sees later stores into the dict."""
    stored = [(block, i) for block in statement_lists(fn) for i, st in enumerate(block)
              if _stored_iterable(st)]
    if not stored:  # (the usual body: no walk of it for the loads)
        return
    loads = {}
    for n in T.walk(gast.Module(fn.body, [])):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            loads[n.id] = loads.get(n.id, 0) + 1
    for block, i in stored:
        st = block[i]
        value, name = st.value, st.targets[0].id
        if loads.get(name, 0) == 0 or _read_once_whole(block[i + 1:], name, value, loads, scope):
            continue
        what = "a generator" if isinstance(value, gast.GeneratorExp) else \
            f"the dict view `{gast.unparse(value).strip()}`"
        raise error(
            f"`{name}` holds {what}, read other than once, whole, before what it reads "
            "changes: srcgrad evaluates it where it is made, Python when it is read (a "
            "generator once: read again it is empty; a view sees later changes to its dict)",
            st, f"write it where it is used (sum(... for ...)), or make a list: "
            f"{name} = [...] / list(...)")


def _stored_iterable(st):
    """Is ``st`` ``name = <generator expression>`` or ``name = d.values()`` (``keys``,
    ``items``)?"""
    if not (isinstance(st, gast.Assign) and len(st.targets) == 1
            and isinstance(st.targets[0], gast.Name)):
        return False
    value = st.value
    return isinstance(value, gast.GeneratorExp) or isinstance(value, gast.Call) \
        and isinstance(value.func, gast.Attribute) \
        and value.func.attr in ("values", "keys", "items") and not value.args \
        and not value.keywords


def _read_once_whole(after, name, value, loads, scope):
    """Is ``name`` read once, by a statement of ``after`` consuming it whole, with none of
    the statements before that one mentioning a name ``value`` reads?"""
    bound = {n.id for g in getattr(value, "generators", ()) for n in T.walk(g.target)
             if isinstance(n, gast.Name)}
    reads = {n.id for n in T.walk(value) if isinstance(n, gast.Name)} - bound
    if loads.get(name) != 1:
        return False
    for st in after:
        mentioned = {n.id for n in T.walk(st) if isinstance(n, gast.Name)}
        if name in mentioned:
            return _consumes_whole(st, name, scope)
        if mentioned & reads:
            return False
    return False


def _consumes_whole(st, name, scope):
    """Does statement ``st`` read ``name`` once, as the argument of a call consuming it
    whole, or as the iterable of a loop with no ``break``?"""
    if isinstance(st, gast.For):
        return isinstance(st.iter, gast.Name) and st.iter.id == name \
            and not any(isinstance(n, gast.Break) for n in T.walk(st))
    if not isinstance(st, (gast.Assign, gast.Expr, gast.Return, gast.AugAssign)):
        return False
    for n in T.walk(st):
        if isinstance(n, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.SetComp,
                          gast.DictComp)) and name in {m.id for m in T.walk(n)
                                                       if isinstance(m, gast.Name)}:
            return False  # (run when the comprehension or lambda runs, maybe again)
        if isinstance(n, gast.Call) and len(n.args) >= 1 and isinstance(n.args[0], gast.Name) \
                and n.args[0].id == name and any(scope.value(n.func) is f for f in _CONSUMERS):
            return True
    return False


def _held_elsewhere(body):
    """Names some binding of which may give them a list another object holds: a loop's
    variable, an item unpacked, an item or attribute read (``row = outer[0]``), what
    ``d.get``/``d.setdefault``/``next``/``getattr`` return (a ``pop`` takes its item
    out). (A list a call inlined returns comes as a name: ``appended_aliases`` follows
    those.)"""
    out = set()
    for s in walk_stmts(body):
        if isinstance(s, gast.For):
            out |= {n.id for n in T.walk(s.target) if isinstance(n, gast.Name)}
        if not isinstance(s, gast.Assign):
            continue
        for t in s.targets:
            if not isinstance(t, gast.Name):
                out |= {n.id for n in T.walk(t) if isinstance(n, gast.Name)
                        and not isinstance(n.ctx, gast.Load)}
            elif _may_hold_another_list(s.value):
                out.add(t.id)
    return out


def _may_hold_another_list(value):
    if isinstance(value, gast.Subscript):
        return not isinstance(value.slice, gast.Slice)  # (``xs[:]`` is a new list)
    if isinstance(value, gast.Attribute):
        return True
    if isinstance(value, gast.Call):
        f = value.func
        return isinstance(f, gast.Attribute) and f.attr in ("get", "setdefault") \
            or isinstance(f, gast.Name) and f.id in ("next", "getattr", "min", "max")
    return isinstance(value, gast.IfExp) and (_may_hold_another_list(value.body)
                                              or _may_hold_another_list(value.orelse))


def check_list_updates(fn, error):
    """An append of a differentiable value (or a pop of one) changes one list under the
    name it is made through; read through another (``inner = outer[0]`` then
    ``inner.append(v)``, read back as ``outer``; a loop's variable over lists; a list a
    helper returned, or was given) the adjoint would miss it. Refused once the code
    is normalized (the names are known only once calls are inlined)."""
    aliased = appended_aliases(fn.body)
    elsewhere = _held_elsewhere(fn.body)
    deques = {t.id for s in walk_stmts(fn.body) if isinstance(s, gast.Assign)
              and isinstance(s.value, gast.Call) and _called(s.value) == "deque"
              for t in s.targets if isinstance(t, gast.Name)}
    for s in walk_stmts(fn.body):
        if anno.kind(s) == "append":
            name, what = s.value.func.value.id, "appending a differentiable value to"
        elif anno.kind(s) == "pop":
            name, what = s.value.func.value.id, "popping a differentiable value from"
        else:
            continue
        if name in deques:
            raise error(f"{what} `{name}`, a collections.deque, is not supported: with a "
                        "maxlen it drops its first items, which its adjoint, a list's, "
                        "would not", s, f"keep the window in a list: {name} = "
                        f"{name}[-(n - 1):] + [v]")
        if name in aliased:
            why = ("a list another name also holds (a copy of the name, an object's field, "
                   "a list or dict it was stored in)")
        elif name in elsewhere:
            why = ("a list also held elsewhere (an item of a list or dict, a loop's variable "
                   "over them, a list a call returned)")
        else:
            continue
        raise error(f"{what} `{name}`, {why}, is not supported: its adjoint follows the "
                    "list under this name only", s,
                    "build the list under one name and store it where it belongs after "
                    "(row = [...]; row.append(v); outer[0] = row), or make a new list: "
                    "outer[0] = outer[0] + [v]")


def appended_aliases(body):
    """Names appended to (or popped from) while another name holds the same list and
    reads it after that: ``alias = items``, chains of such copies (an inlined helper's
    parameter, an object's field given the list: ``self.store = store``), and a list
    stored in another (``outer.append(row)``, ``d["a"] = row``, ``outer = [row]``)
    before ``row.append(v)``. The adjoint of an append follows the name it was made
    through, and would miss what is read through the other after it. (Read before it,
    or through a name copied from it after it, the list is as the adjoint has it.)

    Statements are taken last to first, keeping for the list each name holds at a point
    what happens to it after that point: (position, changed or read, through which
    name, the name the statement itself uses)."""
    out = set()
    events = {}  # name -> [(position, "change" or "read", through, as written)]

    def check(found):
        for p, kind, via, written in found:
            if kind == "change" and any(q > p and k == "read" and other != via
                                        for q, k, other, _ in found):
                out.add(written)

    stmts = list(_in_order_run(body))
    for at in range(len(stmts) - 1, -1, -1):  # what the statements after each one do
        s = stmts[at]
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name):
            target, source = s.targets[0].id, s.value.id
            copied = events.pop(target, [])
            check(copied + events.get(source, []))
            # (Before this point, what happens through the copy happens through the name
            # it copies: one name for the list, to the copies made before.)
            events[source] = events.get(source, []) + [(p, kind, source, written)
                                                       for p, kind, _, written in copied]
            continue
        for stored, holder in _stores_of_names(s):
            check(events.get(stored, []) + [(p, "read", holder, w) for p, kind, _, w in
                                            events.get(holder, []) if kind == "read"])
        for t in getattr(s, "targets", ()):  # (bound here: what follows is another list's)
            for n in T.walk(t):
                if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                    events.pop(n.id, None)
        if isinstance(s, (gast.If, gast.For, gast.While)):
            nodes = T.walk(s.test if isinstance(s, (gast.If, gast.While)) else s.iter)
        else:
            nodes = T.walk(s)
        receivers = set()
        for n in nodes:
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                    and n.func.attr in ("append", "pop") and isinstance(n.func.value, gast.Name):
                name = n.func.value.id
                events.setdefault(name, []).append((at, "change", name, name))
                receivers.add(id(n.func.value))
            elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) \
                    and id(n) not in receivers:
                events.setdefault(n.id, []).append((at, "read", n.id, n.id))
    return out


def _in_order_run(body):
    """The statements of ``body`` (nested ones after their head) in the order they run,
    a loop's body twice: what a trip does after a statement includes the next trip's
    (``row.append(v); rows.append(row)`` in a loop: the next append reaches ``rows``)."""
    for s in body:
        yield s
        if isinstance(s, gast.FunctionDef):
            continue
        loop = isinstance(s, (gast.For, gast.While))
        for _ in range(2 if loop else 1):
            yield from _in_order_run(getattr(s, "body", []))
        for h in getattr(s, "handlers", []):
            yield from _in_order_run(h.body)
        yield from _in_order_run(getattr(s, "orelse", []))
        yield from _in_order_run(getattr(s, "finalbody", []))


def _stores_of_names(s):
    """(name, container) of each name ``s`` puts into a container: ``c.append(name)``,
    ``c[k] = name``, ``c = [name, ...]`` (a display of names)."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
            and isinstance(s.value.func, gast.Attribute) \
            and s.value.func.attr in ("append", "insert") \
            and isinstance(s.value.func.value, gast.Name):
        return [(a.id, s.value.func.value.id) for a in s.value.args if isinstance(a, gast.Name)]
    if isinstance(s, gast.Assign) and len(s.targets) == 1:
        target, value = s.targets[0], s.value
        root = target
        while isinstance(root, gast.Subscript):
            root = root.value
        if isinstance(target, gast.Subscript) and isinstance(root, gast.Name) \
                and isinstance(value, gast.Name):
            return [(value.id, root.id)]
        if isinstance(target, gast.Name) and isinstance(value, (gast.List, gast.Tuple, gast.Dict)):
            items = value.values if isinstance(value, gast.Dict) else value.elts
            return [(e.id, target.id) for e in items if isinstance(e, gast.Name)]
    return []


def _called(call):
    """The name a call's function is spelled with: ``deque`` of ``collections.deque``."""
    f = call.func
    return f.attr if isinstance(f, gast.Attribute) else getattr(f, "id", None)
