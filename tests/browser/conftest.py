"""Browser tests: a real Chromium (Debian's, at /usr/bin/chromium) driven by Playwright's sync API
against pytest-django's `live_server` (a threaded WSGI server on a free port, over the transactional
test database).

Fixtures (mark your tests `@pytest.mark.browser`):

- `browser`: one headless Chromium for all the tests of this package (package scope, not session:
  see its docstring). Debian's /usr/bin/chromium (CHROMIUM_PATH overrides), never a Playwright
  download (`make test` installs it, `make browser` alone). Missing Chromium or Playwright: the
  tests fail, naming what is missing.
- `page`: a new page per test, 1280x800, in a context the package's tests share one after the other
  (`desktop_context`): after each test its cookies, storage, permissions and offline switch are
  cleared, so a test starts signed out with nothing stored, as in a new context, at half the cost.
  Its pages ask for reduced motion (`_shared_context` says why).
- `phone_page`: the same at a phone's size (390x844, touch, mobile user agent; `phone_context`).
- `login`: the function `login(page, server_url, username)`: signs the page's browser context in
  as that user, with a session made in the test process (Django's test client's `force_login`) on
  the database every test server reads, and its cookie set on the context: no page is loaded and
  no password hashed. Also importable from tests.browser.conftest.
- `login_by_form`: the function `login_by_form(page, server_url, username, password, then="")`:
  logs in through the /login/ form as a person does (to `then`, or where the site sends that user;
  a refused login raises an AssertionError with the form's message). tests/browser/test_languages.py
  and test_game_info.py drive the form this way; the other tests need only the session.
- `shot`: the function `shot(page, name, full_page=True)`: saves a screenshot (animations
  finished) to test-artifacts/<test name>/<name>.jpg (JPEG: Chromium encodes it in a third of a
  PNG's time, and the suite takes over a hundred) (git-ignored; CI keeps the folder as an
  artifact) and returns its path. `full_page=False`: only what the screen shows.
- `page.js_errors`: the uncaught JavaScript errors of that page so far (assert it stays []).
- `page.csp_violations`: the Content-Security-Policy violations the page reported (stays []).
- `accessible`: the function `accessible(page, what)`: runs axe-core (axe-playwright-python's bundled
  copy, through page.evaluate, which the CSP does not block) on the page as it is now, with the
  experimental `label-content-name-mismatch` rule on too, and fails listing every serious or
  critical violation. Call it in each state a test shows.

Example:

    @pytest.mark.browser
    def test_dealer_sees_the_console(page, live_server, dealer, login, shot):
        login(page, live_server.url, "dealer")   # tests/conftest.py personas
        page.goto(live_server.url + "/console/")
        shot(page, "console")

Using `live_server` makes the test transactional: on_commit callbacks (settlement, broadcasts) run.
"""
from __future__ import annotations

import fcntl
import os
import re
import shutil
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from tests.browser.studio_api import Api
from tests.servers import studio_server

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--process-per-site",  # one renderer per site in a context: the tests' pages join the warm one (_shared_context)
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PHONE_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/124.0 Mobile Safari/537.36")
TIMEOUT_MS = 10_000
SHOT_QUALITY = 85  # JPEG quality of the screenshots: text stays crisp to read
# What a test may leave in a shared context's storage, cleared after it (cookies are cleared apart).
FORGOTTEN_STORAGE = "local_storage,session_storage,indexeddb,cache_storage,service_workers,file_systems"


def _unavailable(why: str):
    pytest.fail(f"the browser tests cannot run: {why} (`make browser` installs Debian's Chromium)", pytrace=False)


@pytest.fixture(scope="package")
def browser():
    """Headless Chromium, shared by the tests of tests/browser.

    Package scope, not session scope, on purpose: while Playwright's sync API is started, an
    asyncio event loop is *running* in the main thread. That breaks every async test (pytest-asyncio
    cannot run its loop inside a running one) and makes Django refuse synchronous database calls
    from the test body (SynchronousOnlyOperation: "You cannot call this from an async context").
    So Playwright lives only while the browser tests run, and for that time only
    DJANGO_ALLOW_ASYNC_UNSAFE tells Django that the test thread's sync ORM calls are fine (they
    are: the loop belongs to Playwright, our code never runs inside it). The rest of the suite
    keeps Django's check.
    """
    _wait_for_the_browser_install()
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        _unavailable(f"no Chromium at {CHROMIUM}" + _install_log())
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright python package is not installed")
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    except Exception as exc:  # a broken install: say so instead of erroring in every test
        playwright.stop()
        _restore_env(previous)
        _unavailable(f"Chromium did not start: {exc}")
    try:
        yield chromium
    finally:
        chromium.close()
        playwright.stop()
        _restore_env(previous)


