import pytest


@pytest.fixture(params=["xla", "interp"])
def backend(request):
    return request.param
