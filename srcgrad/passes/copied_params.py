"""``p = dict(p)``: a parameter rebound to a copy of itself, named anew from there on.

A dict parameter copied into its own name before it is written into
(``p = dict(p); p["w"] = p["w"] * 2``) is one name for two dicts, so the
normalizer cannot tell which keys a read of ``p`` finds, where ``q = dict(p)``
is two stable names. From the copy on, the function is the same with the copy
called ``p_copy``: every later read and binding of ``p``, nested blocks,
comprehensions and functions defined later included, is renamed. Only a copy
at the function's top level that is the parameter's first binding is renamed,
and not where a function defined before it, a ``global`` or ``nonlocal``
declaration, or a ``del`` could see the name change.
"""
import gast


def rename_copied_params(fn, namer):
    """Rename, in place, each parameter of ``fn`` (a gast FunctionDef) copied into its
    own name as described above. (Renaming a name from a binding on is exact whatever
    the value: what ``dict`` is does not matter; the copy only says where it helps.)"""
    params = {a.id for a in fn.args.args + fn.args.kwonlyargs}
    for i, s in enumerate(fn.body):
        name = _copied_param(s, params)
        if name is None or not _renamable(fn.body[:i], fn.body, name):
            continue
        new = namer.fresh(f"{name}_copy")
        s.targets[0].id = new
        for later in fn.body[i + 1:]:
            for n in gast.walk(later):
                if isinstance(n, gast.Name) and n.id == name:
                    n.id = new
        params.discard(name)


def _copied_param(s, params):
    """The parameter ``s`` binds to a copy of itself (``p = dict(p)``, ``p = {**p}``,
    ``p = list(p)``, ``p = copy.copy(p)``), or None. (Not ``p = p.copy()``, an array's
    too, whose name the generated code keeps: a dict's compiles as it is.)"""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id in params):
        return None
    name, value = s.targets[0].id, s.value
    if isinstance(value, gast.Dict) and value.keys == [None] \
            and isinstance(value.values[0], gast.Name) and value.values[0].id == name:
        return name
    if not isinstance(value, gast.Call) or value.keywords:
        return None
    f = value.func
    copier = isinstance(f, gast.Name) and f.id in ("dict", "list") or \
        isinstance(f, gast.Attribute) and f.attr == "copy" and isinstance(f.value, gast.Name) \
        and f.value.id == "copy"
    if copier and len(value.args) == 1 and isinstance(value.args[0], gast.Name) \
            and value.args[0].id == name:
        return name
    return None


def _renamable(before, body, name):
    """Is ``name`` not bound before, not declared global/nonlocal or deleted anywhere, and
    not read by a function defined before (which would see the new binding)?"""
    for s in before:
        for n in gast.walk(s):
            if isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load):
                return False
            if isinstance(n, (gast.FunctionDef, gast.Lambda, gast.ClassDef)) \
                    and any(isinstance(m, gast.Name) and m.id == name for m in gast.walk(n)):
                return False
    for s in body:
        for n in gast.walk(s):
            if isinstance(n, (gast.Global, gast.Nonlocal)) and name in n.names:
                return False
            if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Del):
                return False
    return True
