"""Placing a jitted function's arguments on a device mesh (``solvent.jit(..., mesh=...)``).

solvent does no communication of its own: the arguments are given
``jax.sharding.NamedSharding``s and ``jax.jit`` hands the program to XLA's SPMD partitioner,
which splits every op over the mesh and inserts the collectives (halo exchanges of a stencil
become ``collective-permute``s of the boundary rows).

``Placement`` is the user's request, normalized and checked:

- ``mesh``: a ``jax.sharding.Mesh``, or a dict ``{"x": 4, "y": 2}`` laid over the first
  ``4 * 2`` of ``jax.devices()``;
- ``in_specs``: one ``PartitionSpec`` (or None: replicated) per parameter, as a sequence in
  parameter order or a dict keyed by parameter name or position; a single ``PartitionSpec``
  applies to every array argument;
- ``out_specs``: None (written-back arguments keep their argument's sharding, other results
  are placed by the partitioner), one ``PartitionSpec`` for every array result, or a sequence
  with one per returned value;
- ``out``: ``"numpy"`` (results gathered into NumPy arrays) or ``"sharded"`` (returned
  arrays stay ``jax.Array``s on the mesh). Mutated arguments are written back into the
  caller's NumPy arrays either way.

Every check runs before anything is compiled or run, and names the argument, the dimension
and the sizes.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import UnsupportedError

OUT_MODES = ("numpy", "sharded")


class ShardingError(ValueError):
    """A mesh or partition spec that cannot place the arguments it is given."""


def build_mesh(mesh):
    """A ``jax.sharding.Mesh`` from a Mesh or a dict of axis name -> size."""
    import jax
    from jax.sharding import Mesh
    if isinstance(mesh, Mesh):
        return mesh
    if not isinstance(mesh, dict) or not mesh:
        raise ShardingError(f"mesh must be a jax.sharding.Mesh or a non-empty dict of axis "
                            f"name -> size, not {mesh!r}")
    for name, size in mesh.items():
        if not isinstance(name, str) or not isinstance(size, (int, np.integer)) or size < 1:
            raise ShardingError(f"mesh axis {name!r}: sizes are positive integers and names "
                                f"strings, got {name!r}: {size!r}")
    need = math.prod(int(s) for s in mesh.values())
    devices = jax.devices()
    if need > len(devices):
        shape = " x ".join(f"{k}={v}" for k, v in mesh.items())
        raise ShardingError(
            f"the mesh {shape} needs {need} devices, but only {len(devices)} "
            f"{devices[0].platform} device(s) are available (on CPU, set XLA_FLAGS="
            f"--xla_force_host_platform_device_count={need} before jax starts)")
    grid = np.array(devices[:need], dtype=object).reshape([int(s) for s in mesh.values()])
    return Mesh(grid, tuple(mesh))


def _spec_axes(entry) -> tuple:
    """The mesh axis names one PartitionSpec entry shards over (None: none)."""
    if entry is None:
        return ()
    if isinstance(entry, str):
        return (entry,)
    return tuple(entry)


def _spec_text(spec) -> str:
    return "P(" + ", ".join(repr(e) for e in spec) + ")"


def _is_array(a) -> bool:
    if isinstance(a, np.ndarray):
        return True
    try:
        import jax
        return isinstance(a, jax.Array)
    except ImportError:  # pragma: no cover
        return False


class Placement:
    """A normalized mesh + partition specs for one ``JitFunction``."""

    def __init__(self, mesh, in_specs, out_specs, out, params: list[str]):
        from jax.sharding import PartitionSpec
        if out not in OUT_MODES:
            raise ValueError(f"out must be one of {OUT_MODES}, not {out!r}")
        self.mesh = build_mesh(mesh)
        self.out = out
        self.params = params
        self._all = None
        self.specs: dict[int, object] = {}
        if isinstance(in_specs, PartitionSpec):
            self._all = in_specs
        elif isinstance(in_specs, dict):
            for key, spec in in_specs.items():
                self.specs[self._position(key)] = self._spec(spec, key)
        elif in_specs is not None:
            in_specs = tuple(in_specs)
            if len(in_specs) != len(params):
                raise ShardingError(
                    f"in_specs has {len(in_specs)} entries, the function has {len(params)} "
                    f"parameters ({', '.join(params)}): give one per parameter (None for "
                    "scalars and replicated arrays) or a dict keyed by parameter name")
            for k, spec in enumerate(in_specs):
                self.specs[k] = self._spec(spec, params[k])
        self.out_specs = out_specs
        if out_specs is not None and not isinstance(out_specs, PartitionSpec):
            self.out_specs = tuple(self._spec(s, f"out_specs[{k}]")
                                   for k, s in enumerate(out_specs))
        for k, spec in self.specs.items():
            self._check_axes(spec, f"argument {params[k]!r}")
        if self._all is not None:
            self._check_axes(self._all, "in_specs")
        if isinstance(self.out_specs, PartitionSpec):
            self._check_axes(self.out_specs, "out_specs")
        elif self.out_specs is not None:
            for k, s in enumerate(self.out_specs):
                self._check_axes(s, f"out_specs[{k}]")

    # --- normalizing --------------------------------------------------------------------
    def _position(self, key) -> int:
        if isinstance(key, str):
            if key not in self.params:
                raise ShardingError(f"in_specs names {key!r}, which is not a parameter "
                                    f"({', '.join(self.params)})")
            return self.params.index(key)
        if isinstance(key, int) and 0 <= key < len(self.params):
            return key
        raise ShardingError(f"in_specs key {key!r} is neither a parameter name nor a position "
                            f"below {len(self.params)}")

    @staticmethod
    def _spec(spec, what):
        from jax.sharding import PartitionSpec
        if spec is None:
            return PartitionSpec()
        if isinstance(spec, PartitionSpec):
            return spec
        raise ShardingError(f"{what}: a partition spec is a jax.sharding.PartitionSpec or "
                            f"None (replicated), not {spec!r}")

    def _check_axes(self, spec, what):
        sizes = self.mesh.shape
        seen = set()
        for d, entry in enumerate(spec):
            if not (entry is None or isinstance(entry, str) or isinstance(entry, tuple)
                    and all(isinstance(a, str) for a in entry)):
                raise ShardingError(
                    f"{what}: {_spec_text(spec)}, dimension {d}: {entry!r} is not a mesh "
                    "axis name, a tuple of names or None (solvent places every dimension)")
            for axis in _spec_axes(entry):
                if axis not in sizes:
                    raise ShardingError(
                        f"{what}: {_spec_text(spec)} shards dimension {d} over mesh axis "
                        f"{axis!r}, but the mesh has only the axes "
                        f"{', '.join(f'{k!r} (size {v})' for k, v in sizes.items())}")
                if axis in seen:
                    raise ShardingError(f"{what}: {_spec_text(spec)} uses mesh axis {axis!r} "
                                        "for two dimensions")
                seen.add(axis)

    # --- checking one call (before anything is compiled or run) -------------------------
    def spec_for(self, position: int, value):
        if position in self.specs:
            return self.specs[position]
        if self._all is not None and _is_array(value) and np.ndim(value) > 0:
            return self._all
        return None

    def check_shape(self, spec, shape, what):
        if len(spec) > len(shape):
            raise ShardingError(
                f"{what}: {_spec_text(spec)} has {len(spec)} entries but the array has rank "
                f"{len(shape)} (shape {tuple(shape)})")
        sizes = self.mesh.shape
        for d, entry in enumerate(spec):
            axes = _spec_axes(entry)
            n = math.prod(sizes[a] for a in axes)
            if n > 1 and shape[d] % n:
                over = " x ".join(f"{a!r} ({sizes[a]})" for a in axes)
                raise ShardingError(
                    f"{what}: dimension {d} has size {shape[d]}, which mesh axis {over} "
                    f"= {n} devices does not divide ({shape[d]} % {n} = {shape[d] % n})")

    def check_call(self, args):
        """Refuse specs that do not fit this call's arguments."""
        for k, a in enumerate(args):
            spec = self.spec_for(k, a)
            if spec is None:
                continue
            what = f"argument {self.params[k]!r}"
            if not _is_array(a):
                if len(spec) == 0:
                    continue
                raise ShardingError(f"{what}: {_spec_text(spec)} shards a "
                                    f"{type(a).__name__}, which is not an array")
            self.check_shape(spec, np.shape(a), what)

    @staticmethod
    def stand_ins(args):
        """The arguments as the compiler sees them: a ``jax.Array`` (a sharded result of an
        earlier call, say) compiles as an uninitialized NumPy array of its shape and dtype
        (``np.empty``: no pages are touched); the call itself gets the jax.Array."""
        if not any(_is_array(a) and not isinstance(a, np.ndarray) for a in args):
            return args
        return tuple(np.empty(a.shape, a.dtype)
                     if _is_array(a) and not isinstance(a, np.ndarray) else a for a in args)

    def check_written(self, args, written):
        for k in written:  # (a global or closure array, k past the arguments, is NumPy)
            if k < len(args) and not isinstance(args[k], np.ndarray):
                raise UnsupportedError(
                    f"argument {self.params[k]!r} is a jax.Array, which cannot be changed in "
                    "place, and the function writes into it",
                    hint="pass a NumPy array for arguments the function writes into")

    # --- the shardings handed to jax.jit -------------------------------------------------
    def arg_specs(self, fn, translation) -> list:
        """The PartitionSpec (or None: replicated) of each IR argument of ``fn``."""
        out = []
        for v, pos in zip(fn.args, translation.arg_map):
            if pos >= len(self.params):  # a global or closure array: not an argument,
                out.append(None)         # replicated
                continue
            spec = self.specs.get(pos)
            if spec is None and self._all is not None and v.type.shape:
                spec = self._all
            if spec is not None:  # the IR's view of the argument must fit the spec too
                self.check_shape(spec, v.type.shape, f"argument {self.params[pos]!r}")
            out.append(spec)
        return out

    def ir_shardings(self, fn, translation) -> list:
        """What the IR carries (``Function.shardings``): the mesh's [axis, size] pairs and
        one spec per argument (None, or per dimension None / axis / [axes])."""
        def entry(e):
            return list(e) if isinstance(e, tuple) else e
        specs = [None if s is None or not any(e is not None for e in s) else
                 [entry(e) for e in s] for s in self.arg_specs(fn, translation)]
        return [[[k, int(n)] for k, n in self.mesh.shape.items()], specs]

    def shardings(self, fn, translation):
        """(in_shardings per IR argument, out_shardings per IR result or None for each one
        the partitioner places) for the compiled ``fn``."""
        from jax.sharding import NamedSharding, PartitionSpec
        mesh = self.mesh
        ins = [NamedSharding(mesh, spec if spec is not None else PartitionSpec())
               for spec in self.arg_specs(fn, translation)]
        outs = [None] * len(fn.result_types)
        for r, k in enumerate(fn.writeback):
            if k is not None:
                outs[r] = ins[k]
        for r, spec in self._result_specs(fn, translation):
            self.check_shape(spec, fn.result_types[r].shape, f"result {r}")
            outs[r] = NamedSharding(mesh, spec)
        return ins, outs

    def _result_specs(self, fn, translation):
        """(IR result index, spec) for the returned arrays that out_specs places."""
        if self.out_specs is None:
            return []
        returned = _returned(translation.result)
        if not isinstance(self.out_specs, tuple):
            return [(i, self.out_specs) for i in returned if fn.result_types[i].shape]
        spec = translation.result
        items = list(spec[1]) if spec[0] == "tuple" else [spec]
        if len(items) != len(self.out_specs):
            raise ShardingError(f"out_specs has {len(self.out_specs)} entries, the function "
                                f"returns {len(items)} value(s)")
        pairs = []
        for item, s in zip(items, self.out_specs):
            if item[0] == "select":   # placed as its computed alternative
                item = next((x for x in item[2:] if x[0] == "value"), item[2])
            if item[0] not in ("tuple", "const", "arg"):
                pairs.append((item[1], s))
            elif len(s):
                raise UnsupportedError(f"out_specs {_spec_text(s)} is given for a returned "
                                       f"value that is not a computed array ({item[0]})")
        return pairs

    def describe(self) -> list[str]:
        lines = ["# mesh: " + ", ".join(f"{k}={v}" for k, v in self.mesh.shape.items())
                 + f" over {self.mesh.devices.size} {self.mesh.devices.flat[0].platform} "
                 "device(s)"]
        for k, name in enumerate(self.params):
            spec = self.specs.get(k, self._all)
            if spec is not None:
                lines.append(f"#   {name}: {_spec_text(spec)}")
        lines.append(f"# results: {self.out}"
                     + (f", out_specs={self.out_specs}" if self.out_specs is not None else ""))
        return lines


def _returned(spec, acc=None) -> list[int]:
    acc = [] if acc is None else acc
    if spec[0] == "tuple":
        for s in spec[1]:
            _returned(s, acc)
    elif spec[0] == "select":
        for s in spec[2:]:
            _returned(s, acc)
    elif spec[0] not in ("const", "arg"):
        acc.append(spec[1])
    return acc
