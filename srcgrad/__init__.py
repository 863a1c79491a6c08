"""srcgrad: a source-to-source gradient compiler for plain Python + NumPy."""
from .api import adjoint_source, function, grad, value_and_grad
from .errors import CompileError, SourceUnavailableError
from .explain import explain
from .forward import ForwardAccumulator, hessian, hvp, jvp
from .functions import custom_gradient, py_function
from .tape.tape import GradientTape
from .variables import UnconnectedGradients, Variable, constant, stop_gradient

__all__ = [
    "CompileError",
    "ForwardAccumulator",
    "GradientTape",
    "SourceUnavailableError",
    "UnconnectedGradients",
    "Variable",
    "constant",
    "explain",
    "custom_gradient",
    "py_function",
    "stop_gradient",
    "adjoint_source",
    "function",
    "grad",
    "hessian",
    "hvp",
    "jvp",
    "value_and_grad",
]
__version__ = "0.1.0"
