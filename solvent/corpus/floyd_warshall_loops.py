"""Loop twin of floyd_warshall: the classic triple loop with a relaxing if. Category: linalg."""
from .floyd_warshall import make_args  # noqa: F401

TWIN_OF = "floyd_warshall"


def kernel(path):
    n = path.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                d = path[i, k] + path[k, j]
                if d < path[i, j]:
                    path[i, j] = d


SIZES = (3, 6)
BENCH_SIZE = 300
JAX_PORT = None
NUMBA_OK = True
