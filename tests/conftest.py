import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import pytest


@pytest.fixture(params=["xla", "interp"])
def backend(request):
    return request.param
