"""The pages' weights as a visitor's browser gets them: each page loaded cold (a new browser context,
no cache) in Debian's Chromium, every response counted until the network is idle, uncompressed
(what the browser parses) and as sent (after the server's compression), with the number of
requests and any request to another host. The budget is 150 KB uncompressed a page (docs/PAGES.md);
each page's browser test enforces it, this prints the figures that page states.

Against a running studio with the demo's data (`make run`, or `make demo` beside a server):

    .venv/bin/python scripts/page_weights.py [--url http://127.0.0.1:8000] [--password demo-pass]

It logs in through /login/ as the demo's dealer, supervisor and alice. Exit status 1 when a page
is over budget or asks another host. `--shots DIR` also saves each page as a desktop and a phone
would show it (DIR/<page>-desktop.png, -phone.png), to look at.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

BUDGET = 150_000  # bytes, uncompressed, a page's cold load
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
DETAIL = int(os.environ.get("DETAIL", "6"))
VIEWPORT = {"width": 1366, "height": 768}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


def pages(api) -> list[tuple[str, str | None, str]]:
    """(name, who logs in or None, path): every page a person opens, on the demo's data."""
    tables = api("/api/lobby/")
    person = next(t for t in tables if t["driver"] == "person")
    virtual = next((t for t in tables if t["driver"] == "virtual"), None)
    settled = [r for t in tables for r in api(f"/api/tables/{t['id']}/rounds/?last=20") if r["status"] == "settled"]
    found = [
        ("Lobby (a visitor)", None, "/play/"),
        ("Player page", "alice", f"/play/tables/{person['id']}/"),
        *([("Player page, virtual", "alice", f"/play/tables/{virtual['id']}/")] if virtual else []),
        ("Table rules", "alice", f"/play/tables/{person['id']}/rules/"),
        ("Matches", "alice", "/matches/"),
        ("Dealer console", "dealer", "/console/"),
        ("Supervisor console", "supervisor", "/supervisor/"),
        ("Operators", "supervisor", "/supervisor/operators/"),
    ]
    if settled:  # the virtual dealer's tables play rounds by themselves; the longest recent one
        longest = max(settled, key=lambda r: r["cards_dealt"])
        found.append((f"Round page, {longest['cards_dealt']} cards", "supervisor", f"/rounds/{longest['id']}/"))
    return found


def signed_in(browser, base: str, who: str | None, password: str, **context_args):
    context = browser.new_context(**context_args)
    page = context.new_page()
    if who:
        page.goto(f"{base}/login/")
        page.fill("input[name=username]", who)
        page.fill("input[name=password]", password)
        with page.expect_navigation():
            page.click("form:has(input[name=password]) button[type=submit]")
        if "/login/" in page.url:
            raise SystemExit(f"logging in as {who} failed")
    return context, page


def screenshots(browser, base: str, who: str | None, password: str, path: str, name: Path) -> None:
    for size, context_args in (("desktop", {"viewport": VIEWPORT}), ("phone", PHONE)):
        context, page = signed_in(browser, base, who, password, **context_args)
        page.goto(base + path, wait_until="networkidle")
        page.wait_for_timeout(1000)
        page.screenshot(path=f"{name}-{size}.png", full_page=True)
        context.close()


def measure(browser, base: str, who: str | None, password: str, path: str) -> dict:
    context, page = signed_in(browser, base, who, password, viewport=VIEWPORT)
    page.route("**/*", lambda route: route.continue_())  # with routing on, Chromium uses no HTTP cache
    seen: list[tuple[str, int, int]] = []  # url, uncompressed, as sent

    def finished(request):
        response = request.response()
        if request.resource_type == "websocket" or response is None or not response.ok:
            return
        try:
            body = response.body()
        except Exception:  # the page let it go (a favicon, a request cut short): nothing it kept
            return
        seen.append((request.url, len(body), request.sizes()["responseBodySize"]))

    page.on("requestfinished", finished)
    page.goto(base + path, wait_until="networkidle")
    page.wait_for_timeout(1000)  # what the page's modules ask for once they run
    others = [url for url, _plain, _sent in seen if not url.startswith(base)]
    plain, sent = sum(p for _url, p, _s in seen), sum(s for _url, _p, s in seen)
    context.close()
    biggest = sorted(seen, key=lambda row: -row[1])[:DETAIL]
    return {"requests": len(seen), "plain": plain, "sent": sent, "others": others, "biggest": biggest}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--password", default="demo-pass")
    parser.add_argument("--detail", action="store_true", help="list each page's biggest responses")
    parser.add_argument("--shots", type=Path, help="a folder for each page's screenshots, desktop and phone")
    args = parser.parse_args()
    base = args.url.rstrip("/")
    host = urlsplit(base).netloc
    failed = False
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        api_context = p.request.new_context(base_url=base)
        api = lambda path: api_context.get(path).json()  # noqa: E731
        print(f"{'page':<22} {'requests':>8} {'uncompressed':>13} {'as sent':>9}  budget {BUDGET // 1000} KB")
        for name, who, path in pages(api):
            m = measure(browser, base, who, args.password, path)
            over = m["plain"] >= BUDGET or m["others"]
            failed |= bool(over)
            print(f"{name:<22} {m['requests']:>8} {m['plain'] / 1000:>10.1f} KB {m['sent'] / 1000:>6.1f} KB  "
                  f"{'OVER' if m['plain'] >= BUDGET else 'ok'}{' other hosts: ' + ', '.join(m['others']) if m['others'] else ''}")
            if args.shots:
                args.shots.mkdir(parents=True, exist_ok=True)
                slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
                screenshots(browser, base, who, args.password, path, args.shots / slug)
            if args.detail:
                for url, size, _sent in m["biggest"]:
                    print(f"    {size / 1000:>7.1f} KB  {url.removeprefix(base)}")
        print(f"(cold loads at {VIEWPORT['width']}x{VIEWPORT['height']} from {host}; the player page as a player, "
              "the consoles as their roles)")
        browser.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
