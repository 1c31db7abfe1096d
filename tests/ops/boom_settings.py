"""studio.settings exactly as the environment makes them, plus one URL that raises (tests/ops/boom_urls.py):
a server error on demand for tests/ops/test_production_mode.py."""
from studio.settings import *  # noqa: F401,F403

ROOT_URLCONF = "tests.ops.boom_urls"
