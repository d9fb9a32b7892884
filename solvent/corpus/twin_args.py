"""Arguments of a loop twin from its vectorized twin's ``make_args``.

A loop twin (``<name>_loops``) takes the same arguments as its vectorized twin, possibly in
another order (scalars first, as ported C often has them): ``TWIN_ARGS[i]`` is the position,
among the vectorized kernel's arguments, of the twin's argument ``i``.
"""


def reordered(make_args, order):
    """``make_args`` of a loop twin whose arguments are the vectorized ones in ``order``."""
    order = tuple(order)

    def make(n, rng):
        args = make_args(n, rng)
        return tuple(args[k] for k in order)

    make.__doc__ = f"The vectorized twin's arguments in the order {order}."
    return make


def vectorized_args(twin_args, order):
    """The vectorized twin's arguments (the same objects) from a loop twin's arguments."""
    out = [None] * len(order)
    for i, k in enumerate(order):
        out[k] = twin_args[i]
    return tuple(out)
