"""censored_resources' test files whose tests run the simulation loop (``loops.simulate``, 43 CPU-s to compile
on an empty cache) get it from ``censored_simulate`` (tests/conftest.py): compiled by one pytest-xdist worker,
loaded from numba's cache by the other, not compiled by both at once."""

import pytest

# the files here that run loops.simulate (tests/test_runner.py asks for the fixture itself)
SIMULATING_FILES = {"test_statistical.py", "test_reference_claim.py"}


@pytest.fixture(autouse=True)
def _simulate_compiled_once(request):
    if request.node.path.name in SIMULATING_FILES:
        request.getfixturevalue("censored_simulate")
