import os
import sys

# the verifier after every pass of the pipeline (passes/pipeline.py), not only after the last
os.environ.setdefault("SOLVENT_VERIFY_EACH", "1")

sys.path.insert(0, os.path.dirname(__file__))
import pytest


@pytest.fixture(params=["xla", "interp"])
def backend(request):
    return request.param


# The longest single tests (20-30 s each in CI: subprocess groups, eight simulated devices,
# Numba's simulator) are started first, so that neither worker is left running one of them
# alone at the end of the run. The sort is stable: files keep their order otherwise.
_LONG_FIRST = ("sharding/test_multiprocess.py", "sharding/test_sharding.py",
               "simt/test_simulator_oracle.py")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: not item.nodeid.split("::")[0].endswith(_LONG_FIRST))
