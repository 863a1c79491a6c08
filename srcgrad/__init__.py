"""srcgrad: a source-to-source gradient compiler for plain Python + NumPy."""
from .api import adjoint_source, function, grad, value_and_grad
from .errors import CompileError, SourceUnavailableError

__all__ = [
    "CompileError",
    "SourceUnavailableError",
    "adjoint_source",
    "function",
    "grad",
    "value_and_grad",
]
__version__ = "0.1.0"
