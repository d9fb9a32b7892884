"""solvent: compile unmodified NumPy-style Python through solvent's IR to XLA."""
from . import ops  # noqa: F401  (registers every op)
from .errors import UnsupportedError
from .runtime.jit import JitFunction, jit
from .runtime.sharding import ShardingError
from .autodiff.api import grad, value_and_grad, vjp
from .autodiff.transform import DifferentiationError

__all__ = ["jit", "explain", "UnsupportedError", "JitFunction", "ShardingError", "grad",
           "value_and_grad", "vjp", "DifferentiationError"]
__version__ = "0.1.0"


def explain(fn, *args, **kwargs) -> str:
    """Print (and return) the IR after every stage and the chosen backend for this call."""
    jf = fn if isinstance(fn, JitFunction) else JitFunction(fn)
    text = jf.explain(*args, **kwargs)
    print(text)
    return text
