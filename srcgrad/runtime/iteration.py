"""Positions for the iterators of ``itertools`` written out over sequences of
differentiable values (rules/iteration.py): which items each tuple takes, from the
sequences' lengths alone (never differentiated), and ``islice``'s arguments checked
as ``itertools.islice`` checks them."""
import itertools

__all__ = ["combination_positions", "permutation_positions", "product_positions",
           "islice_slice"]


def combination_positions(n, r, replacement):
    """The positions of each tuple ``itertools.combinations`` (or, with ``replacement``,
    ``combinations_with_replacement``) gives for ``n`` items, in its order."""
    made = itertools.combinations_with_replacement if replacement else itertools.combinations
    return list(made(range(n), r))


def permutation_positions(n, r):
    """The positions of each tuple ``itertools.permutations`` gives for ``n`` items."""
    return list(itertools.permutations(range(n), r))


def product_positions(lengths, repeat):
    """The positions, sequence by sequence, of each tuple ``itertools.product`` gives for
    sequences of ``lengths``."""
    return list(itertools.product(*[range(n) for n in lengths], repeat=repeat))


def islice_slice(*args):
    """The slice of a list that ``itertools.islice(list, *args)`` gives, its arguments
    refused as ``islice`` refuses them (negative, not integers)."""
    itertools.islice((), *args)
    return slice(*args)