def _wait_for_the_browser_install() -> None:
    """`make test` installs the browser's packages while the first tests run, holding a lock on the
    file BROWSER_LOCK names until it is done (Makefile): wait for it (a shared lock is granted once
    the installer's is gone)."""
    lock = os.environ.get("BROWSER_LOCK")
    if lock and os.path.exists(lock):
        with open(lock) as held:
            fcntl.flock(held, fcntl.LOCK_SH)


def _install_log() -> str:
    log = os.environ.get("BROWSER_LOG")
    text = Path(log).read_text(errors="replace").strip() if log and os.path.isfile(log) else ""
    return f" (make browser said: {text[-500:]})" if text else ""


def _restore_env(previous):
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(autouse=True)
def _plain_static_names(settings):
    """Pages under live_server link the static files by their plain names: its static handler serves
    the apps' folders and reads no manifest, so the hashed names of the real server would be 404s
    (tests that start the real server, tests/servers.py, get the hashed names)."""
    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}


def _shared_context(browser, live_server, **context_args):
    """A context that the package's tests open their pages in, one after the other: a test's page is
    new, and the context keeps nothing of the test before it (`_close`) but its HTTP cache. Its pages
    ask for reduced motion, which every page honours (base.css and each page's own rules): the tests
    check what a page says and does, not how it moves, and the motion cost Chromium about a
    fourteenth of its CPU over the browser tests; a test of a motion turns it on for its page
    (`page.emulate_media(reduced_motion="no-preference")`), and the screenshots are taken with
    animations stopped either way. A page of its own, open on the test servers' host (127.0.0.1,
    whichever port) while the tests run, keeps that host's renderer process alive, and every test's
    page joins it (`--process-per-site`) with the scripts it has compiled: opening and loading a page
    costs about 0.6 s of the machine's CPU against 1.15 s in a new context (eight player pages each
    way, on the 2-core test machine), and the browser tests open some seventy."""
    context = browser.new_context(reduced_motion="reduce", **context_args)
    context.set_default_timeout(TIMEOUT_MS)
    keeper = context.new_page()
    keeper.goto(live_server.url + "/static/css/base.css")  # a file: no view, no database
    return context


@pytest.fixture(scope="package")
def desktop_context(browser, live_server):
    """The desktop-sized context of `page` (`_shared_context`)."""
    context = _shared_context(browser, live_server, viewport=DESKTOP)
    yield context
    context.close()


@pytest.fixture(scope="package")
def phone_context(browser, live_server):
    """The context of `phone_page`: a phone's size, touch, a mobile user agent."""
    context = _shared_context(browser, live_server, viewport=PHONE, device_scale_factor=2, is_mobile=True,
                              has_touch=True, user_agent=PHONE_UA)
    yield context
    context.close()


def _new_page(context):
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors  # uncaught JavaScript errors, for tests that want to assert none happened
    violations: list[str] = []
    page.on("console", lambda msg: violations.append(msg.text)
            if msg.type == "error" and "Content Security Policy" in msg.text else None)
    page.csp_violations = violations
    asked: set = set()  # the page's requests not yet answered
    page.on("request", lambda request: asked.add(request))
    page.on("requestfinished", lambda request: asked.discard(request))
    page.on("requestfailed", lambda request: asked.discard(request))
    page.unanswered = asked
    origins: set[str] = set()  # where the page has been, whose storage it may have written
    page.on("framenavigated", lambda frame: origins.add(_origin(frame.url)) if frame.url.startswith("http") else None)
    page.origins = origins
    return page


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _close(page) -> None:
    """Close the page once the server has answered what it asked (a page refreshes its figures after
    an action, and a test may end on the action): a request still being served when the test's
    database is emptied would race the emptying (its locks holding it up, or its rows outliving the
    test). A request that never ends (none of the pages makes one) is given up after 10 s.
    Then the shared context forgets the test: the storage of every origin the page visited
    (Chromium's DevTools protocol, Storage.clearDataForOrigin), its cookies, the permissions granted
    and the network switched back on."""
    deadline = time.monotonic() + 10
    while page.unanswered and time.monotonic() < deadline:
        try:
            page.wait_for_event("requestfinished", timeout=500)
        except PlaywrightTimeoutError:
            pass
    context = page.context
    if page.origins:
        devtools = context.new_cdp_session(page)
        for origin in page.origins:
            devtools.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": FORGOTTEN_STORAGE})
        devtools.detach()
    page.close()
    context.clear_cookies()
    context.clear_permissions()
    context.set_offline(False)


@pytest.fixture
def page(desktop_context):
    page = _new_page(desktop_context)
    yield page
    _close(page)


@pytest.fixture
def phone_page(phone_context):
    page = _new_page(phone_context)
    yield page
    _close(page)


def login(page, server_url: str, username: str) -> None:
    """Sign the page's context in as `username` (see the module's docstring)."""
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": server_url}])


