"""The server's log lines leave from a writer thread (studio.logwriter): a line logged in any thread
reaches the configured handler, with its format, in order, and what is queued at the end is written."""
import atexit
import io
import logging
import threading

from studio.logwriter import write_on_own_thread


def test_lines_from_request_threads_reach_the_handler_in_order():
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.name = "console"
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    foreign = logging.NullHandler()  # not settings.LOGGING's: left on the root
    for old in before:
        root.removeHandler(old)
    root.addHandler(handler)
    root.addHandler(foreign)
    root.setLevel(logging.INFO)
    try:
        listener = write_on_own_thread()
        assert listener is not None and write_on_own_thread() is None  # once
        assert handler not in root.handlers and foreign in root.handlers
        writer = threading.Thread(target=lambda: [logging.getLogger("studio.access").info("GET /x %d", i) for i in range(200)])
        writer.start()
        writer.join()
        logging.getLogger("studio.test").warning("last")
        atexit.unregister(listener.stop)
        listener.stop()  # as at exit: everything queued is written first
        assert stream.getvalue().splitlines() == [f"studio.access GET /x {i}" for i in range(200)] + ["studio.test last"]
    finally:
        for current in list(root.handlers):
            root.removeHandler(current)
        for old in before:
            root.addHandler(old)
        root.setLevel(level)
