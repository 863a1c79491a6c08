"""What generated code calls as ``_sg``: this package is the ``_sg`` namespace.

``core`` holds adjoint buffers and items, ``adjoints`` the helpers rule
expressions call (``rules/``), ``rows`` their forms for a leading axis of seed
rows (``tape.jacobian``). Nothing here imports the compiler.
"""
from ..variables import Variable, stop_gradient  # noqa: F401  (stop_gradient: tape blocks)
from .adjoints import *  # noqa: F401,F403
from .core import *  # noqa: F401,F403
from .rows import *  # noqa: F401,F403
from .strong import *  # noqa: F401,F403
from .stores import *  # noqa: F401,F403
from .attributes import *  # noqa: F401,F403
# The helpers of the rule families (rules/<family>.py)
from .complexes import *  # noqa: F401,F403
from .convolutions import *  # noqa: F401,F403
from .decompositions import *  # noqa: F401,F403
from .fft import *  # noqa: F401,F403
from .layout import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403
from .sequences import *  # noqa: F401,F403
from .special import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403
from .polynomials import *  # noqa: F401,F403
from .order_stats import *  # noqa: F401,F403
from .moments import *  # noqa: F401,F403
from .integration import *  # noqa: F401,F403
from .pymath import *  # noqa: F401,F403
from .ufuncs import *  # noqa: F401,F403
from .linalg_plans import *  # noqa: F401,F403
from .transform_plans import *  # noqa: F401,F403
from .nan_plans import *  # noqa: F401,F403
from .apart import *  # noqa: F401,F403
from .iteration import *  # noqa: F401,F403
# Forward mode's explicit tangents (rules/tangents.py)
from .tangents import *  # noqa: F401,F403
from . import from_scipy as _from_scipy


def __getattr__(name):
    """SciPy's functions read as ``_sg.<name>``, bound when first read (from_scipy.py)."""
    return _from_scipy.lookup(name)