def login_by_form(page, server_url: str, username: str, password: str, then: str = "") -> None:
    """Log in through the /login/ form (the session cookie lands in the page's context)."""
    page.goto(f"{server_url}/login/" + (f"?next={then}" if then else ""))
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("form:has(input[name=password]) button[type=submit]")
    if "/login/" in page.url:
        raise AssertionError(f"logging in as {username!r} failed: {page.locator('[role=alert]').all_inner_texts()}")


@pytest.fixture(name="login")
def login_fixture():
    return login


@pytest.fixture(name="login_by_form")
def login_by_form_fixture():
    return login_by_form


SERIOUS = {"serious", "critical"}
# axe-core is put into a document once (half a megabyte of script to compile): a later check of the
# same document runs the copy already there.
AXE = Axe()
AXE_THERE = Axe(axe_script="undefined")
# Once the page's transitions and finite animations have ended: is axe-core in the document already?
# axe-core's rules as they come, plus `label-content-name-mismatch`, which axe tags "experimental" and
# leaves off: a control's accessible name contains its visible text (WCAG 2.5.3, Label in Name), so
# that a voice-control user who says what they see ("click Andar") reaches it.
AXE_OPTIONS = {"resultTypes": ["violations"], "rules": {"label-content-name-mismatch": {"enabled": True}}}
SETTLED_AXE_THERE = """Promise.allSettled(document.getAnimations()
    .filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity).map(a => a.finished))
    .then(() => typeof axe !== "undefined")"""


def wait_until(page, predicate, what: str, timeout: float = 30.0) -> None:
    """Poll `predicate` until it holds, failing with `what` after `timeout` seconds. It waits
    through the page, since Playwright's sync API runs a test's handlers (routes, requests) only
    inside its own calls."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        page.wait_for_timeout(50)


def accessible(page, what: str = "page") -> None:
    """axe-core on the page as it is now, once its transitions and finite animations have ended (a
    button whose colour is still fading in has, for that moment, the contrast of neither colour): no
    serious or critical violation (WCAG 2.x A and AA rules, axe's best practices and
    `label-content-name-mismatch`: AXE_OPTIONS), each listed with its nodes when there is one."""
    axe = AXE_THERE if page.evaluate(SETTLED_AXE_THERE) else AXE
    results = axe.run(page, options=AXE_OPTIONS).response
    bad = [v for v in results["violations"] if v.get("impact") in SERIOUS]
    assert not bad, f"axe on {what}:\n" + "\n".join(
        f"- {v['id']} ({v['impact']}): {v['help']}; " + "; ".join(n["target"][0] if isinstance(n["target"][0], str)
                                                               else str(n["target"]) for n in v["nodes"][:5])
        for v in bad)
    assert not page.csp_violations, f"CSP violations on {what}: {page.csp_violations}"


@pytest.fixture(name="accessible")
def accessible_fixture():
    return accessible


def artifacts_dir(request) -> Path:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name).strip("-")
    return Path(request.config.rootpath) / "test-artifacts" / name


@pytest.fixture
def shot(request):
    folder = artifacts_dir(request)

    def take(page, name: str, *, full_page: bool = True) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.jpg"
        page.screenshot(path=str(path), full_page=full_page, animations="disabled", type="jpeg", quality=SHOT_QUALITY)
        return path

    return take


@pytest.fixture
def patient_waits(request):
    """A server, browser pages and the test share a small machine (with other suites): give
    Playwright's waits (expect: 5 s, actions and screenshots: 10 s) more room. A page that never
    shows what is expected still fails, later. Modules that drive a server of their own use it."""
    previous = getattr(expect, "_timeout", None)
    expect.set_options(timeout=15_000)
    for name in ("page", "phone_page"):
        if name in request.fixturenames:
            request.getfixturevalue(name).set_default_timeout(30_000)
    yield
    expect.set_options(timeout=previous)


@pytest.fixture(scope="module")
def studio_url(django_db_setup, request):
    """The studio served by uvicorn on the test database, for the tests of one module (its logs in
    test-artifacts/<module>-server). Its connections sit idle between requests, so the flush after
    each test goes through."""
    module = request.module.__name__.rsplit(".", 1)[-1]
    folder = Path(request.config.rootpath) / "test-artifacts" / f"{module}-server"
    with studio_server(log_dir=folder, name=module.removeprefix("test_").replace("_", "")) as url:
        yield url


@pytest.fixture
def staff(studio_url, dealer):
    """The dealer's calls to the module's server (tests/browser/studio_api.py)."""
    api = Api(studio_url, dealer)
    yield api
    api.http.close()


@pytest.fixture
def player(studio_url, alice):
    """Alice's calls to the module's server."""
    api = Api(studio_url, alice)
    yield api
    api.http.close()

