"""Kernel corpus: unmodified NumPy-style functions used for differential tests and benchmarks.

Each module ``solvent.corpus.<name>`` defines:

* ``kernel(...)``            -- the plain NumPy function (may mutate array arguments and/or return values)
* ``make_args(n, rng)``      -- fresh, deterministic arguments for problem size ``n``
* ``SIZES``                  -- two small sizes for differential tests
* ``BENCH_SIZE``             -- size used by ``benchmarks/bench.py``
* ``JAX_PORT``               -- name of a hand port in ``benchmarks/jax_ports.py`` or ``None``
* ``NUMBA_OK``               -- whether ``numba.njit(kernel)`` compiles and matches NumPy

A *loop twin* ``<name>_loops`` is the kernel ``<name>`` written as plain scalar loops, the way
it is ported from C or Fortran. It also defines

* ``TWIN_OF``                -- the name of its vectorized twin
* ``TWIN_ARGS``              -- (optional) its arguments as positions among the vectorized
                                twin's (default: the same order); ``make_args`` builds them
                                from the vectorized twin's ``make_args``, see ``twin_args.py``

and computes what its vectorized twin computes (up to rounding) on the same arguments. Its
SIZES are small (NumPy runs its Python loops as the oracle) and its BENCH_SIZE is meant for
compiled loops only: ``benchmarks/loop_twins.py`` times NumPy on the vectorized twin instead.

The module list below is explicit (no filesystem scanning); keep it sorted.
"""
import importlib
import re
from dataclasses import dataclass
from types import ModuleType

from .twin_args import vectorized_args

MODULE_NAMES = [
    "adler_checksum",
    "arc_distance",
    "arc_distance_loops",
    "array_ops",
    "atax",
    "atax_loops",
    "attention",
    "attention_f32",
    "attention_loops",
    "axis_stats",
    "axis_stats_loops",
    "axpby",
    "back_subst_slices",
    "back_subst_strided",
    "batched_matmul",
    "bicg",
    "bicg_loops",
    "blur_f32",
    "blur_f32_loops",
    "cholesky",
    "cholesky_loops",
    "cholesky_slices",
    "conv1d",
    "conv1d_loops",
    "csr_spmv",
    "csr_spmv_slices",
    "dft",
    "dft_loops",
    "edit_distance",
    "fdtd_2d",
    "fdtd_2d_loops",
    "fft_lowpass",
    "find_first",
    "floyd_warshall",
    "floyd_warshall_loops",
    "forward_subst",
    "forward_subst_slices",
    "gauss_seidel_1d",
    "gcd_pairs",
    "gemm",
    "gemm_loops",
    "gemver",
    "gemver_loops",
    "go_fast",
    "go_fast_loops",
    "gram_f32",
    "heat_2d_slices",
    "heat_2d_slices_loops",
    "heat_3d",
    "heat_3d_loops",
    "hist_equalize",
    "histogram",
    "histogram_loops",
    "int_hash",
    "jacobi_1d",
    "jacobi_1d_loops",
    "jacobi_2d",
    "jacobi_2d_loops",
    "kmeans",
    "kmeans_loops",
    "knapsack_items",
    "laplace_converge",
    "laplace_converge_loops",
    "layernorm",
    "layernorm_loops",
    "lcs_table",
    "levinson",
    "logreg_gd",
    "logreg_gd_loops",
    "lstsq_normal",
    "lu_nopivot",
    "lu_slices",
    "mandelbrot_scalar",
    "mandelbrot_vec",
    "mandelbrot_vec_loops",
    "mask_select_reduce",
    "matvec_chain",
    "mgrid_gaussian",
    "mgrid_gaussian_loops",
    "mlp_forward",
    "mlp_forward_loops",
    "mvt",
    "mvt_loops",
    "nbody",
    "nbody_loops",
    "nearest_correlation",
    "newton_sqrt",
    "normal_eq_f32",
    "polar_helper",
    "polar_helper_loops",
    "poly_clip_f32",
    "prefix_sum",
    "prefix_sum_loops",
    "row_col_norms",
    "row_col_norms_loops",
    "row_iteration",
    "row_iteration_loops",
    "running_max_dp",
    "saxpy_inplace_f32",
    "seidel_2d",
    "seidel_2d_loops",
    "soft_threshold",
    "softmax",
    "softmax_loops",
    "spectral_smooth",
    "spmv_ell",
    "spmv_ell_loops",
    "stream_triad",
    "sym_product",
    "syrk",
    "syrk_loops",
    "three_mm",
    "three_mm_loops",
    "trmm",
    "trmm_loops",
    "two_mm",
    "two_mm_loops",
    "ufunc_mix",
    "ufunc_mix_loops",
]

CATEGORIES = ("stencil", "linalg", "reduction", "ml", "nbody", "scalar-loop", "sequential", "sparse",
              "elementwise", "misc")

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
    def twin_of(self):
        """Name of the vectorized kernel this loop twin ports, or None."""
        return getattr(self.module, "TWIN_OF", None)

    @property
    def twin_args(self):
        """Positions, among the vectorized twin's arguments, of this loop twin's arguments."""
        order = getattr(self.module, "TWIN_ARGS", None)
        if order is not None or self.twin_of is None:
            return order
        return tuple(range(self.module.kernel.__code__.co_argcount))

    def vectorized_args(self, args):
        """The vectorized twin's arguments (the same objects) from this loop twin's ``args``."""
        return vectorized_args(args, self.twin_args)

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


def loop_twins():
    """The loop twins, in name order."""
    return [k for k in KERNELS if k.twin_of is not None]


def vectorized():
    """The kernels that are not loop twins (the whole-array ones and the loop kernels that
    have no twin)."""
    return [k for k in KERNELS if k.twin_of is None]
