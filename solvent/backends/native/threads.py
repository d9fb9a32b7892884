"""The thread pool that runs parallel loops: a small runtime written in LLVM IR over libc's
pthreads, compiled once per process and linked into every native module by symbol.

``solvent_par_for(chunk, env, trip, cost, err, align) -> i64`` runs the iterations ``[0, trip)`` of
one parallel loop, whose body was outlined into ``chunk(env, lo, hi, c, tid, err) -> i64``
(rules_parallel.py). It returns how many chunks ran (their partial results are combined by
the caller in chunk order), or -1 after a failed run-time check, with that check's record in
``err``.

Policy, all decided here at run time:

- **Sequential** (one chunk, on the calling thread) when ``trip * cost`` is below the
  threshold (``SOLVENT_PARALLEL_THRESHOLD``, in the cost units of analysis.work.body_cost,
  about one scalar op each), when the pool has one thread, when another call is using the
  pool (two Python threads, or a forked child of a process whose pool had started).
- **Parallel** otherwise: ``min(trip, 4 * threads, 256)`` contiguous chunks of the range
  (every boundary but the range's end rounded down to a multiple of ``align``: a loop LLVM
  vectorizes then splits into vector body and scalar rest at the same iterations in every
  chunk as in one sequential run, so elementwise results have the same bits; a chunk may
  be empty),
  each claimed once (an atomic flag per chunk). Thread ``t`` of ``T`` first runs its own
  share, chunks ``[t*n/T, (t+1)*n/T)``, the same rows in every loop of a time step, so
  that they stay in its core's cache (jacobi_1d at 1M points: 44 -> 19 ms on 2 cores; with
  chunks handed out in order from one counter, the rows moved between cores every step),
  then any chunk still unclaimed, from the last down: a thread that is slow to wake, or
  whose share is heavier (Mandelbrot rows), leaves its chunks to the others. Workers are
  ``threads - 1`` pthreads (``SOLVENT_NUM_THREADS``, default: the cores this process may
  use) created on first use and kept. Between loops a worker checks for the next one
  ``SPIN_ROUNDS`` times (a spin-wait hint apart) and then sleeps on a condition variable;
  the mutex is tried the same way before sleeping on it. A time step's sweeps come a few
  microseconds apart, and a thread put to sleep wakes tens of microseconds later (on the
  2-core test machine a 30k-point stencil sweep took 27 us on 2 threads against 7 us on
  one; 12 us with the workers' spin alone, 6 us with all of it and vectorized chunks,
  rules_parallel._clamp_chunk).
- **Join**: the job closes when the calling thread finds no chunk left; it then waits only
  for the workers that joined before that (a worker that wakes later sees the job closed),
  so a worker the OS has not scheduled yet, on a busy machine, does not hold up the loop.
- **Errors**: a chunk that fails records itself and lowers the job's lowest failing
  chunk; no chunk above that one starts afterwards, and every chunk below it is still run
  (each is claimed and run by some thread, whatever the order). So every chunk below the
  lowest failing one ran to its end without failing, and the lowest failing chunk's record
  is the error that sequential execution would have raised first. That is the one
  returned: deterministic.
"""
from __future__ import annotations

import ctypes
import os
import threading

import llvmlite.binding as llvm

from .engine import target_machine

MAX_THREADS = 64
MAX_CHUNKS = 256
CHUNKS_PER_THREAD = 4
MIN_MAX_THREADS = 4
ENV_THREADS = "SOLVENT_NUM_THREADS"
ENV_THRESHOLD = "SOLVENT_PARALLEL_THRESHOLD"
DEFAULT_THRESHOLD = 100_000   # cost units (~scalar ops); see benchmarks/parallel_overhead.py
# a worker that finished its chunks checks for the next loop this many times (one spin-wait
# hint apart: ~40 us of CPU on the 2-core test machine, 4096 cost ~150 us for no faster
# sweeps) before it sleeps on the condition variable: a time step's parallel sweeps come a
# few microseconds apart, and waking a sleeping thread costs tens of microseconds
SPIN_ROUNDS = 1024

