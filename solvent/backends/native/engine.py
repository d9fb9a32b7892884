"""LLVM through llvmlite: one module per compiled function, optimized with LLVM's new pass
manager (O3 with loop and SLP vectorization, tuned for the host CPU), run by MCJIT."""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import tempfile
import threading
import time
from contextlib import contextmanager

import llvmlite.binding as llvm

_LOCK = threading.Lock()
_READY = False


def target_machine(opt: int = 3):
    """A new target machine for the host CPU, generating code at LLVM's level ``opt``. Each
    MCJIT engine takes ownership of the machine it is created with (and frees it with the
    engine), so none is shared."""
    global _READY
    with _LOCK:
        if not _READY:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            _load_library("m", "libm.so.6")
            _READY = True
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
        opt=opt, jit=True)


def _load_library(name: str, soname: str) -> bool:
    """Load the C library ``name`` into the process for LLVM's symbol lookup: by its glibc
    ``soname`` first, else by the name ``ctypes.util.find_library`` finds (which on Linux is
    that soname, found by running ``ldconfig -p``: ~10 ms of a process's first call each).
    Returns whether it loaded."""
    for path in (soname, None):
        path = path or ctypes.util.find_library(name)
        if not path:
            return False
        try:
            llvm.load_library_permanently(path)
            return True
        except RuntimeError:
            continue
    return False


class VectorMath:
    """glibc's vector math library (libmvec), loaded into the process: ``functions`` are the
    C names it has vector variants of (exp, log, sin, tanh, pow...), ``isa`` maps a vector
    width in bits to the variant letter the host runs (b: SSE, c: AVX, d: AVX2, e: AVX-512)."""

    def __init__(self, functions: frozenset, isa: dict):
        self.functions, self.isa = functions, isa

    def variant(self, name: str, lanes: int, bits: int, nargs: int) -> str | None:
        """The libmvec symbol for ``lanes`` x ``bits``-bit ``name`` with ``nargs`` vector
        arguments (x86-64 vector function ABI names), or None."""
        letter = self.isa.get(lanes * bits)
        if letter is None or name not in self.functions:
            return None
        sym = f"_ZGV{letter}N{lanes}{'v' * nargs}_{name}{'f' if bits == 32 else ''}"
        return sym if llvm.address_of_symbol(sym) else None


# C math functions libmvec has vector variants of that are also LLVM intrinsics (the
# vectorizer emits llvm.<name>.v<N>f<bits> for them)
_VECTORIZABLE = ("exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "asin",
                 "acos", "atan", "sinh", "cosh", "tanh", "pow", "atan2")
ENV_VECTOR_MATH = "SOLVENT_VECTOR_MATH"
_VECTOR_MATH: list = []


def vector_math() -> VectorMath | None:
    """The vector math library, or None: not x86-64 Linux with glibc's libmvec, or turned off
    with ``SOLVENT_VECTOR_MATH=0``. Loaded once."""
    if not _VECTOR_MATH:
        _VECTOR_MATH.append(_load_vector_math())
    return _VECTOR_MATH[0]


def _load_vector_math():
    import os
    import platform
    if os.environ.get(ENV_VECTOR_MATH, "1") == "0" or platform.machine() not in (
            "x86_64", "AMD64") or not platform.system() == "Linux":
        return None
    if not _load_library("mvec", "libmvec.so.1"):
        return None
    target_machine()   # the native target, initialized
    features = llvm.get_host_cpu_features()
    isa = {128: "b"}
    if features.get("avx2"):
        isa[256] = "d"
    elif features.get("avx"):
        isa[256] = "c"
    if features.get("avx512f"):
        isa[512] = "e"
    two = ("pow", "atan2")
    return VectorMath(frozenset(n for n in _VECTORIZABLE if llvm.address_of_symbol(
        f"_ZGVbN2v{'v' * (n in two)}_{n}")), isa)


_VECTOR_INTRINSIC = re.compile(r"llvm\.(\w+)\.v(\d+)f(64|32)")


def use_vector_math(mod) -> list[str]:
    """Point the vector math intrinsics the loop vectorizer left in ``mod`` (each would be
    split into one scalar libm call per lane) at libmvec's vector functions instead, by
    renaming their declarations (the same type and calling convention: the x86-64 vector
    function ABI passes a vector in one register). Returns the symbols used."""
    vec = vector_math()
    if vec is None:
        return []
    used = []
    for fn in mod.functions:
        m = _VECTOR_INTRINSIC.fullmatch(fn.name)
        if not m:
            continue
        sym = vec.variant(m.group(1), int(m.group(2)), int(m.group(3)),
                          len(list(fn.arguments)))
        if sym is not None:
            fn.name = sym
            used.append(sym)
    return sorted(used)


