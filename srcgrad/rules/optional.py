"""SciPy's entries, added when a program has imported the SciPy module they key on.

SciPy is optional, and importing its modules costs 0.1 to 0.6 s each
(``scipy.signal`` and ``scipy.stats`` the most): ``import srcgrad`` imports none of
them. A function of SciPy's can only reach the compiler once its module is in
``sys.modules``, so each compile calls ``ensure`` (``ir/resolve.Scope``, when a
function's names are first looked up and after an attribute of a module is read,
which may import a submodule: ``scipy.special.gammaln`` after ``import scipy``), and
the families' entries for every SciPy module imported since are added, then every
table derived from them is built again, the same code that built them at import.

The families say what they add in ``SCIPY``: ``{module name: function of the
module}``. One module's entries are added in one step under a lock, and the count of
modules seen is published last: a compile that finds the count unchanged reads
tables that hold every entry for what is imported (the rules of
``scipy.signal.convolve2d`` and the rewrites of its other options come together).
"""
import importlib
import sys
import threading

from ..runtime import from_scipy
from . import complexes, convolutions, decompositions, integration, nan_reductions, \
    rewrites, scipy_linalg, special, stats, table, tangents, transforms

_FAMILIES = (special, stats, convolutions, decompositions, integration, nan_reductions,
             scipy_linalg, transforms, rewrites)
# Every SciPy module some family keys on, and the families' functions adding its entries.
_ADDERS = {}
for _family in _FAMILIES:
    for _name, _add in _family.SCIPY.items():
        _ADDERS.setdefault(_name, []).append(_add)

_LOCK = threading.Lock()
_added = set()       # the SciPy modules whose entries are in the tables
_seen = -1           # len(sys.modules) when the last check found nothing more to add


def ensure():
    """Add the entries of every SciPy module imported since the last call (cheap when
    nothing was imported: one length compared)."""
    if len(sys.modules) != _seen:
        _add_imported()


def _add_imported():
    global _seen
    with _LOCK:
        while True:
            seen = len(sys.modules)
            new = [name for name in _ADDERS if name not in _added and name in sys.modules]
            if not new:
                break
            for name in new:
                module = importlib.import_module(name)  # (in sys.modules: no import here)
                from_scipy.bind(name)  # (the helpers' names first: then the entries)
                for add in _ADDERS[name]:
                    add(module)
                _added.add(name)
            table.build()
            tangents.build()
            complexes.build()
            rewrites.build()
        _seen = seen


def added():
    """The SciPy modules whose entries are in the tables."""
    return frozenset(_added)


def modules():
    """Every SciPy module that has entries."""
    return tuple(_ADDERS)
