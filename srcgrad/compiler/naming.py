"""Deterministic, readable names for temporaries, adjoints, stacks and flags."""
import keyword
import re


class Namer:
    """Hands out names that collide with nothing in the function.

    Names are derived from the user's variables (``dx``, ``loss_sub``,
    ``h_stack``) and numbered only on collision, so the same input always gives
    the same text.
    """

    def __init__(self, taken=()):
        self.taken = set(taken)
        self.adjoints = {}
        self.counters = {}  # base -> the first number not yet tried (no rescans: linear time)

    def reserve(self, names):
        self.taken.update(names)

    def fresh(self, base, exact=False):
        """A name not taken, from ``base``; ``exact``: ``base`` itself where it is free
        (else its underscores at the ends are dropped: ``x_`` gives ``x``, ``x_2``)."""
        if exact and base.isidentifier() and not keyword.iskeyword(base) \
                and base not in self.taken:
            self.taken.add(base)
            return base
        base = re.sub(r"\W", "_", base).strip("_") or "t"
        if base[0].isdigit():
            base = "v" + base
        if keyword.iskeyword(base):  # (``<lambda>``'s name: ``lambda``)
            base += "_fn"
        if base not in self.taken:
            self.taken.add(base)
            return base
        k = self.counters.get(base, 2)
        while f"{base}_{k}" in self.taken:
            k += 1
        out = f"{base}_{k}"
        self.taken.add(out)
        self.counters[base] = k + 1
        return out

    def adjoint(self, primal):
        """The adjoint variable of ``primal``: ``dx`` for ``x`` (stable per name)."""
        if primal not in self.adjoints:
            self.adjoints[primal] = self.fresh("d" + primal if not primal.startswith("_") else "d" + primal)
        return self.adjoints[primal]