# pthread_mutex_t / pthread_cond_t are opaque: 128 bytes each is more than glibc (40/48)
# and macOS (64/48) need; they are initialized by pthread_*_init, never by layout.
_RUNTIME = r"""
@mutex = internal global [16 x i64] zeroinitializer, align 16
@cv_work = internal global [16 x i64] zeroinitializer, align 16
@cv_done = internal global [16 x i64] zeroinitializer, align 16
@ready = internal global i64 0
@gen = internal global i64 0
@gen0 = internal global i64 0
@active = internal global i64 0
@job_open = internal global i64 0
@nworkers = internal global i64 0
@busy = internal global i64 0
@pid = internal global i32 0
@job_fn = internal global i64 (i8*, i64, i64, i64, i64, i64*)* null
@job_env = internal global i8* null
@job_trip = internal global i64 0
@job_align = internal global i64 1
@job_n = internal global i64 0
@job_failmin = internal global i64 0
@job_threads = internal global i64 1
@claimed = internal global [MAXCHUNKS x i64] zeroinitializer, align 64
@job_rec = internal global i64* null
@solvent_par_threads = global i64 1
@solvent_par_threshold = global i64 MAXCOST

declare i32 @pthread_create(i64*, i8*, i8* (i8*)*, i8*)
declare i32 @pthread_mutex_init(i8*, i8*)
declare i32 @pthread_mutex_lock(i8*)
declare i32 @pthread_mutex_trylock(i8*)
declare i32 @pthread_mutex_unlock(i8*)
declare i32 @pthread_cond_init(i8*, i8*)
declare i32 @pthread_cond_wait(i8*, i8*)
declare i32 @pthread_cond_broadcast(i8*)
declare i32 @pthread_cond_signal(i8*)
declare i32 @getpid()
PAUSEDECL

; the pool's mutex, taken by trying for a while before sleeping on it: it is held only
; for a few stores, and a thread put to sleep on it wakes tens of microseconds later
define internal void @lock(i8* %mx) {
entry:
  br label %try
try:
  %k = phi i64 [0, %entry], [%k1, %again]
  %r = call i32 @pthread_mutex_trylock(i8* %mx)
  %got = icmp eq i32 %r, 0
  br i1 %got, label %done, label %again
again:
  PAUSE
  %k1 = add i64 %k, 1
  %more = icmp slt i64 %k1, SPIN
  br i1 %more, label %try, label %block
block:
  %l = call i32 @pthread_mutex_lock(i8* %mx)
  br label %done
done:
  ret void
}

; wait, spinning, while (*%p == %v) is %eq, for at most SPIN rounds (a new job's generation,
; the workers still active: the caller then reads it again under the mutex)
define internal void @spin_while(i64* %p, i64 %v, i1 %eq) {
entry:
  br label %look
look:
  %k = phi i64 [0, %entry], [%k1, %again]
  %x = load atomic i64, i64* %p monotonic, align 8
  %same = icmp eq i64 %x, %v
  %hold = icmp eq i1 %same, %eq
  br i1 %hold, label %again, label %done
again:
  PAUSE
  %k1 = add i64 %k, 1
  %more = icmp slt i64 %k1, SPIN
  br i1 %more, label %look, label %done
done:
  ret void
}

define internal i8* @m() {
  %p = bitcast [16 x i64]* @mutex to i8*
  ret i8* %p
}

; run chunk %c unless another thread has claimed it or a lower chunk failed; a failure
; records the chunk in rec[tid] (the chunk function wrote its error after it) and lowers
; job_failmin, so that no chunk above it starts any more
define internal void @try_chunk(i64 %c, i64 %tid) {
entry:
  %fm = load atomic i64, i64* @job_failmin monotonic, align 8
  %skip = icmp sgt i64 %c, %fm
  br i1 %skip, label %done, label %claim
claim:
  %fp = getelementptr [MAXCHUNKS x i64], [MAXCHUNKS x i64]* @claimed, i64 0, i64 %c
  %old = atomicrmw xchg i64* %fp, i64 1 acq_rel
  %taken = icmp ne i64 %old, 0
  br i1 %taken, label %done, label %work
work:
  %fn = load i64 (i8*, i64, i64, i64, i64, i64*)*, i64 (i8*, i64, i64, i64, i64, i64*)** @job_fn
  %env = load i8*, i8** @job_env
  %trip = load i64, i64* @job_trip
  %n = load i64, i64* @job_n
  %al = load i64, i64* @job_align
  %recs = load i64*, i64** @job_rec
  %off = mul i64 %tid, 6
  %rec = getelementptr i64, i64* %recs, i64 %off
  %errp = getelementptr i64, i64* %rec, i64 1
  %a = mul i64 %c, %trip
  %lo0 = sdiv i64 %a, %n
  %lor = srem i64 %lo0, %al
  %lo = sub i64 %lo0, %lor
  %c1 = add i64 %c, 1
  %b = mul i64 %c1, %trip
  %hi0 = sdiv i64 %b, %n
  %hir = srem i64 %hi0, %al
  %hia = sub i64 %hi0, %hir
  %last = icmp eq i64 %c1, %n
  %hi = select i1 %last, i64 %trip, i64 %hia
  %r = call i64 %fn(i8* %env, i64 %lo, i64 %hi, i64 %c, i64 %tid, i64* %errp)
  %bad = icmp ne i64 %r, 0
  br i1 %bad, label %fail, label %done
fail:
  store i64 %c, i64* %rec
  %prev = atomicrmw min i64* @job_failmin, i64 %c seq_cst
  br label %done
done:
  ret void
}

; thread %tid's own chunks first (a contiguous share, the same in every loop of a time
; step: its rows stay in its core's cache), then any chunk left, from the last down (what
; a thread that joined late, or not at all, has not started)
define internal void @run_chunks(i64 %tid) {
entry:
  %n = load i64, i64* @job_n
  %tt = load i64, i64* @job_threads
  %s0 = mul i64 %tid, %n
  %first = sdiv i64 %s0, %tt
  %tid1 = add i64 %tid, 1
  %s1 = mul i64 %tid1, %n
  %end0 = sdiv i64 %s1, %tt
  %over = icmp sgt i64 %end0, %n
  %end = select i1 %over, i64 %n, i64 %end0
  br label %own
own:
  %c = phi i64 [%first, %entry], [%c1, %ownbody]
  %more = icmp slt i64 %c, %end
  br i1 %more, label %ownbody, label %rest
ownbody:
  call void @try_chunk(i64 %c, i64 %tid)
  %c1 = add i64 %c, 1
  br label %own
rest:
  %d = phi i64 [%n, %own], [%d1, %restbody]
  %left = icmp sgt i64 %d, 0
  br i1 %left, label %restbody, label %done
restbody:
  %d1 = sub i64 %d, 1
  call void @try_chunk(i64 %d1, i64 %tid)
  br label %rest
done:
  ret void
}

define internal i8* @worker(i8* %arg) {
entry:
  %tid = ptrtoint i8* %arg to i64
  %mx = call i8* @m()
  %cw = bitcast [16 x i64]* @cv_work to i8*
  %cd = bitcast [16 x i64]* @cv_done to i8*
  %g0 = load i64, i64* @gen0
  br label %wait
wait:
  %seen = phi i64 [%g0, %entry], [%g, %late], [%g, %unlock]
  call void @spin_while(i64* @gen, i64 %seen, i1 1)
  call void @lock(i8* %mx)
  br label %check
check:
  %g = load i64, i64* @gen
  %same = icmp eq i64 %g, %seen
  br i1 %same, label %sleep, label %woken
sleep:
  %w = call i32 @pthread_cond_wait(i8* %cw, i8* %mx)
  br label %check
woken:
  %open = load i64, i64* @job_open
  %t = load i64, i64* @solvent_par_threads
  %mine = icmp slt i64 %tid, %t
  %isopen = icmp ne i64 %open, 0
  %join = and i1 %mine, %isopen
  br i1 %join, label %go, label %late
late:
  %u0 = call i32 @pthread_mutex_unlock(i8* %mx)
  br label %wait
go:
  %a = load i64, i64* @active
  %a1 = add i64 %a, 1
  store atomic i64 %a1, i64* @active monotonic, align 8
  %u1 = call i32 @pthread_mutex_unlock(i8* %mx)
  call void @run_chunks(i64 %tid)
  call void @lock(i8* %mx)
  %b = load i64, i64* @active
  %b1 = sub i64 %b, 1
  store atomic i64 %b1, i64* @active monotonic, align 8
  %last = icmp eq i64 %b1, 0
  br i1 %last, label %signal, label %unlock
signal:
  %s = call i32 @pthread_cond_signal(i8* %cd)
  br label %unlock
unlock:
  %u2 = call i32 @pthread_mutex_unlock(i8* %mx)
  br label %wait
}

; start workers until there are %want - 1 (called with the mutex held)
define internal void @start(i64 %want) {
entry:
  %g = load i64, i64* @gen
  store i64 %g, i64* @gen0
  %th = alloca i64
  %n0 = load i64, i64* @nworkers
  %k0 = add i64 %n0, 1
  br label %loop
loop:
  %k = phi i64 [%k0, %entry], [%k1, %ok]
  %more = icmp slt i64 %k, %want
  br i1 %more, label %make, label %done
make:
  %arg = inttoptr i64 %k to i8*
  %r = call i32 @pthread_create(i64* %th, i8* null, i8* (i8*)* @worker, i8* %arg)
  %failed = icmp ne i32 %r, 0
  br i1 %failed, label %done, label %ok
ok:
  store i64 %k, i64* @nworkers
  %k1 = add i64 %k, 1
  br label %loop
done:
  ret void
}

define i64 @solvent_par_for(i64 (i8*, i64, i64, i64, i64, i64*)* %fn, i8* %env, i64 %trip,
                            i64 %cost, i64* %err, i64 %align) {
entry:
  %recs = alloca [MAXREC x i64]
  %t = load i64, i64* @solvent_par_threads
  %thr = load i64, i64* @solvent_par_threshold
  %few = icmp slt i64 %trip, 2
  %one = icmp slt i64 %t, 2
  %c1 = icmp slt i64 %cost, 1
  %cc = select i1 %c1, i64 1, i64 %cost
  %need0 = add i64 %thr, %cc
  %need1 = sub i64 %need0, 1
  %need = sdiv i64 %need1, %cc
  %small = icmp slt i64 %trip, %need
  %s1 = or i1 %few, %one
  %s2 = or i1 %s1, %small
  br i1 %s2, label %seq, label %pidcheck
pidcheck:
  %mypid = call i32 @getpid()
  %pid = load i32, i32* @pid
  %nopool = icmp eq i32 %pid, 0
  %mine = icmp eq i32 %pid, %mypid
  %usable = or i1 %nopool, %mine
  br i1 %usable, label %claim, label %seq
claim:
  %x = cmpxchg i64* @busy, i64 0, i64 1 acquire monotonic
  %got = extractvalue { i64, i1 } %x, 1
  br i1 %got, label %par, label %seq
par:
  %mx = call i8* @m()
  %rdy = load i64, i64* @ready
  %isready = icmp ne i64 %rdy, 0
  br i1 %isready, label %grow, label %init
init:
  %i1 = call i32 @pthread_mutex_init(i8* %mx, i8* null)
  %cw0 = bitcast [16 x i64]* @cv_work to i8*
  %cd0 = bitcast [16 x i64]* @cv_done to i8*
  %i2 = call i32 @pthread_cond_init(i8* %cw0, i8* null)
  %i3 = call i32 @pthread_cond_init(i8* %cd0, i8* null)
  store i64 1, i64* @ready
  store i32 %mypid, i32* @pid
  br label %grow
grow:
  %nw0 = load i64, i64* @nworkers
  %nw0p = add i64 %nw0, 1
  %short = icmp slt i64 %nw0p, %t
  br i1 %short, label %spawn, label %lock
spawn:
  call void @lock(i8* %mx)
  call void @start(i64 %t)
  %u0 = call i32 @pthread_mutex_unlock(i8* %mx)
  br label %lock
lock:
  %nw = load i64, i64* @nworkers
  %noworkers = icmp eq i64 %nw, 0
  br i1 %noworkers, label %release_seq, label %publish
release_seq:
  store atomic i64 0, i64* @busy release, align 8
  br label %seq
publish:
  %tw = add i64 %nw, 1
  %tl = icmp slt i64 %tw, %t
  %tt = select i1 %tl, i64 %tw, i64 %t
  %n0 = mul i64 %tt, CPT
  %n1 = icmp slt i64 %n0, MAXCHUNKS
  %n2 = select i1 %n1, i64 %n0, i64 MAXCHUNKS
  %n3 = icmp slt i64 %trip, %n2
  %n = select i1 %n3, i64 %trip, i64 %n2
  %recp = getelementptr [MAXREC x i64], [MAXREC x i64]* %recs, i64 0, i64 0
  br label %unclaim
unclaim:
  %cl = phi i64 [0, %publish], [%cl1, %unclaim]
  %clp = getelementptr [MAXCHUNKS x i64], [MAXCHUNKS x i64]* @claimed, i64 0, i64 %cl
  store i64 0, i64* %clp
  %cl1 = add i64 %cl, 1
  %umore = icmp slt i64 %cl1, %n
  br i1 %umore, label %unclaim, label %clearrecs
clearrecs:
  br label %clear
clear:
  %k = phi i64 [0, %clearrecs], [%k1, %clear]
  %ko = mul i64 %k, 6
  %kp = getelementptr i64, i64* %recp, i64 %ko
  store i64 MAXCHUNKS, i64* %kp
  %k1 = add i64 %k, 1
  %kmore = icmp slt i64 %k1, MAXTHREADS
  br i1 %kmore, label %clear, label %go
go:
  call void @lock(i8* %mx)
  store i64 (i8*, i64, i64, i64, i64, i64*)* %fn, i64 (i8*, i64, i64, i64, i64, i64*)** @job_fn
  store i8* %env, i8** @job_env
  store i64 %trip, i64* @job_trip
  store i64 %align, i64* @job_align
  store i64 %n, i64* @job_n
  store i64 MAXCHUNKS, i64* @job_failmin
  store i64 %tt, i64* @job_threads
  store i64* %recp, i64** @job_rec
  store i64 1, i64* @job_open
  %g = load i64, i64* @gen
  %g1 = add i64 %g, 1
  store atomic i64 %g1, i64* @gen monotonic, align 8
  %cw = bitcast [16 x i64]* @cv_work to i8*
  %b1 = call i32 @pthread_cond_broadcast(i8* %cw)
  %u1 = call i32 @pthread_mutex_unlock(i8* %mx)
  call void @run_chunks(i64 0)
  call void @lock(i8* %mx)
  store i64 0, i64* @job_open
  %cd = bitcast [16 x i64]* @cv_done to i8*
  %p0 = load i64, i64* @active
  %busy0 = icmp sgt i64 %p0, 0
  br i1 %busy0, label %unlockspin, label %join
unlockspin:
  %u3 = call i32 @pthread_mutex_unlock(i8* %mx)
  call void @spin_while(i64* @active, i64 0, i1 0)
  call void @lock(i8* %mx)
  br label %join
join:
  %p = load i64, i64* @active
  %busyw = icmp sgt i64 %p, 0
  br i1 %busyw, label %joinwait, label %joined
joinwait:
  %w = call i32 @pthread_cond_wait(i8* %cd, i8* %mx)
  br label %join
joined:
  %u2 = call i32 @pthread_mutex_unlock(i8* %mx)
  store atomic i64 0, i64* @busy release, align 8
  br label %scan
scan:
  %j = phi i64 [0, %joined], [%j1, %scan]
  %best = phi i64 [MAXCHUNKS, %joined], [%best1, %scan]
  %bestj = phi i64 [0, %joined], [%bestj1, %scan]
  %jo = mul i64 %j, 6
  %jp = getelementptr i64, i64* %recp, i64 %jo
  %fc = load i64, i64* %jp
  %lower = icmp slt i64 %fc, %best
  %best1 = select i1 %lower, i64 %fc, i64 %best
  %bestj1 = select i1 %lower, i64 %j, i64 %bestj
  %j1 = add i64 %j, 1
  %jmore = icmp slt i64 %j1, MAXTHREADS
  br i1 %jmore, label %scan, label %scanned
scanned:
  %anyfail = icmp slt i64 %best1, MAXCHUNKS
  br i1 %anyfail, label %copyerr, label %ok
copyerr:
  %eo = mul i64 %bestj1, 6
  %eo1 = add i64 %eo, 1
  %src = getelementptr i64, i64* %recp, i64 %eo1
  br label %cp
cp:
  %q = phi i64 [0, %copyerr], [%q1, %cp]
  %sq = getelementptr i64, i64* %src, i64 %q
  %v = load i64, i64* %sq
  %dq = getelementptr i64, i64* %err, i64 %q
  store i64 %v, i64* %dq
  %q1 = add i64 %q, 1
  %qmore = icmp slt i64 %q1, 5
  br i1 %qmore, label %cp, label %failed
failed:
  ret i64 -1
ok:
  ret i64 %n
seq:
  %r = call i64 %fn(i8* %env, i64 0, i64 %trip, i64 0, i64 0, i64* %err)
  %sbad = icmp ne i64 %r, 0
  %sres = select i1 %sbad, i64 -1, i64 1
  ret i64 %sres
}
"""