_LOOP_ID = re.compile(r"!llvm\.loop !(\d+)")


def loop_ids(text: str) -> str:
    """Make each ``!llvm.loop`` node of ``text`` (llvmlite's IR) a loop ID as LLVM reads one:
    distinct, with itself as first operand (llvmlite's builder cannot spell that)."""
    for n in set(_LOOP_ID.findall(text)):
        text = re.sub(rf"^!{n} = !{{ ", f"!{n} = distinct !{{ !{n}, ", text, count=1,
                      flags=re.M)
    return text


# LLVM's full-unroll threshold at O3 ("unroll-threshold-aggressive", LLVM's default 300) is
# set to O2's (150) while solvent's modules are optimized: at 300, nests of small constant
# trip counts unroll into one another (conv1d at n=24, its taps raised into 18 window
# slices: 2789 lines of LLVM IR became 29998, 9.5 s to optimize and generate code; 1.6 s at
# 150), for no steady-state gain: ``benchmarks/corpus_ab.py unroll-threshold --twins
# --repeat 5 --stat min --clock cpu``, 117 native kernels at bench size: geomean time 150 vs
# 300 0.997x, first calls summed 33.6 vs 40.1 s. The option is LLVM's process-wide one
# (Numba's too, through the same llvmlite), so it is put back after each run.
UNROLL_THRESHOLD = 150
_LLVM_UNROLL_DEFAULT = 300


def optimize(mod, tm, speed_level: int = 3):
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = speed_level >= 2
    pto.slp_vectorization = speed_level >= 2
    pto.loop_unrolling = speed_level >= 2
    pb = llvm.create_pass_builder(tm, pto)
    mpm = pb.getModulePassManager()
    with _vectorizer_remarks_dropped():
        llvm.set_option("solvent", f"-unroll-threshold-aggressive={UNROLL_THRESHOLD}")
        try:
            mpm.run(mod, pb)
        finally:
            llvm.set_option("solvent",
                            f"-unroll-threshold-aggressive={_LLVM_UNROLL_DEFAULT}")


# What LLVM's loop vectorizer prints for a loop that carries a width hint
# (context.loop_end) but that it cannot vectorize: "remark: <unknown>:0:0: loop not
# vectorized: ...". Such a remark is always printed (LLVM treats a hinted loop as one the
# user asked about) through LLVM's default diagnostic handler, which llvmlite cannot
# replace; it is compiler chatter, not a message for the user of solvent.
_REMARK = re.compile(rb"^remark: [^\n]*loop not vectorized[^\n]*\n?", re.M)
_STDERR_LOCK = threading.Lock()


@contextmanager
def _vectorizer_remarks_dropped():
    """Run the body with file descriptor 2 sent to a temporary file; afterwards everything
    written there except the vectorizer's 'loop not vectorized' remarks goes on to the real
    stderr (anything another thread wrote meanwhile arrives late, never lost). One body at a
    time: two nested redirections from two threads would leave fd 2 on a closed file."""
    with _STDERR_LOCK, tempfile.TemporaryFile() as tmp:
        try:
            saved = os.dup(2)
        except OSError:        # no fd 2 (a daemon): nothing to filter
            yield
            return
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            rest = _REMARK.sub(b"", tmp.read())
            if rest:
                os.write(2, rest)


_LIBC_BOUND = False


def bind_libc():
    """Bind ``solvent_malloc``/``solvent_free`` (run-time allocations) and ``solvent_qsort``
    (rules_sort) to the C library's."""
    global _LIBC_BOUND
    if not _LIBC_BOUND:
        libc = ctypes.CDLL(None)
        for name in ("malloc", "free", "qsort"):
            llvm.add_symbol(f"solvent_{name}", ctypes.cast(getattr(libc, name),
                                                           ctypes.c_void_p).value)
        _LIBC_BOUND = True


def free(address: int) -> None:
    """Free a run-time allocation handed out as a function result."""
    _free(ctypes.c_void_p(address))


_free = ctypes.CDLL(None).free
_free.argtypes = [ctypes.c_void_p]
_free.restype = None


