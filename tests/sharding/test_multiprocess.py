"""examples/multiprocess_stencil.py on 2 processes on 127.0.0.1 (jax.distributed, gloo CPU
collectives): both finish with the same result as NumPy, and a process that fails makes the
other stop with a clear message within the bounded timeouts instead of hanging."""
import os
import socket
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "multiprocess_stencil.py")
OVERALL_TIMEOUT = 60  # seconds for the whole group of processes


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(extra_per_process, timeout=10):
    """Start one process per entry of ``extra_per_process``, each waiting at most
    ``timeout`` s for the others to join; (returncode, output) of each. Processes still
    running after OVERALL_TIMEOUT are killed and the test fails."""
    port = free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("XLA_FLAGS", None)
    procs = [subprocess.Popen(
        [sys.executable, EXAMPLE, "--process-id", str(k), "--num-processes",
         str(len(extra_per_process)), "--port", str(port), "--timeout", str(timeout), *extra],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for k, extra in enumerate(extra_per_process)]
    results = []
    try:
        for p in procs:
            out, _ = p.communicate(timeout=OVERALL_TIMEOUT)
            results.append((p.returncode, out))
    except subprocess.TimeoutExpired:
        for p in procs:
            p.kill()
        for p in procs:
            p.communicate()
        pytest.fail(f"the processes did not finish within {OVERALL_TIMEOUT} s (a hang)")
    return results


def _result_line(out):
    lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
    assert len(lines) == 1, out[-3000:]
    return lines[0]


def test_two_processes_give_the_same_result_as_numpy():
    results = launch([[], []])
    for rc, out in results:
        assert rc == 0, out[-3000:]
    lines = [_result_line(out) for _, out in results]
    assert lines[0] == lines[1]
    assert float(lines[0].split()[2]) <= 1e-12  # max difference from NumPy
    assert "4 devices, 2 local" in results[0][1]  # the mesh spans both processes


@pytest.mark.parametrize("when", ["before-join", "after-join"])
def test_a_failed_process_stops_the_other_with_a_message(when):
    # before joining, process 0 waits for a process that never comes: its whole timeout
    # (shortened here; after joining, JAX's heartbeat of at least 10 s decides)
    (rc0, out0), (rc1, out1) = launch([[], ["--fail", when]],
                                      timeout=4 if when == "before-join" else 10)
    assert rc1 == 3, out1[-2000:]
    assert rc0 != 0, "process 0 succeeded although process 1 failed:\n" + out0[-2000:]
    assert "RESULT" not in out0
    assert ("detected fatal errors" in out0 or "could not join" in out0
            or "stopped sending heartbeats" in out0), out0[-3000:]
