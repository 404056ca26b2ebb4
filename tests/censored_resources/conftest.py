"""censored_resources' test files whose tests run the simulation loop (``loops.simulate``, 43 CPU-s to compile
on an empty cache) get it from ``censored_simulate`` (tests/conftest.py): compiled by one pytest-xdist worker,
loaded from numba's cache by the other, not compiled by both at once."""

import pytest
from run_order import KERNEL_SHARERS

# the files here that run loops.simulate, from the one list of them (tests/run_order.py, which also hands them out
# first and last); tests/test_runner.py asks for the fixture itself
SIMULATING_FILES = {name.rsplit("/", 1)[1] for name in KERNEL_SHARERS["censored_simulate"]
                    if name.startswith("tests/censored_resources/")}


@pytest.fixture(autouse=True)
def _simulate_compiled_once(request):
    # in those files the tests that run the loop are the slow ones (its compile is what makes them slow); the
    # others, in the fast loop, must not compile it
    if request.node.path.name in SIMULATING_FILES and request.node.get_closest_marker("slow"):
        request.getfixturevalue("censored_simulate")
