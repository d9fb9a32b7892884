import os
import sys

# the verifier after every pass of the pipeline (passes/pipeline.py), not only after the last
os.environ.setdefault("SOLVENT_VERIFY_EACH", "1")

sys.path.insert(0, os.path.dirname(__file__))
import pytest


@pytest.fixture(params=["xla", "interp"])
def backend(request):
    return request.param
