"""Native code for sequential kernels: loops whose bounds follow a carried loop stay loops
(NativeBackend.pass_defaults: raise_loops' masked_under_carried=False), and the index check
is tested on the index as written (context.checked_index), with NumPy's answers and
errors either way."""
import inspect

import numpy as np
import pytest

import solvent
from solvent.ir.printer import print_function
from solvent.corpus import csr_spmv, lu_nopivot

from differential import check

lu = lu_nopivot.kernel
csr = csr_spmv.kernel


def rows_under_independent(scale, C):
    n = C.shape[0]
    for i in range(n):            # independent rows: the triangle below may be batched
        for j in range(i + 1):
            C[i, j] *= scale


def _lu_args(n, order="C"):
    rng = np.random.default_rng(n)
    return (np.asarray(rng.random((n, n)) + n * np.eye(n), order=order),)


def _loops(fn):
    return sum(1 for op in fn.walk() if op.name == "loop.for")


@pytest.mark.parametrize("n", [0, 1, 2, 7])
@pytest.mark.parametrize("backend", ["native", "xla", None])
def test_lu_matches_numpy_on_every_backend(n, backend):
    check(lu, *_lu_args(n), backend=backend)


def test_lu_fortran_ordered_and_float32_match_numpy():
    check(lu, *_lu_args(6, "F"), backend="native")
    check(lu, _lu_args(5)[0].astype(np.float32), backend="native")


def test_native_keeps_the_triangle_as_loops_and_xla_batches_it():
    args = _lu_args(7)
    native = solvent.jit(lu, backend="native").compile(args)
    xla = solvent.jit(lu, backend="xla").compile(args)
    assert _loops(native.fn) == 3
    assert _loops(xla.fn) == 1
    why = " ".join(native.fn.not_raised.values())
    assert "which is carried" in why and "masked_under_carried=False" in why


def test_the_users_pass_options_win_over_the_backends():
    f = solvent.jit(lu, backend="native",
                    passes={"raise_loops": {"masked_under_carried": True}})
    assert _loops(f.compile(_lu_args(7)).fn) == 1
    check(lu, *_lu_args(7), backend="native")


def test_automatic_choice_compiles_with_the_chosen_backends_options():
    c = solvent.jit(lu).compile(_lu_args(7))
    if c.backend == "native":
        assert _loops(c.fn) == 3 and "pass options" in c.reason
    else:
        assert _loops(c.fn) == 1


def test_the_automatic_rerun_builds_the_program_native_forced_builds():
    """The automatic choice reruns only the passes from raising on, from a copy of the
    program kept before them (runtime.jit, ir.core.clone_function): the result is the
    program ``backend="native"`` builds from the frontend on, and explain shows every stage
    once."""
    from solvent.ir.printer import print_function
    auto = solvent.jit(lu).compile(_lu_args(7))
    if auto.backend != "native":
        pytest.skip("the automatic choice did not pick native here")
    native = solvent.jit(lu, backend="native").compile(_lu_args(7))
    assert print_function(auto.fn) == print_function(native.fn)
    text = solvent.jit(lu).explain(*_lu_args(7))
    assert text.count("## after raise_loops") == 1 and text.count("## after functionalize") == 1
    check(lu, *_lu_args(7), backend=None)


def test_raising_records_the_options_it_needed():
    """Function.raised_with names the raise_loops options whose value let a loop raise:
    LU's masked triangle under its carried pivot loop needs masked_under_carried; a masked
    triangle under an independent loop needs none, so the automatic choice does not raise
    it again (it runs the passes after raising again with the native backend's other
    options, version_checks')."""
    xla = solvent.jit(lu, backend="xla").compile(_lu_args(7))
    assert xla.fn.raised_with == {"masked_under_carried"}
    native = solvent.jit(lu, backend="native").compile(_lu_args(7))
    assert native.fn.raised_with == set()
    # automatic choice picks native and builds native's program, the triangle not raised
    auto_lu = solvent.jit(lu).compile(_lu_args(7))
    assert auto_lu.backend == "native"
    assert print_function(auto_lu.fn) == print_function(native.fn)
    C = np.random.default_rng(1).random((6, 6))
    auto = solvent.jit(rows_under_independent).compile((2.0, C))
    assert auto.fn.raised_with == set() and auto.backend == "native"
    assert any("mask" in r for r in auto.fn.raised)


def test_a_triangle_under_an_independent_loop_is_still_batched_on_native():
    C = np.random.default_rng(1).random((6, 6))
    c = solvent.jit(rows_under_independent, backend="native").compile((2.0, C))
    assert _loops(c.fn) == 0
    check(rows_under_independent, 2.0, C, backend="native")
    check(rows_under_independent, 2.0, np.ones((1, 1)), backend="native")


def _csr_args(idx_dtype=np.int64, m=5):
    rng = np.random.default_rng(3)
    rowptr = np.array([0, 2, 2, 5, 6, 8][:m + 1], dtype=idx_dtype)
    cols = rng.integers(0, m, int(rowptr[-1])).astype(idx_dtype)
    return rowptr, cols, rng.random(int(rowptr[-1])), rng.random(m), np.zeros(m)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8])
def test_data_dependent_indices_match_numpy(dtype):
    check(csr, *_csr_args(dtype), backend="native")


def test_negative_indices_wrap_as_in_numpy():
    rowptr, cols, vals, x, y = _csr_args()
    cols = cols - 5                     # every column negative, all in range
    check(csr, rowptr, cols, vals, x, y, backend="native")


def _line(text):
    src, first = inspect.getsourcelines(csr)
    return first + next(k for k, line in enumerate(src) if text in line)


@pytest.mark.parametrize("bad", [5, -6, 1 << 40, -(1 << 62)])
def test_an_index_just_outside_raises_naming_the_line_and_writes_nothing(bad):
    rowptr, cols, vals, x, y = _csr_args()
    cols[3] = bad
    y[:] = 7.0
    with pytest.raises(IndexError) as np_err:
        csr(rowptr, cols, vals, x, y.copy())
    with pytest.raises(IndexError) as e:
        solvent.jit(csr, backend="native")(rowptr, cols, vals, x, y)
    assert f"index {bad} is out of bounds for axis 0 with size 5" in str(e.value)
    assert str(np_err.value).split()[1] == str(bad)
    assert f".py:{_line('s += vals[k]')}:" in str(e.value)
    np.testing.assert_array_equal(y, np.full(5, 7.0))


def test_a_row_pointer_past_the_values_raises():
    rowptr, cols, vals, x, y = _csr_args()
    rowptr[-1] = 9                      # one past vals' end
    with pytest.raises(IndexError) as e:
        solvent.jit(csr, backend="native")(rowptr, cols, vals, x, y)
    assert "index 8 is out of bounds for axis 0 with size 8" in str(e.value)
