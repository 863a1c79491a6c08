"""SciPy's functions that the helpers call, bound when a program has imported SciPy.

Importing a SciPy module costs 0.1 to 0.6 s, and SciPy is optional: importing
srcgrad imports none. The helpers that call SciPy's functions are reached only
through the entries keyed on SciPy's functions, which ``rules/optional.py`` adds
when a program has imported that SciPy module; it binds the names here in the
same step (``bind``), as module globals of the helpers' modules (so that the
helpers stay plain Python that adjoint code of a higher order can read) and as
``_sg.<name>`` for grad expressions. A name read as ``_sg.<name>`` before that
(``np.i0``'s grad reads ``_sg.i1``: a NumPy function whose slope is SciPy's) imports
its SciPy module then (``lookup``, the package's ``__getattr__``).
"""
import importlib
import sys

# SciPy module -> {name: (its attribute path there, the helper modules reading the name,
# whether grad expressions read it as ``_sg.<name>``)}
_NAMES = {
    "scipy.special": {
        **{name: (name, ("special",), True)
           for name in ("expit", "i0", "i0e", "i1", "i1e", "iv", "ive", "j0", "j1", "jv",
                        "y0", "y1", "yn", "yv", "k0", "k1", "k0e", "k1e", "kv", "kve",
                        "erf", "sindg", "cosdg", "hyp1f1", "hyp2f1", "inv_boxcox", "betaln",
                        "ellipe", "ellipk", "exprel")},
        "digamma": ("digamma", ("special", "stats"), True),
        "gammaln": ("gammaln", ("special", "stats"), True),
        "xlogy": ("xlogy", ("special", "stats"), True),
        "xlog1py": ("xlog1py", ("special", "stats"), False),
        # (scipy.special.zeta is Python over this ufunc, which the slopes call.)
        "zeta": ("_ufuncs._zeta", ("special",), True),
    },
    "scipy.integrate": {
        "scipy_trapezoid": ("trapezoid", ("integration",), True),
        "scipy_cumulative_trapezoid": ("cumulative_trapezoid", ("integration",), True),
    },
    "scipy.signal": {"convolve2d": ("convolve2d", ("convolutions",), False)},
    "scipy.linalg": {"solve_sylvester": ("solve_sylvester", ("decompositions",), True),
                     "_expm": ("expm", ("decompositions",), False),
                     "_logm": ("logm", ("decompositions",), False),
                     "_sqrtm": ("sqrtm", ("decompositions",), False)},
}
_PACKAGE = __name__.rpartition(".")[0]


def bind(scipy_module):
    """Bind the names taken from ``scipy_module`` (imported here if it is not yet)."""
    names = _NAMES.get(scipy_module, {})
    if not names:
        return
    module = importlib.import_module(scipy_module)
    package = sys.modules[_PACKAGE]
    for name, (path, homes, exported) in names.items():
        value = module
        for part in path.split("."):
            value = getattr(value, part)
        for home in homes:
            setattr(sys.modules[f"{_PACKAGE}.{home}"], name, value)
        if exported:
            setattr(package, name, value)


def lookup(name):
    """``_sg.<name>`` for a name of SciPy's not bound yet: bound now."""
    for scipy_module, names in _NAMES.items():
        if name in names and names[name][2]:
            try:
                bind(scipy_module)
            except ImportError as error:
                raise AttributeError(f"srcgrad's runtime reads `{name}` from {scipy_module}, "
                                     f"which is not installed ({error})") from None
            return getattr(sys.modules[_PACKAGE], name)
    raise AttributeError(f"module {_PACKAGE!r} has no attribute {name!r}")
