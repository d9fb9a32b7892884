"""Loop nests for the versioned raise (test_versioned_raise.py): NumPy runs them as written.
Floyd-Warshall itself is the corpus kernel ``floyd_warshall_loops``."""


def relax_pivot(k, a):
    """One Floyd step at pivot ``k`` on a non-square array, written with min."""
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = min(a[i, j], a[i, k] + a[k, j])


def sign_flip(a):
    """Writes -0.0 over 0.0 (== the old value, another sign) at a[0, 0], which later
    iterations read through 1 / a[0, 0]: the guard must fail. (Reading a[i, 0], each row
    its own, the rows are independent and the nest is interchanged instead, exactly:
    test_raise_loops' row_sign_flip.)"""
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] == 0.0:
                a[i, j] = -a[i, j]
            elif 1.0 / a[0, 0] < 0.0:
                a[i, j] = 5.0


def row_scale(a):
    """a[i, j] = a[i, j] * a[i, 0]: column 0 changes (not a select or min of the old value):
    a real dependence, never versioned."""
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = a[i, j] * a[i, 0]


def neighbour_min(a):
    """a[i, j] = min(a[i, j], a[i - 1, j]): a wavefront with no pivot row, never versioned."""
    for i in range(1, a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = min(a[i, j], a[i - 1, j])
