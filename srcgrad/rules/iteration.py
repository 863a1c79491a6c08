"""Python's iteration helpers and orderings over sequences of differentiable values,
written out over what has rules (as ``rewrites.py``): the compiler inlines them as the
user's code, so the adjoint, tangent, tape and second derivatives follow, and a
function given as ``key=`` or ``func=`` is called as Python calls it (once an item, in
order: its own effects happen once).

- ``itertools``: ``chain``, ``chain.from_iterable``, ``accumulate`` (``func=``,
  ``initial=``), ``pairwise``, ``islice``, ``compress``, ``combinations``,
  ``combinations_with_replacement``, ``permutations``, ``product``: the list of what
  the iterator gives (positions from the lengths alone, ``runtime/iteration.py``).
  The iterator is made where it is read (``calls.py`` refuses one bound to a name: a
  list it stood for would not see a later change to the sequences it reads).
- ``min``/``max`` with ``key=`` or ``default=``: the first item whose key is least
  (greatest), compared as Python compares them; ``sorted`` with ``key=``: the items
  in the order of a stable sort of their keys (``reverse=`` as Python's).
- ``statistics``: ``mean``, ``fmean`` (``weights=``), ``median``, ``variance``,
  ``stdev``, ``pvariance``, ``pstdev``, by their formulas (Python sums exactly, as
  fractions: the values may differ in the last bit); ``math.dist``; ``complex(re,
  im)``.
"""
import builtins
import itertools
import math
import operator
import statistics

from .. import runtime as _sg

_NONE = object()  # (``default=`` not given: ``min`` and ``max`` raise on no items)


def chain(*iterables):
    """``itertools.chain``: the items of each iterable in turn."""
    return chain_from_iterable(iterables)


def chain_from_iterable(iterables):
    """``itertools.chain.from_iterable``: the items of each iterable it gives."""
    items = []
    for iterable in iterables:
        for item in iterable:
            items.append(item)
    return items


def accumulate(iterable, func=None, *, initial=None):
    """``itertools.accumulate``: the running totals (``func(total, item)``)."""
    items = list(iterable)
    if initial is None:
        if len(items) == 0:
            return []
        total = items[0]
        rest = items[1:]
    else:
        total = initial
        rest = items
    totals = [total]
    if func is None:
        for item in rest:
            total = total + item
            totals.append(total)
    else:
        for item in rest:
            total = func(total, item)
            totals.append(total)
    return totals


def pairwise(iterable):
    """``itertools.pairwise``: each item with the next."""
    items = list(iterable)
    return [(items[i], items[i + 1]) for i in range(len(items) - 1)]


def islice(iterable, *args):
    """``itertools.islice``: the items of a slice of what the iterable gives."""
    return list(iterable)[_sg.islice_slice(*args)]


def compress(data, selectors):
    """``itertools.compress``: the items whose selector is true."""
    return [item for item, kept in zip(data, selectors) if kept]


def combinations(iterable, r):
    """``itertools.combinations``."""
    items = list(iterable)
    return [tuple([items[i] for i in at])
            for at in _sg.combination_positions(len(items), r, False)]


def combinations_with_replacement(iterable, r):
    """``itertools.combinations_with_replacement``."""
    items = list(iterable)
    return [tuple([items[i] for i in at])
            for at in _sg.combination_positions(len(items), r, True)]


def permutations(iterable, r=None):
    """``itertools.permutations``."""
    items = list(iterable)
    return [tuple([items[i] for i in at])
            for at in _sg.permutation_positions(len(items), r)]


def product(*iterables, repeat=1):
    """``itertools.product``: ``repeat`` copies of the sequences, one item of each."""
    pools = [list(iterable) for iterable in iterables] * repeat
    return [tuple([pools[j][i] for j, i in enumerate(at)])
            for at in _sg.product_positions([len(p) for p in pools[:len(iterables)]], repeat)]


def _first_extreme(items, key, better):
    """The first item whose key no later one is ``better`` than (``operator.lt``: the
    least, ``operator.gt``: the greatest), compared as ``min`` and ``max`` compare them
    (the comparison inlined: ``keys[i] < keys[best]``)."""
    # (a copy: the same list under two names would stop code differentiated again)
    keys = list(items) if key is None else [key(item) for item in items]
    best = 0
    for i in range(1, len(items)):
        if better(keys[i], keys[best]):
            best = i
    return items[best]


def _extreme_of(iterable, key, default, name, better):
    """``min``/``max`` (``name``) of one iterable (``key=``, ``default=``)."""
    items = list(iterable)
    if len(items) == 0:
        if default is _NONE:
            raise ValueError(f"{name}() iterable argument is empty")
        extreme = default
    else:
        extreme = _first_extreme(items, key, better)
    return extreme


def _extreme_unpacked(args, key, default, name, better):
    """``min(*values, key=...)``: how many values is known when the code runs."""
    if len(args) == 1:
        return _extreme_of(args[0], key, default, name, better)
    if default is not _NONE:
        raise TypeError(f"Cannot specify a default for {name}() with multiple positional "
                        "arguments")
    return _first_extreme(list(args), key, better)


def min_of(iterable, *, key=None, default=_NONE):
    """``min(iterable, key=..., default=...)``."""
    return _extreme_of(iterable, key, default, "min", operator.lt)


