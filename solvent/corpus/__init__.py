"""Kernel corpus: unmodified NumPy-style functions used for differential tests and benchmarks.

Each module ``solvent.corpus.<name>`` defines:

* ``kernel(...)``            -- the plain NumPy function (may mutate array arguments and/or return values)
* ``make_args(n, rng)``      -- fresh, deterministic arguments for problem size ``n``
* ``SIZES``                  -- two small sizes for differential tests
* ``BENCH_SIZE``             -- size used by ``benchmarks/bench.py``
* ``JAX_PORT``               -- name of a hand port in ``benchmarks/jax_ports.py`` or ``None``
* ``NUMBA_OK``               -- whether ``numba.njit(kernel)`` compiles and matches NumPy

The module list below is explicit (no filesystem scanning); keep it sorted.
"""
import importlib
import re
from dataclasses import dataclass
from types import ModuleType

MODULE_NAMES = [
    "adler_checksum",
    "arc_distance",
    "array_ops",
    "atax",
    "attention",
    "axis_stats",
    "back_subst_slices",
    "back_subst_strided",
    "bicg",
    "blur_f32",
    "cholesky",
    "cholesky_slices",
    "conv1d",
    "csr_spmv",
    "csr_spmv_slices",
    "dft",
    "edit_distance",
    "fdtd_2d",
    "fft_lowpass",
    "find_first",
    "floyd_warshall",
    "forward_subst",
    "forward_subst_slices",
    "gauss_seidel_1d",
    "gcd_pairs",
    "gemm",
    "gemver",
    "go_fast",
    "heat_2d_slices",
    "heat_3d",
    "hist_equalize",
    "histogram",
    "int_hash",
    "jacobi_1d",
    "jacobi_2d",
    "kmeans",
    "knapsack_items",
    "laplace_converge",
    "layernorm",
    "lcs_table",
    "levinson",
    "logreg_gd",
    "lstsq_normal",
    "lu_nopivot",
    "lu_slices",
    "mandelbrot_scalar",
    "mandelbrot_vec",
    "mask_select_reduce",
    "mgrid_gaussian",
    "mlp_forward",
    "mvt",
    "nbody",
    "nearest_correlation",
    "newton_sqrt",
    "polar_helper",
    "prefix_sum",
    "row_col_norms",
    "row_iteration",
    "running_max_dp",
    "seidel_2d",
    "soft_threshold",
    "softmax",
    "spmv_ell",
    "syrk",
    "three_mm",
    "trmm",
    "two_mm",
    "ufunc_mix",
]

CATEGORIES = ("stencil", "linalg", "reduction", "ml", "nbody", "scalar-loop", "sequential", "sparse",
              "misc")

_CATEGORY_RE = re.compile(r"Category:\s*([a-z-]+)")


@dataclass(frozen=True)
class Kernel:
    name: str
    module: ModuleType

    @property
    def func(self):
        return self.module.kernel

    @property
    def make_args(self):
        return self.module.make_args

    @property
    def sizes(self):
        return tuple(self.module.SIZES)

    @property
    def bench_size(self):
        return self.module.BENCH_SIZE

    @property
    def jax_port(self):
        return self.module.JAX_PORT

    @property
    def numba_ok(self):
        return bool(getattr(self.module, "NUMBA_OK", False))

    @property
    def description(self):
        return (self.module.__doc__ or "").strip().splitlines()[0]

    @property
    def category(self):
        m = _CATEGORY_RE.search(self.module.__doc__ or "")
        return m.group(1) if m else "misc"


KERNELS = [Kernel(name, importlib.import_module(f"{__name__}.{name}")) for name in MODULE_NAMES]

_BY_NAME = {k.name: k for k in KERNELS}


def get(name):
    """Return the Kernel called ``name`` (KeyError if unknown)."""
    return _BY_NAME[name]


def names():
    return [k.name for k in KERNELS]
