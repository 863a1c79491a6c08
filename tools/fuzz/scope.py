"""What the generator knows about the variables in scope: shapes and memory.

Python semantics need no simulation here, but two facts do: a variable's
shape (to build valid expressions) and whether it may be updated in place
without touching the caller's arrays (``owned``). A parameter and any view of
it are not owned; a freshly computed array and views of it are.
"""
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Var:
    shape: tuple
    owned: bool = True     # shares no memory with an input
    writable: bool = True  # False for read-only views (np.broadcast_to)
    shared: bool = False   # may share memory with another variable or container
    item: bool = False     # an entry of a container (``d["w"]``): read only

    @property
    def updatable(self):
        """May be the target of ``v += ...`` or ``v[i] = ...``."""
        return self.owned and self.writable and not self.item


class Scope:
    """Variables visible in one block; nested blocks and functions chain to a parent.

    A name first bound in a nested block is visible only inside it (Python
    keeps it afterwards, but it may be unbound when the block did not run).
    A nested block may rebind an outer name only with a value of the same
    shape that is updatable, so that no later iteration of a loop, and no
    statement after the block, can see an input where an owned array was.
    A function scope (``function=True``) reads its parent but binds only its
    own names.
    """

    def __init__(self, parent=None, function=False):
        self.parent = parent
        self.function = function
        self.vars = {}

    def lookup(self, name):
        scope = self
        while scope is not None:
            if name in scope.vars:
                return scope.vars[name]
            scope = scope.parent
        return None

    def visible(self):
        """All visible variables, inner bindings first in insertion order (newest last)."""
        chain = []
        scope = self
        while scope is not None:
            chain.append(scope)
            scope = scope.parent
        out = {}
        for scope in reversed(chain):
            out.update(scope.vars)
        return out

    def _owner(self, name):
        """The scope (up to a function boundary) that binds ``name``, or None."""
        scope = self
        while scope is not None:
            if name in scope.vars:
                return scope
            if scope.function:
                return None
            scope = scope.parent
        return None

    def can_rebind(self, name, var):
        if not name.isidentifier():
            return False
        owner = self._owner(name)
        if owner is None:
            return self.lookup(name) is None  # never shadow an enclosing function's name
        if owner is self:
            return True
        return owner.vars[name].shape == var.shape and var.updatable

    def bind(self, name, var):
        assert self.can_rebind(name, var), name
        owner = self._owner(name)
        if owner is not None and owner is not self:
            old = owner.vars[name]
            owner.vars[name] = replace(old, owned=old.owned and var.owned,
                                       writable=old.writable and var.writable,
                                       shared=old.shared or var.shared)
        self.vars[name] = var

    def add_item(self, code, var):
        """A read-only entry such as ``d["w"]`` or ``a[i]``, readable as a leaf in this block."""
        self.vars[code] = var

    def mark_shared(self, name):
        """``name`` now shares memory with another binding (in every scope that binds it)."""
        scope = self
        while scope is not None:
            if name in scope.vars:
                scope.vars[name] = replace(scope.vars[name], shared=True)
            scope = scope.parent


def size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def broadcast_operand_shapes(shape, rng):
    """A shape that broadcasts to ``shape`` (1-sized axes, dropped leading axes)."""
    out = [1 if d > 1 and rng.random() < 0.4 else d for d in shape]
    drop = rng.randint(0, len(out))
    return tuple(out[drop:])


def broadcast_pair(shape, rng):
    """Two shapes, neither necessarily ``shape``, whose broadcast is exactly ``shape``.

    Leading 1-sized axes are dropped from one of the two only: dropped from
    both, an axis of ``shape`` that is 1 would vanish from the result.
    """
    a, b = [], []
    for d in shape:
        r = rng.random()
        if d == 1 or r < 0.4:
            a.append(d)
            b.append(d)
        elif r < 0.7:
            a.append(d)
            b.append(1)
        else:
            a.append(1)
            b.append(d)
    if rng.random() < 0.5:
        return _strip_leading_ones(a, rng), tuple(b)
    return tuple(a), _strip_leading_ones(b, rng)


def _strip_leading_ones(dims, rng):
    k = 0
    while k < len(dims) and dims[k] == 1 and rng.random() < 0.5:
        k += 1
    return tuple(dims[k:])


def broadcasts_to(small, big):
    if len(small) > len(big):
        return False
    return all(s in (1, b) for s, b in zip(reversed(small), reversed(big)))
