"""Random loop kernels with affine (and some non-affine) subscripts, written as source text.

Every kernel is plain NumPy-style Python; ``generate(seed, count)`` writes them into one
module file (solvent compiles functions from their source) and returns its path and the
kernel names with their arguments' makers. Subscripts may be negative (NumPy wraps them) and
may fall outside the array for some iterations; the test skips those NumPy rejects.
"""
import importlib.util
import os
import random

N1 = 16
N2 = 7


def _sub(rng, vars_, lo=-3, hi=3):
    terms = []
    for v in vars_:
        c = rng.choice([0, 0, 1, 1, 1, 2, -1, 3, -2])
        if c:
            terms.append(f"{c} * {v}" if c != 1 else v)
    k = rng.randint(lo, hi)
    if rng.random() < 0.08:
        return f"idx[{vars_[0]}]"          # non-affine: an index read from an array
    if rng.random() < 0.05 and len(vars_) > 1:
        return f"{vars_[0]} * {vars_[1]}"  # non-affine: a product
    text = " + ".join(terms) if terms else "0"
    return f"{text} + {k}" if k else text


def _range(rng, n, outer=None):
    if outer is not None and rng.random() < 0.3:
        return f"range({outer})" if rng.random() < 0.5 else f"range({outer}, {n})"
    step = rng.choice([1, 1, 1, 2, 3, -1, -2])
    a, b = sorted(rng.sample(range(0, n + 1), 2))
    return f"range({a}, {b}, {step})" if step > 0 else f"range({b - 1}, {a - 1}, {step})"


def _one_d(rng, name):
    w, r1, r2 = (_sub(rng, ["i"]) for _ in range(3))
    body = rng.choice([
        f"x[{w}] = x[{r1}] + 1.0",
        f"x[{w}] = 0.5 * x[{r1}] + x[{r2}]",
        f"x[{w}] += y[i]",
        f"y[i] = x[{r1}]\n        x[{w}] = 2.0",
        f"s = x[{r1}]\n        x[{w}] = s * s",
        f"x[{w}:{w} + 3] = 0.5 * x[{r1}:{r1} + 3]",
        f"x[{w}] = np.sum(x[{r1}:{r1} + 2])",
        f"x[{w}] = x[::-1][{r1}] + x[1::2][{r2}]",
        f"x[{w}] += x[{r1}] * y[i]",
        f"x[{w}] = max(x[{w}], y[i])",
        f"x[{w}] = x[{w}] * y[i] + 0.0 * x[{r1}]",
    ])
    return (f"def {name}(x, y, idx):\n    for i in {_range(rng, N1)}:\n        {body}\n", "1d")


def _two_d(rng, name):
    w = ", ".join(_sub(rng, ["i", "j"]) for _ in range(2))
    r = ", ".join(_sub(rng, ["i", "j"]) for _ in range(2))
    row = _sub(rng, ["i", "j"])
    body = rng.choice([f"A[{w}] = A[{r}] + 1.0", f"A[{w}] += B[i, j]",
                       f"B[i, j] = A[{r}]\n            A[{w}] = 3.0",
                       f"A[{row}, :] = A[{r.split(',')[0]}, :] * 0.5",
                       f"A[:, {row}] += A[{r}]",
                       f"A[{w}] += B[i, j] * A[{r}]",
                       f"A[{row}, 0] = A[{row}, 0] + B[j, i]"])
    return (f"def {name}(A, B, idx):\n    for i in {_range(rng, N2)}:\n"
            f"        for j in {_range(rng, N2, outer='i')}:\n            {body}\n", "2d")


def generate(seed: int, count: int, directory: str):
    rng = random.Random(seed)
    src, kinds = [], {}
    for k in range(count):
        name = f"k{k}"
        text, kind = (_one_d if rng.random() < 0.5 else _two_d)(rng, name)
        src.append(text)
        kinds[name] = kind
    path = os.path.join(directory, f"random_kernels_{seed}.py")
    with open(path, "w") as f:
        f.write("import numpy as np\n\n\n" + "\n\n".join(src))
    spec = importlib.util.spec_from_file_location(f"random_kernels_{seed}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, kinds
