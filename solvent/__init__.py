"""solvent: compile unmodified NumPy-style Python through solvent's IR to XLA."""
from . import ops  # noqa: F401  (registers every op)
from .errors import UnsupportedError
from .runtime.jit import JitFunction, jit
from .runtime.sharding import ShardingError
from .autodiff.api import grad, value_and_grad, vjp
from .autodiff.transform import DifferentiationError
from .simt import kernel

__all__ = ["jit", "explain", "UnsupportedError", "JitFunction", "ShardingError", "grad",
           "value_and_grad", "vjp", "DifferentiationError", "kernel"]
__version__ = "0.1.0"


def explain(fn, *args, **kwargs) -> str:
    """Print (and return) the IR after every stage and the chosen backend for this call.
    For a kernel launch (``solvent.explain(k[grid, block], *args)``): also the barriers kept
    and removed and the kernel lowered to loops over blocks and threads."""
    from .simt import Launch
    if isinstance(fn, Launch):
        text = fn.explain(*args)
        print(text)
        return text
    jf = fn if isinstance(fn, JitFunction) else JitFunction(fn)
    text = jf.explain(*args, **kwargs)
    print(text)
    return text
