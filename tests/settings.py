"""The settings the tests run on, in their own process and in the servers and workers they start:
studio/settings.py exactly as the environment makes them, with three changes for tests.

- A fast password hasher. PBKDF2's million iterations (0.3 s a hash on the CI machine) are the
  point in production and only a cost here: the tests make users by the hundred, and every refused
  token request hashes a password too (Django hashes one for an unknown user, so that the time taken
  tells nothing). Tests of what a deployed command or server does with passwords run on
  studio.settings itself.
- The PostgreSQL backend whose flush (after each transactional test) deletes rows instead of
  truncating tables (tests/postgresql/base.py).
- Tasks in Celery's eager mode (`task_always_eager`): a task sent after a commit is applied right
  away in the sender's thread (Celery's `apply()`), its eta ignored: the settlement follows the
  round's last card, and a timed task that is not due yet (close betting at the deadline, a wallet
  transaction's retry) does nothing, so a test moves time itself (the sweeps, the services). Tests
  of the real thing run a Celery worker on the broker (tests.servers.celery_process, with
  TEST_TASKS=broker, and the `broker_tasks` fixture for the test's own process).
"""
import os

from studio.settings import *  # noqa: F401,F403
from studio.settings import DATABASES

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DATABASES["default"]["ENGINE"] = "tests.postgresql"
CELERY_TASK_ALWAYS_EAGER = os.environ.get("TEST_TASKS", "eager") == "eager"
