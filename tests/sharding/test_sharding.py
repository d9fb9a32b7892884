"""solvent.jit(..., mesh=...): the checks that one device can run here; everything that
needs 8 devices runs in a subprocess (XLA_FLAGS must be set before jax starts, and this
process's jax is never reconfigured)."""
import os
import subprocess
import sys

import numpy as np
import pytest
from jax.sharding import PartitionSpec as P

import solvent

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def eight_device_env():
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                        " --xla_force_host_platform_device_count=8").strip()
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTEST_XDIST_WORKER", None)
    return env


def test_on_eight_simulated_devices():
    here = os.path.join(ROOT, "tests", "sharding", "_device_tests.py")
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "no:xdist", here], cwd=ROOT, env=eight_device_env(),
                       capture_output=True, text=True, timeout=280)
    tail = (p.stdout + p.stderr)[-6000:]
    assert p.returncode == 0, tail
    assert " passed" in tail and "failed" not in tail, tail


def test_a_mesh_larger_than_the_devices_is_refused():
    import jax
    n = len(jax.devices()) + 1
    with pytest.raises(solvent.ShardingError, match=f"needs {n} devices"):
        solvent.jit(lambda_free, mesh={"x": n}, in_specs=P("x"))


def test_specs_naming_a_missing_axis_or_parameter_are_refused():
    with pytest.raises(solvent.ShardingError, match="mesh axis 'y'.*'x' \\(size 1\\)"):
        solvent.jit(lambda_free, mesh={"x": 1}, in_specs={"A": P("y")})
    with pytest.raises(solvent.ShardingError, match="'C', which is not a parameter"):
        solvent.jit(lambda_free, mesh={"x": 1}, in_specs={"C": P("x")})
    with pytest.raises(solvent.ShardingError, match="2 parameters"):
        solvent.jit(lambda_free, mesh={"x": 1}, in_specs=(P("x"),))
    # an entry that names no axis: a TypeError from iterating it before
    with pytest.raises(solvent.ShardingError, match="argument 'A'.*dimension 0.*UNCONSTRAINED"):
        solvent.jit(lambda_free, mesh={"x": 1}, in_specs={"A": P(P.UNCONSTRAINED)})
    with pytest.raises(solvent.ShardingError, match="out_specs.*dimension 1"):
        solvent.jit(lambda_free, mesh={"x": 1}, out_specs=P("x", 3))
    with pytest.raises(ValueError, match="need a mesh"):
        solvent.jit(lambda_free, in_specs=(P("x"), None))
    with pytest.raises(ValueError, match="out must be one of"):
        solvent.jit(lambda_free, mesh={"x": 1}, out="gathered")


def lambda_free(A, B):
    return A + B


def test_one_device_mesh_gives_numpys_result():
    A = np.arange(12.0).reshape(4, 3)
    B = np.ones((4, 3))
    r = solvent.jit(lambda_free, mesh={"x": 1}, in_specs=P("x"))(A, B)
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r, A + B)


def twice(A):
    return A * 2.0


def shift_into(A, B):
    B[1:] = A[:-1]
    return A + 1.0


def test_sharded_results_feed_the_next_call():
    import jax
    x = np.arange(16.0).reshape(4, 4)
    jf = solvent.jit(twice, mesh={"x": 1}, in_specs=P("x"), out="sharded")
    y = jf(x)
    assert isinstance(y, jax.Array) and y.dtype == np.float64
    z = jf(y)  # a jax.Array argument compiles as its shape and is passed as it is
    np.testing.assert_array_equal(np.asarray(z), x * 4.0)


def test_a_jax_array_that_the_function_writes_into_is_refused():
    y = solvent.jit(twice, mesh={"x": 1}, in_specs=P("x"), out="sharded")(np.ones((4, 2)))
    B = np.zeros((4, 2))
    with pytest.raises(solvent.UnsupportedError, match="'B' is a jax.Array"):
        solvent.jit(shift_into, mesh={"x": 1}, in_specs=P("x"))(np.ones((4, 2)), y)
    # read-only as an argument it is fine, and the NumPy argument is written back
    r = solvent.jit(shift_into, mesh={"x": 1}, in_specs=P("x"))(y, B)
    assert isinstance(r, np.ndarray) and not isinstance(y, np.ndarray)
    np.testing.assert_array_equal(r, np.asarray(y) + 1.0)
    np.testing.assert_array_equal(B[1:], np.asarray(y)[:-1])