# the spin-wait hint of the target (x86 ``pause``, AArch64 ``yield``): a waiting worker
# leaves the core's pipeline to the other work on it
_PAUSE = {"x86_64": ("declare void @llvm.x86.sse2.pause()", "call void @llvm.x86.sse2.pause()"),
          "aarch64": ("declare void @llvm.aarch64.hint(i32)",
                      "call void @llvm.aarch64.hint(i32 1)")}


def _runtime_text(triple: str = "") -> str:
    decl, pause = _PAUSE.get(triple.split("-", 1)[0], ("", ""))
    return (_RUNTIME.replace("PAUSEDECL", decl).replace("PAUSE", pause)
            .replace("SPIN", str(SPIN_ROUNDS)).replace("MAXREC", str(6 * MAX_THREADS))
            .replace("MAXTHREADS", str(MAX_THREADS)).replace("MAXCHUNKS", str(MAX_CHUNKS))
            .replace("CPT", str(CHUNKS_PER_THREAD)).replace("MAXCOST", str(DEFAULT_THRESHOLD)))


class _Runtime:
    def __init__(self):
        # LLVM's fast code generation (level 0): the pool's code is calls into pthreads,
        # atomics and short loops over the threads, and the first parallel kernel of a
        # process pays for compiling it. After a warmed-up LLVM: 13 ms CPU against 40 ms
        # at level 3; fork/join cost unchanged (benchmarks/parallel_overhead.py)
        tm = target_machine(opt=0)
        mod = llvm.parse_assembly(_runtime_text(tm.triple))
        mod.triple = tm.triple
        mod.data_layout = str(tm.target_data)
        mod.verify()
        self.engine = llvm.create_mcjit_compiler(mod, tm)
        self.engine.finalize_object()
        self.par_for = self.engine.get_function_address("solvent_par_for")
        llvm.add_symbol("solvent_par_for", self.par_for)
        # read by the entries too (rules_parallel._run_or_call_pool)
        for name in ("solvent_par_threads", "solvent_par_threshold"):
            llvm.add_symbol(name, self.engine.get_global_value_address(name))
        self._threads = ctypes.c_int64.from_address(
            self.engine.get_global_value_address("solvent_par_threads"))
        self._threshold = ctypes.c_int64.from_address(
            self.engine.get_global_value_address("solvent_par_threshold"))
        n = max(1, min(MAX_THREADS, _env_int(ENV_THREADS, _cores())))
        # private buffers get max_threads copies, fixed for the process; at least
        # MIN_MAX_THREADS so that tests can run loops on more threads than cores
        self.max_threads = max(n, MIN_MAX_THREADS)
        self._threads.value = n
        self._threshold.value = max(0, _env_int(ENV_THRESHOLD, DEFAULT_THRESHOLD))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name)
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not an integer") from None


_LOCK = threading.Lock()
_INSTANCE: _Runtime | None = None


def runtime() -> _Runtime:
    """The process's pool runtime (compiled on first use; its symbol is then linkable)."""
    global _INSTANCE
    with _LOCK:
        if _INSTANCE is None:
            _INSTANCE = _Runtime()
        return _INSTANCE


def max_threads() -> int:
    """Threads a parallel loop may use in this process (private buffers are sized for it)."""
    return runtime().max_threads


def settings() -> dict:
    rt = runtime()
    return {"threads": rt._threads.value, "threshold": rt._threshold.value}


def configure(threads: int | None = None, threshold: int | None = None) -> dict:
    """Change the pool's active threads (1 .. max_threads) or the threshold (cost units; 0
    runs every parallel loop of two or more iterations on the pool); returns the previous
    settings, so ``configure(**old)`` restores them."""
    rt = runtime()
    old = settings()
    if threads is not None:
        if not 1 <= threads <= rt.max_threads:
            raise ValueError(f"threads must be in 1..{rt.max_threads}, got {threads}")
        rt._threads.value = threads
    if threshold is not None:
        if threshold < 0:
            raise ValueError(f"threshold must be >= 0, got {threshold}")
        rt._threshold.value = threshold
    return old