class Compiled:
    """A finalized machine-code function; keeps its engine alive."""

    def __init__(self, llvm_ir: str, name: str, opt_level: int = 3):
        tm = target_machine()
        t0 = time.perf_counter()
        mod = llvm.parse_assembly(llvm_ir)
        mod.triple = tm.triple
        mod.data_layout = str(tm.target_data)
        mod.verify()
        if opt_level:
            optimize(mod, tm, opt_level)
        self.vector_calls = use_vector_math(mod)
        self.optimized_ir = text = str(mod)
        zero = _zero_returning(text)
        self.returns_zero = name in zero or _returns_zero_past_chunks(text, zero, name, tm)
        t1 = time.perf_counter()
        self.engine = llvm.create_mcjit_compiler(mod, tm)
        self.engine.finalize_object()
        self.address = self.engine.get_function_address(name)
        self.seconds = {"optimize": t1 - t0, "codegen": time.perf_counter() - t1}
        proto = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p)
        self.cfunc = proto(self.address)


_DEFINE = re.compile(r'^define [^@\n]*@"?([\w.]+)"?\(.*?^}$', re.M | re.S)
_RET = re.compile(r"^\s+ret (.*)$", re.M)


def _zero_returning(text: str) -> set:
    """The functions defined in ``text`` (LLVM IR) whose every ``ret`` returns the constant
    0 (or nothing): no run-time check of the native code in them can fail (LLVM proved each
    one, or none was needed). Read from the text, which the caller prints anyway: walking the
    instructions through llvmlite costs a foreign call per instruction and operand."""
    return {m.group(1) for m in _DEFINE.finditer(text)
            if all(r.strip() in ("i64 0", "void") for r in _RET.findall(m.group(0)))}


_PAR_CALL = re.compile(r"call (i64 @\"?solvent_par_for\"?\((?:ptr|i64 \([^)]*\)\*) "
                       r"(?:nonnull )?@\"?([\w.]+)\"?)")


def _returns_zero_past_chunks(text: str, zero: set, name: str, tm) -> bool:
    """Whether ``name`` returns 0 on every path once each ``solvent_par_for`` call whose
    chunk function returns only 0 (``zero``) is known to succeed. threads.py's
    ``solvent_par_for`` returns -1 only after a chunk returned non-zero, else the count of
    chunks that ran (0 .. MAX_CHUNKS); its failure test in the entry is emitted before LLVM
    proved the chunk's index checks (loop bounds, ``llvm.assume``), so it survives
    optimization. A copy of the optimized module ``text`` with those calls' results given
    that range has its entry simplified again (sparse constant propagation, which reads the
    range, then CFG simplification, which drops the failure branches it decided; no loop or
    vector pass: they cost most and decide nothing here) and its returns are read: the
    module that runs is not changed. The range is ``noundef`` (the runtime's result is
    always a number) and instruction combining runs first: loop unswitching had wrapped
    the result in a ``freeze`` (a call in an outer loop: forward_subst's rows), which hid
    the range from constant propagation, and every call then kept a backup copy of the
    arguments it writes."""
    from .threads import MAX_CHUNKS

    def ranged(m):
        return f"call noundef range(i64 0, {MAX_CHUNKS + 1}) {m.group(1)}" if m.group(2) in zero \
            else m.group(0)
    new, count = _PAR_CALL.subn(ranged, text)
    if not count or new == text:
        return False
    copy = llvm.parse_assembly(new)
    fn = copy.get_function(name)
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=1))
    fpm = llvm.create_new_function_pass_manager()
    fpm.add_instruction_combine_pass()   # drops a ``freeze`` of the (noundef) result
    fpm.add_sccp_pass()
    fpm.add_simplify_cfg_pass()
    fpm.run(fn, pb)
    return name in _zero_returning(str(fn))


# --- calling with NumPy arrays: data pointers read in machine code ------------------------------
# ``ndarray.ctypes.data`` costs about a microsecond per array (it builds a ctypes helper
# object), and so does a ctypes pointer table built per call: more than the compiled code
# of a small call; a ctypes call itself costs about as much again. The caller below is a
# built-in function (METH_O) made from machine code: it takes a Python list of the arrays,
# reads its item vector (``PyListObject.ob_item``, the field after the variable-size object
# header) and from each array object its data pointer (the first field after the object
# header in NumPy's ``PyArrayObject``: ``PyArray_DATA``), then calls the compiled entry with
# the pointer table it expects. Both offsets are checked on probe objects once; where they
# do not hold (another Python build), ``python_caller`` returns None and callers use
# ``.ctypes.data`` and a ctypes call.
_SHIM_LOCK = threading.Lock()


