"""Which BLAS/LAPACK the native backend calls: the library NumPy itself calls, found from
NumPy's own files; SciPy's ``cython_blas``/``cython_lapack`` where it cannot be found.

Why: NumPy's wheels bundle scipy-openblas (``numpy.libs/libscipy_openblas64_-*.so``:
OpenBLAS built with 64-bit integers, every symbol renamed, ``scipy_dgemm_64_``), SciPy's
wheels another copy (``scipy.libs``, 32-bit integers), often another release. Bound to
SciPy's, a product in a jitted function cost what that release's kernels cost, not what
NumPy's matmul costs on the same operands (OpenBLAS 0.3.30 vs 0.3.31: float32 syrk of
2000x500, ``gram_f32``/``normal_eq_f32``, 0.7-0.8x NumPy; issue 9). Bound to NumPy's, the
call is the one NumPy makes.

Finding NumPy's library, in order:

1. through NumPy's extension ``numpy._core._multiarray_umath``: opened with ctypes, each
   symbol is looked up through that handle, and ``dlsym`` searches the extension and the
   libraries it is linked against, so this is the BLAS NumPy's matmul calls wherever it
   lies (POSIX; the extension is already loaded, nothing new is loaded);
2. the shared libraries named ``*openblas*`` in NumPy's wheel folders (``numpy.libs`` on
   Linux and Windows, ``numpy/.dylibs`` on macOS).

A candidate is taken only with scipy-openblas's naming and every routine the rules bind:
``scipy_<r>_64_`` with 64-bit integers (``scipy_openblas_get_config64_`` says
``USE64BITINT``), or ``scipy_<r>_`` with 32-bit ones (its config does not say it). A NumPy
built against another BLAS (Accelerate, MKL, a distribution's OpenBLAS) falls back to SciPy
(32-bit integers); without SciPy either, the rules take loop nests or refuse.
``SOLVENT_BLAS=scipy`` forces the fallback (A/B measurements); it is read once per process,
as the routines are bound once per process (``llvm.add_symbol``).

Fortran calling convention (every argument by pointer; character arguments are one byte and
their hidden lengths are not passed, as SciPy's and NumPy's own wrappers call them). The
integer width of every ``i`` argument and of integer arrays (pivots, ``syevd``'s iwork) is
``int_type()``.
"""
from __future__ import annotations

import ctypes
import glob
import os
from dataclasses import dataclass, field

import llvmlite.binding as llvm
from llvmlite import ir

ENV = "SOLVENT_BLAS"

# every routine the rules bind (rules_linalg: products of every float dtype; rules_lapack:
# the solvers and triangular solves of float32/float64)
ROUTINES = tuple(p + r for p in "sdcz" for r in ("gemm", "gemv", "syrk")) + tuple(
    p + r for p in "sd" for r in ("trsv", "trsm", "potrf", "gesv", "getrf", "getrs", "syevd",
                                  "gesdd", "geqrf", "orgqr"))

# scipy-openblas's namings: (Fortran symbol pattern, config function, int bits)
NAMINGS = (("scipy_{}_64_", "scipy_openblas_get_config64_", 64),
           ("scipy_{}_", "scipy_openblas_get_config", 32))


@dataclass
class Library:
    """A BLAS/LAPACK the rules may bind: ``addresses`` maps each of ``ROUTINES`` to its entry
    point; ``int_bits`` is the width of its integer arguments."""
    source: str          # "numpy" or "scipy"
    path: str            # the shared library (or SciPy's Cython module)
    int_bits: int
    config: str = ""     # OpenBLAS's own description (version, target), where it says one
    addresses: dict = field(default_factory=dict, repr=False)

    def describe(self) -> str:
        what = f"NumPy's BLAS ({os.path.basename(self.path)}" if self.source == "numpy" \
            else f"SciPy's BLAS ({self.path}"
        return f"{what}, {self.int_bits}-bit integers{', ' + self.config if self.config else ''})"


def read_config(address: int) -> str:
    """What ``scipy_openblas_get_config*`` at ``address`` returns (``OpenBLAS 0.3.31.188.0
    USE64BITINT DYNAMIC_ARCH ...``)."""
    got = ctypes.CFUNCTYPE(ctypes.c_char_p)(address)()
    return (got or b"").decode("ascii", "replace")


