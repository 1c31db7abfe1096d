"""The supervisor console's Reports view in a real Chromium: opened from the console's link, it
draws GGR by day, hold observed against theoretical per bet type and rounds per hour by dealer as
inline SVG, with the figures in tables, regroups on a filter, links the same report as CSV, and
passes axe."""
from datetime import timedelta

import pytest
from django.utils import timezone

from ..reports.conftest import play, quick_player

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def expect(locator):
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


@pytest.fixture
def played(make_table, dealer, supervisor):
    alice, bob = quick_player("alice", 5000), quick_player("bob", 5000)
    salon, garden = make_table(name="Salon 1", betting_seconds=600), make_table(name="Garden", betting_seconds=600)
    yesterday = timezone.now() - timedelta(days=1)
    play(salon, dealer, [(alice, "andar", 100), (bob, "bahar", 50), (bob, "count_1_5", 20)], ["2C", "3D", "KH"], opened_at=yesterday)
    play(salon, dealer, [(alice, "andar", 100), (bob, "first_andar", 10)], ["2C", "KD"])
    play(garden, supervisor, [(alice, "bahar", 40), (bob, "first_three", 10)], ["QS", "JS", "KD"])
    return salon, garden


def test_the_reports_view_draws_its_charts_and_passes_axe(page, live_server, login, shot, accessible, played):
    page.set_viewport_size({"width": 1440, "height": 900})
    login(page, live_server.url, "supervisor")
    reports = []
    page.on("request", lambda r: reports.append(r.url) if "/api/reports/" in r.url else None)
    page.goto(live_server.url + "/supervisor/")
    expect(page.locator(".tile").first).to_be_visible()  # the floor is drawn
    page.wait_for_load_state("networkidle")  # and everything it asks for on load has been asked
    assert reports == [], "the console reads no report before it is asked for"
    page.get_by_role("link", name="Reports").click()

    section = page.locator("#reports")
    expect(section.locator("[data-preset=today]")).to_have_attribute("aria-pressed", "true")  # reports open on today
    expect(section.locator("#r-status")).to_contain_text("2 rounds")
    expect(section.locator("#chart-ggr svg[role=img] rect")).to_have_count(1)
    section.locator("[data-preset=week]").click()  # a preset reads its period at once
    expect(section.locator("[data-preset=week]")).to_have_attribute("aria-pressed", "true")
    expect(section.locator("[data-preset=today]")).to_have_attribute("aria-pressed", "false")
    expect(section.locator("#chart-ggr svg[role=img] rect")).to_have_count(2)  # yesterday and today
    expect(section.locator("#chart-hold svg[role=img] rect").first).to_be_visible()
    expect(section.locator("#chart-pace svg[role=img] rect")).to_have_count(2)  # the dealer and the supervisor
    expect(section.locator("#report-table tfoot")).to_contain_text("330.00")  # every stake
    expect(section.locator("#report-spots tbody tr").first).to_contain_text("Andar")
    andar = section.locator("#report-spots tbody tr", has_text="Andar").first
    expect(andar).to_contain_text("2.15 %")  # the theoretical hold of Andar at 0.9:1
    expect(section.locator("#r-status")).to_contain_text("3 rounds")
    section.scroll_into_view_if_needed()
    accessible(page, "the reports view")
    shot(page, "reports-1440x900")

    section.locator("#r-group").select_option("table")
    section.locator("#r-show").click()
    expect(section.locator("#report-table tbody")).to_contain_text("Salon 1")
    expect(section.locator("#report-table tbody")).to_contain_text("Garden")
    assert "format=csv" in section.locator("#r-csv").get_attribute("href")
    assert "group=table" in section.locator("#r-csv").get_attribute("href")
    accessible(page, "the reports view grouped by table")


CHART_FIT = """fig => {
  const box = fig.querySelector("svg").getBoundingClientRect(), outer = fig.getBoundingClientRect();
  const inside = (r) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
  const shapes = [...fig.querySelectorAll("svg rect, svg text")];
  return {
    svgInFigure: box.left >= outer.left && box.right <= outer.right,
    shapes: shapes.length,
    outside: shapes.filter((el) => !inside(el.getBoundingClientRect())).map((el) => el.outerHTML.slice(0, 120)),
    smallest: Math.min(...[...fig.querySelectorAll("svg text")].map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)),
  };
}"""


def test_the_charts_are_legible_and_nothing_is_cut_off_on_a_laptop(page, live_server, login, shot, accessible, played):
    """At 1366x768 (three charts side by side) every bar and label lies inside its chart, and no text
    is drawn smaller than 12 px; the same after the window narrows (the charts are drawn again)."""
    page.set_viewport_size({"width": 1366, "height": 768})
    login(page, live_server.url, "supervisor")
    page.goto(live_server.url + "/supervisor/#reports")
    section = page.locator("#reports")
    section.locator("[data-preset=week]").click()
    expect(section.locator("#chart-pace svg[role=img] rect")).to_have_count(2)
    expect(section.locator("#r-status")).to_contain_text("3 rounds")
    for size in ({"width": 1366, "height": 768}, {"width": 900, "height": 768}):
        page.set_viewport_size(size)
        for chart in ("#chart-ggr", "#chart-hold", "#chart-pace"):
            figure = section.locator(chart)
            expect(figure.locator("svg")).to_have_attribute("width", str(int(figure.locator(".chart-body").evaluate("el => Math.floor(el.getBoundingClientRect().width)"))))
            fit = figure.evaluate(CHART_FIT)
            assert fit["svgInFigure"] and fit["shapes"] > 2 and fit["outside"] == [], (chart, size, fit)
            assert fit["smallest"] >= 12, (chart, size, fit)
    page.set_viewport_size({"width": 1366, "height": 768})
    section.locator(".report-charts").scroll_into_view_if_needed()
    accessible(page, "the reports at 1366x768")
    shot(page, "reports-1366x768", full_page=False)
