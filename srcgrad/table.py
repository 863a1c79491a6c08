"""The one lookup the passes use: NumPy rules plus rules for srcgrad's own helpers."""
from . import derivatives, runtime_rules

TABLE = {**derivatives.TABLE, **runtime_rules.TABLE}
NONDIFF = frozenset(derivatives.NONDIFF) | frozenset(runtime_rules.NONDIFF)


def rule(obj):
    try:
        return TABLE.get(obj)
    except TypeError:  # unhashable callables have no rule
        return None


def nondiff(obj):
    try:
        return obj in NONDIFF
    except TypeError:
        return False