def probe(lookup, path: str, config=read_config) -> Library | None:
    """The library whose symbols ``lookup(name) -> address or None`` resolves, in one of
    scipy-openblas's namings with every routine of ``ROUTINES`` and a config (``config(address
    of its config function)``) that agrees with the naming's integer width; None otherwise."""
    for pattern, config_fn, bits in NAMINGS:
        addrs = {r: lookup(pattern.format(r)) for r in ROUTINES}
        if not all(addrs.values()):
            continue
        cfg = lookup(config_fn)
        config_text = config(cfg) if cfg else ""
        if ("USE64BITINT" in config_text.split()) != (bits == 64):
            continue
        return Library("numpy", path, bits, " ".join(config_text.split()[:2]), addrs)
    return None


def _dlsym(lib):
    def lookup(name):
        try:
            return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
        except AttributeError:
            return None
    return lookup


def numpy_candidates() -> list[str]:
    """Paths to try, in order: NumPy's extension (its linked BLAS found through it), then
    the ``*openblas*`` libraries in NumPy's wheel folders."""
    import numpy
    from numpy._core import _multiarray_umath
    root = os.path.dirname(os.path.abspath(numpy.__file__))
    found = [_multiarray_umath.__file__] if os.name == "posix" else []
    for folder in (root + ".libs", os.path.join(root, ".dylibs")):
        found += sorted(glob.glob(os.path.join(folder, "*openblas*")))
    return found


def find_numpy_blas() -> Library | None:
    for path in numpy_candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        got = probe(_dlsym(lib), path)
        if got is not None:
            got.path = os.path.realpath(path if "openblas" in os.path.basename(path)
                                        else _linked_path(got) or path)
            return got
    return None


def _linked_path(got: Library) -> str | None:
    """The file that holds the routines found through NumPy's extension (for ``describe``)."""
    class _Info(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]
    try:
        dladdr = ctypes.CDLL(None).dladdr
    except (OSError, AttributeError):
        return None
    info = _Info()
    if dladdr(ctypes.c_void_p(got.addresses["dgemm"]), ctypes.byref(info)) and info.dli_fname:
        return os.fsdecode(info.dli_fname)
    return None


def find_scipy_blas() -> Library | None:
    """SciPy's Cython BLAS/LAPACK (32-bit integers), the entry points its capsules export."""
    try:
        from scipy.linalg import cython_blas, cython_lapack
    except ImportError:  # pragma: no cover - scipy is a dependency
        return None
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    addrs = {}
    for r in ROUTINES:
        for mod in (cython_blas, cython_lapack):
            cap = mod.__pyx_capi__.get(r)
            if cap is not None:
                addrs[r] = api.PyCapsule_GetPointer(cap, api.PyCapsule_GetName(cap))
                break
        else:  # pragma: no cover - every SciPy since 0.16 has them
            return None
    return Library("scipy", "scipy.linalg.cython_blas", 32, "", addrs)


_LIB: list = []


def library() -> Library | None:
    """The library the rules bind (found once per process)."""
    if not _LIB:
        want = os.environ.get(ENV, "").strip().lower()
        if want not in ("", "numpy", "scipy"):
            raise ValueError(f"{ENV}={want!r}: expected 'numpy' or 'scipy'")
        lib = None
        if want != "scipy":
            try:
                lib = find_numpy_blas()
            except (ImportError, OSError):  # pragma: no cover - an odd NumPy install
                lib = None
        _LIB.append(lib or find_scipy_blas())
    return _LIB[0]


def int_type() -> ir.IntType:
    """The LLVM type of the bound library's integer arguments (i64 for scipy-openblas64)."""
    lib = library()
    return ir.IntType(lib.int_bits if lib is not None else 32)


def note(ctx) -> None:
    """Say once per compiled module which library its BLAS/LAPACK calls go to (``explain``)."""
    lib = library()
    line = lib is not None and f"BLAS/LAPACK calls go to {lib.describe()}"
    if line and line not in ctx.notes:
        ctx.notes.append(line)


def bind(symbol: str, routine: str) -> bool:
    """Make the LLVM symbol ``symbol`` the address of ``routine`` (one of ``ROUTINES``) in the
    bound library; False without one."""
    lib = library()
    if lib is None:
        return False
    llvm.add_symbol(symbol, lib.addresses[routine])
    return True