def _layout_holds(offset: int, items: int) -> bool:
    import numpy as np
    probe = np.arange(3.0)
    if ctypes.c_void_p.from_address(id(probe) + offset).value != probe.ctypes.data:
        return False
    objs = [probe, None]
    vec = ctypes.c_void_p.from_address(id(objs) + items).value
    return vec is not None and ctypes.c_void_p.from_address(vec).value == id(probe) and \
        ctypes.c_void_p.from_address(vec + ctypes.sizeof(ctypes.c_void_p)).value == id(None)


_PY_CALL_IR = """
declare i8* @solvent_py_save_thread()
declare void @solvent_py_restore_thread(i8*)
declare i8* @solvent_py_bool(i64)
define i8* @solvent_py_call(i8* %self, i8* %list) {
entry:
  %sfield = getelementptr i8, i8* %self, i64 OFFSET
  %sdpp = bitcast i8* %sfield to i64**
  %sd = load i64*, i64** %sdpp
  %fnint = load i64, i64* %sd
  %fn = inttoptr i64 %fnint to i64 (i8**, i8*)*
  %np = getelementptr i64, i64* %sd, i64 1
  %n = load i64, i64* %np
  %ptrs = alloca i8*, i64 %n
  %itemsp = getelementptr i8, i8* %list, i64 ITEMS
  %itemspp = bitcast i8* %itemsp to i8***
  %objs = load i8**, i8*** %itemspp
  br label %head
head:
  %i = phi i64 [0, %entry], [%next, %body]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %objp = getelementptr i8*, i8** %objs, i64 %i
  %obj = load i8*, i8** %objp
  %data = call i8* @solvent_array_data(i8* %obj)
  %slot = getelementptr i8*, i8** %ptrs, i64 %i
  store i8* %data, i8** %slot
  %next = add i64 %i, 1
  br label %head
done:
  %errp = getelementptr i8*, i8** %objs, i64 %n
  %errobj = load i8*, i8** %errp
  %err = call i8* @solvent_array_data(i8* %errobj)
  %ts = call i8* @solvent_py_save_thread()
  %r = call i64 %fn(i8** %ptrs, i8* %err)
  call void @solvent_py_restore_thread(i8* %ts)
  %res = call i8* @solvent_py_bool(i64 %r)
  ret i8* %res
}
define internal i8* @solvent_array_data(i8* %obj) alwaysinline {
  %field = getelementptr i8, i8* %obj, i64 OFFSET
  %p = bitcast i8* %field to i8**
  %data = load i8*, i8** %p
  ret i8* %data
}
"""
_PY_CALL = None


class _MethodDef(ctypes.Structure):
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


_METH_O = 0x0008


def python_caller(address: int, n: int):
    """A Python built-in function ``call(arrays)`` for the compiled entry at ``address``:
    ``arrays`` is a list of ``n`` arrays (their data pointers make the entry's pointer table)
    followed by the int64 error array; it returns True when the entry returned nonzero (a
    run-time check failed). The GIL is released while the entry runs, as a ctypes call
    does. Calling it costs what calling ``len`` costs: a ctypes call converts and checks every
    argument and builds its frame, about a microsecond. None where the object layout
    (``_layout_holds``) is not the one expected."""
    global _PY_CALL
    with _SHIM_LOCK:
        if _PY_CALL is None:
            offset, items = object.__basicsize__, tuple.__basicsize__
            if not _layout_holds(offset, items):
                _PY_CALL = False
            else:
                api = ctypes.pythonapi
                for name, sym in (("solvent_py_save_thread", "PyEval_SaveThread"),
                                  ("solvent_py_restore_thread", "PyEval_RestoreThread"),
                                  ("solvent_py_bool", "PyBool_FromLong")):
                    llvm.add_symbol(name, ctypes.cast(getattr(api, sym), ctypes.c_void_p).value)
                comp = Compiled(_PY_CALL_IR.replace("OFFSET", str(offset))
                                .replace("ITEMS", str(items)), "solvent_py_call")
                method = _MethodDef(b"solvent_native_call", comp.address, _METH_O, None)
                new = api.PyCFunction_NewEx
                new.restype = ctypes.py_object
                new.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]
                # the method record must outlive every function made from it: kept here
                _PY_CALL = (comp, method, lambda state: new(ctypes.addressof(method), state,
                                                            None))
    if not _PY_CALL:
        return None
    import numpy as np
    # the function's ``self``: the entry's address and the number of arrays, read by the
    # machine code from this array's data; the function object holds a reference to it
    return _PY_CALL[2](np.array([address, n], dtype=np.int64))

