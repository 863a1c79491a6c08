"""Interleaved timing: every column of a row is measured round-robin, in one process.

Each round times one sample of every column, one after the other, starting
from a different column each round, so that slow drifts of a shared, noisy
machine (other jobs, frequency changes, memory pressure) fall on all columns
alike instead of on whichever ran last. A sample is ``inner`` back-to-back
calls (chosen so that a sample lasts at least ``min_sample`` seconds), and
the result is the median over rounds. A ratio of two columns is the median of
their per-round ratios: the two samples of one round ran seconds apart.
"""
import math
import statistics
import time


def _calibrate(fn, min_sample):
    """Calls per sample so that one sample lasts at least ``min_sample``."""
    # An untimed call first: a first call that compiles (a decorated function whose
    # correctness check called another) would otherwise make every sample one cold call.
    fn()
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    if once >= min_sample:
        return 1
    # a second estimate over a few calls, the first may have been cold
    n = max(1, min(1000, int(min_sample / max(once, 1e-7) / 4)))
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    per_call = (time.perf_counter() - t0) / n
    return max(1, math.ceil(min_sample / max(per_call, 1e-9)))


def interleaved(thunks, rounds, min_sample, max_seconds=None):
    """Median seconds per call of each thunk, and the per-round samples.

    ``thunks`` maps a column name to a zero-argument callable. ``max_seconds``
    stops adding rounds (after at least 3) when a row runs long.
    """
    names = list(thunks)
    inner = {name: _calibrate(thunks[name], min_sample) for name in names}
    samples = {name: [] for name in names}
    start = time.perf_counter()
    perf_counter = time.perf_counter
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            fn, n = thunks[name], inner[name]
            t0 = perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((perf_counter() - t0) / n)
        if max_seconds is not None and r >= 2 and perf_counter() - start > max_seconds:
            break
    medians = {name: statistics.median(s) for name, s in samples.items()}
    return medians, samples


def paired_ratio(samples, a, b):
    """Median over rounds of ``a``'s time over ``b``'s time in the same round."""
    return statistics.median(x / y for x, y in zip(samples[a], samples[b]))