def max_of(iterable, *, key=None, default=_NONE):
    """``max(iterable, key=..., default=...)``."""
    return _extreme_of(iterable, key, default, "max", operator.gt)


def min_among(first, second, *rest, key=None):
    """``min(a, b, ..., key=...)``."""
    return _first_extreme([first, second, *rest], key, operator.lt)


def max_among(first, second, *rest, key=None):
    """``max(a, b, ..., key=...)``."""
    return _first_extreme([first, second, *rest], key, operator.gt)


def min_unpacked(*args, key=None, default=_NONE):
    """``min(*values, key=...)``."""
    return _extreme_unpacked(args, key, default, "min", operator.lt)


def max_unpacked(*args, key=None, default=_NONE):
    """``max(*values, key=...)``."""
    return _extreme_unpacked(args, key, default, "max", operator.gt)


def sorted_by(iterable, *, key=None, reverse=False):
    """``sorted`` with ``key=``: the items in the order of their keys, each key computed
    once."""
    items = list(iterable)
    keys = list(items) if key is None else [key(item) for item in items]
    return [items[i] for i in _sg.sorted_order(keys, None, reverse)]


def _items(data, name):
    items = list(data)
    if len(items) == 0:
        raise statistics.StatisticsError(f"{name} requires at least one data point")
    return items


def mean(data):
    """``statistics.mean``."""
    items = _items(data, "mean")
    return builtins.sum(items) / len(items)


def fmean(data, weights=None):
    """``statistics.fmean``."""
    items = _items(data, "fmean")
    if weights is None:
        return math.fsum(items) / len(items)
    weights = list(weights)
    if len(weights) != len(items):
        raise statistics.StatisticsError("data and weights must be the same length")
    return math.fsum([w * x for w, x in zip(weights, items)]) / math.fsum(weights)


def median(data):
    """``statistics.median``: the middle item, or the mean of the two middle ones."""
    items = sorted(_items(data, "median"))
    n = len(items)
    if n % 2 == 1:
        return items[n // 2]
    return (items[n // 2 - 1] + items[n // 2]) / 2


def _spread(data, center, ddof, name):
    """The sum of squares of ``data`` about ``center`` (their mean where None) over
    ``n - ddof``: ``statistics``' variances, ``ddof`` 1 for a sample's, 0 for a
    population's (Python's sum less a correction for rounding in the mean, zero exactly)."""
    items = list(data)
    if len(items) <= ddof:
        raise statistics.StatisticsError(
            f"{name} requires at least {'two data points' if ddof else 'one data point'}")
    if center is None:
        center = builtins.sum(items) / len(items)
    return builtins.sum([(x - center) * (x - center) for x in items]) / (len(items) - ddof)


def variance(data, xbar=None):
    """``statistics.variance``: about the mean (or ``xbar``), over n - 1."""
    return _spread(data, xbar, 1, "variance")


def stdev(data, xbar=None):
    """``statistics.stdev``."""
    return math.sqrt(_spread(data, xbar, 1, "stdev"))


def pvariance(data, mu=None):
    """``statistics.pvariance``: about the mean (or ``mu``), over n."""
    return _spread(data, mu, 0, "pvariance")


def pstdev(data, mu=None):
    """``statistics.pstdev``."""
    return math.sqrt(_spread(data, mu, 0, "pstdev"))


def dist(p, q):
    """``math.dist``: the Euclidean distance of two points of as many coordinates."""
    p, q = list(p), list(q)
    if len(p) != len(q):
        raise ValueError("both points must have the same number of dimensions")
    return math.sqrt(math.fsum([(a - b) * (a - b) for a, b in zip(p, q)]))


def complex_of(real=0.0, imag=0.0):
    """``complex(re, im)`` of numbers."""
    return real + imag * 1j


REWRITES = {itertools.chain: chain, itertools.chain.from_iterable: chain_from_iterable,
            itertools.accumulate: accumulate, itertools.pairwise: pairwise,
            itertools.islice: islice, itertools.compress: compress,
            itertools.combinations: combinations,
            itertools.combinations_with_replacement: combinations_with_replacement,
            itertools.permutations: permutations, itertools.product: product,
            statistics.mean: mean, statistics.fmean: fmean, statistics.median: median,
            statistics.variance: variance, statistics.stdev: stdev,
            statistics.pvariance: pvariance, statistics.pstdev: pstdev, math.dist: dist,
            builtins.complex: complex_of}
# Functions with a rule, written out when called with one of some options.
WITH_OPTIONS = {builtins.sorted: (sorted_by, ("key",), 1)}
# ``min``/``max`` with ``key=`` or ``default=``, by how many positional arguments the
# call has (0: one unpacked, ``min(*values)``, known when the code runs).
EXTREMES = {builtins.min: ({1: min_of, 0: min_unpacked}, min_among),
            builtins.max: ({1: max_of, 0: max_unpacked}, max_among)}
# Iterators: made where they are read (a loop, a comprehension, ``list(...)``).
ITERATORS = frozenset({itertools.chain, itertools.chain.from_iterable, itertools.accumulate,
                       itertools.pairwise, itertools.islice, itertools.compress,
                       itertools.combinations, itertools.combinations_with_replacement,
                       itertools.permutations, itertools.product})
