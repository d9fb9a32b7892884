"""prune_tapes drops a loop's taped rows that no reverse step reads: the dropped update is
erased, so right after it no value of the gradient program keeps a use by an op outside
the program (a "ghost" user makes the use-count conditions of later passes refuse, as
dce's did before it erased)."""
import numpy as np
import pytest

import solvent
import solvent.autodiff.api as api
import solvent.autodiff.transform as transform
from solvent import corpus


@pytest.mark.parametrize("name", ["kmeans", "polar_helper", "trmm"])
def test_pruned_tape_rows_leave_no_user_behind(name, monkeypatch):
    k = next(k for k in corpus.vectorized() if k.name == name)
    args = tuple(k.make_args(min(k.sizes), np.random.default_rng(0)))
    wrt = tuple(i for i, a in enumerate(args)
                if (isinstance(a, np.ndarray) and a.dtype.kind == "f") or isinstance(a, float))
    seen = []
    prune = transform.prune_tapes

    def checked(g, taped):
        changed = prune(g, taped)
        inside = {id(op) for op in g.walk()}
        ghosts = [(op.name, u.name) for op in g.walk() for v in op.operands
                  for u, _ in v.live_uses() if id(u) not in inside]
        seen.append((changed, ghosts))
        return changed

    monkeypatch.setattr(transform, "prune_tapes", checked)
    api._VJP_CACHES.pop(k.func, None)   # a gradient compiled by an earlier test is reused
    solvent.vjp(k.func, *[a.copy() if isinstance(a, np.ndarray) else a for a in args],
                argnums=wrt, optimize=False)
    assert any(changed for changed, _ in seen), "expected prune_tapes to drop a tape row"
    assert all(not ghosts for _, ghosts in seen), seen
