"""`make test` installs the browser's packages while the first tests run, holding a lock on a file
(Makefile, `flock`) until it is done; the browser tests wait for that lock before they start Chromium
(tests/browser/conftest.py). Here a real `flock` process holds the lock as the Makefile's does."""
import os
import subprocess
import threading
import time

from tests.browser.conftest import _wait_for_the_browser_install


def _blocked_on_a_lock(pid: int) -> bool:
    """/proc/locks lists a lock a process waits for with `->` before its kind (FLOCK), then the
    process id."""
    with open("/proc/locks") as locks:
        return any(fields[1] == "->" and fields[5] == str(pid) for fields in map(str.split, locks) if len(fields) > 5)


def test_the_browser_tests_wait_until_the_installer_lets_go(tmp_path, monkeypatch):
    lock, released = tmp_path / "browser-install.lock", tmp_path / "released"
    monkeypatch.setenv("BROWSER_LOCK", str(lock))
    installer = subprocess.Popen(["flock", str(lock), "sh", "-c", f"echo held; read line; touch {released}"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert installer.stdout.readline() == "held\n"
        saw: list[bool] = []
        waiter = threading.Thread(target=lambda: (_wait_for_the_browser_install(), saw.append(released.exists())))
        waiter.start()
        deadline = time.monotonic() + 30
        while waiter.is_alive() and not _blocked_on_a_lock(os.getpid()) and time.monotonic() < deadline:
            waiter.join(0.01)
        assert _blocked_on_a_lock(os.getpid()), "the browser tests did not wait for the installer's lock"
        installer.communicate("done\n", timeout=30)  # the installer is done
        waiter.join(30)
        assert saw == [True]  # it went on only once the installer had finished
    finally:
        installer.kill()
        installer.wait()


def test_without_a_make_test_installer_nothing_waits(tmp_path, monkeypatch):
    monkeypatch.delenv("BROWSER_LOCK", raising=False)
    _wait_for_the_browser_install()
    monkeypatch.setenv("BROWSER_LOCK", str(tmp_path / "never-made.lock"))
    _wait_for_the_browser_install()
