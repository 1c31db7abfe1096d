"""Amounts are strings of ASCII digits with at most two decimals, or JSON integers, wherever a client
sends one (a bet, a match's bets, a table's chip unit and limits, the admin, `studio_user --chips`);
usernames follow Django's username validator; table names are one line of visible text; the CSV
export never hands a spreadsheet a formula, and its numbers stay numbers."""
import csv
import io
import os
from decimal import Decimal

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import RequestFactory

from bets.models import Bet
from studio.money import AMOUNT_EXPECTED, AmountFormField, parse_amount, parse_decimal, parse_whole
from tables.admin import TableAdmin
from tables.models import Table
from tables.services import round_open
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

D = Decimal
REFUSED = ["1e1", "1E+1", "+10", "1_0", "١٠", "10.0000000000", "10.000", 10.0, True, False, "10.", ".5", " ", "", "0x10",
           "NaN", "Infinity", "-10", "10\n", " 10", "10 ", None, [10], {"a": 1}, D("1E+100"), D("NaN"), D("1.005")]
ACCEPTED = [("10", D("10")), ("10.5", D("10.5")), ("10.50", D("10.50")), (10, D("10")), ("007", D("7")), (D("2.50"), D("2.50"))]


@pytest.mark.parametrize("value", REFUSED, ids=repr)
def test_the_amount_parser_refuses_what_is_not_digits_with_two_decimals_or_an_integer(value):
    with pytest.raises(ValueError, match="ASCII digits with at most two decimals"):
        parse_amount(value)


@pytest.mark.parametrize("value,expected", ACCEPTED, ids=repr)
def test_the_amount_parser_takes_digits_with_two_decimals_and_integers(value, expected):
    assert parse_amount(value) == expected


@pytest.mark.parametrize("value", ["١٠", "+10", "-10", " 10", "10 ", "10\n", "10.0", "1e1", "1_0", "0x10", "", "²", 10.0, True,
                                   None, [10], "9" * 41], ids=repr)
def test_the_whole_number_parser_refuses_what_is_not_ascii_digits_or_an_integer(value):
    with pytest.raises(ValueError, match="whole number"):
        parse_whole(value)


@pytest.mark.parametrize("value,expected", [("10", 10), ("007", 7), (10, 10), (-3, -3), ("9" * 20, int("9" * 20))], ids=repr)
def test_the_whole_number_parser_takes_ascii_digits_and_integers(value, expected):
    assert parse_whole(value) == expected


@pytest.mark.parametrize("value", ["٠.٩", "+0.9", " 0.9", "0.9\n", ".9", "0.9000", "9e-1", 0.9, True], ids=repr)
def test_the_decimal_parser_refuses_what_the_amount_parser_refuses_with_its_own_places(value):
    with pytest.raises(ValueError, match="at most 3 decimals"):
        parse_decimal(value, places=3)


def test_the_decimal_parser_takes_its_places():
    assert [parse_decimal(v, places=3) for v in ["0.9", "0.875", 1, D("0.125")]] == [D("0.9"), D("0.875"), D(1), D("0.125")]


@pytest.mark.parametrize("amount", ["1e1", "1E+1", "+10", "1_0", "١٠", "10.0000000000", 10.0, True], ids=repr)
def test_a_bet_and_a_match_bet_refuse_an_odd_amount_with_a_field_error(alice_api, bob_api, dealer, table, amount):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    response = alice_api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": amount}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["fields"] == {"amount": [AMOUNT_EXPECTED]}
    match = alice_api.post("/api/matches/", {}, format="json").json()
    response = alice_api.post(f"/api/matches/{match['id']}/bet/", {"bets": [{"spot": "andar", "amount": amount}]}, format="json")
    assert response.status_code == 400 and response.json()["fields"] == {"bets.0.amount": [AMOUNT_EXPECTED]}, response.content
    assert not Bet.objects.exists()


def test_an_amount_too_large_is_a_field_error_not_an_overflow(alice_api, supervisor_api, dealer, table):
    rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
    for amount in [10**40, "9" * 24, 10**400]:
        response = alice_api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": amount}, format="json")
        assert response.status_code == 400 and list(response.json()["fields"]) == ["amount"], response.content
        response = supervisor_api.patch(f"/api/tables/{table.pk}/", {"max_bet": amount}, format="json")
        assert response.status_code == 400 and list(response.json()["fields"]) == ["max_bet"], response.content


def test_the_usual_amounts_still_place_bets(alice_api, dealer, make_table):
    rnd = round_open(table_id=make_table(chip_unit=D("0.5"), min_bet=D("1")).pk, joker="KS", dealer=dealer)
    for amount, staked in [("10", "10.00"), (10, "10.00"), ("2.50", "2.50"), ("003", "3.00")]:
        response = alice_api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": amount}, format="json")
        assert response.status_code == 201, response.content
        assert response.json()["amount"] == staked
    refused = alice_api.post(f"/api/rounds/{rnd.pk}/bets/", {"spot": "andar", "amount": "2.25"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "chip_unit"


@pytest.mark.parametrize("field", ["chip_unit", "min_bet", "max_bet"])
@pytest.mark.parametrize("value", ["1e1", "+10", "١٠", "10.0000000000", 10.0, True], ids=repr)
def test_a_table_refuses_an_odd_amount_in_its_settings(supervisor_api, table, field, value):
    created = supervisor_api.post("/api/tables/", {"name": "New", field: value}, format="json")
    assert created.status_code == 400 and list(created.json()["fields"]) == [field], created.content
    patched = supervisor_api.patch(f"/api/tables/{table.pk}/", {field: value}, format="json")
    assert patched.status_code == 400 and list(patched.json()["fields"]) == [field], patched.content
    assert Table.objects.count() == 1 and Table.objects.get(pk=table.pk).max_bet == D("500")


def test_a_table_still_takes_its_amounts_as_strings_and_integers(supervisor_api):
    created = supervisor_api.post("/api/tables/", {"name": "New", "chip_unit": "0.50", "min_bet": 5, "max_bet": "100"}, format="json")
    assert created.status_code == 201, created.content
    assert (created.json()["chip_unit"], created.json()["min_bet"], created.json()["max_bet"]) == ("0.50", "5.00", "100.00")


def test_the_admin_amount_field_uses_the_same_parser():
    field = AmountFormField(decimal_places=2)
    assert field.clean("12.50") == D("12.50")
    for value in ["1e1", "١٠", "+10", "1.005", " 10", "10\n"]:
        with pytest.raises(Exception, match="ASCII digits"):
            field.clean(value)


@pytest.mark.parametrize("value", ["١٠", "+10", " 10", "10 ", "10.0", "1e1"], ids=repr)
def test_the_admin_table_form_reads_whole_numbers_and_the_commission_by_the_same_parsers(value):
    form_class = TableAdmin(Table, admin.site).get_form(RequestFactory().get("/"))
    form = form_class(data={"betting_seconds": value, "shift_minutes": value, "deal_interval_ms": value, "commission": value})
    assert {"betting_seconds", "shift_minutes", "deal_interval_ms", "commission"} <= set(form.errors), form.errors
    form = form_class(data={"betting_seconds": "20", "shift_minutes": "30", "deal_interval_ms": "1200", "commission": "0.95"})
    assert not {"betting_seconds", "shift_minutes", "deal_interval_ms", "commission"} & set(form.errors), form.errors


@pytest.mark.parametrize("chips", ["1e3", "+10", "١٠", "10.001", "-5"])
def test_studio_user_refuses_odd_chips(chips):
    with pytest.raises(CommandError, match="--chips"):
        call_command("studio_user", "dora", "--role", "player", "--password", "pw", "--chips", chips, stdout=open(os.devnull, "w"))
    assert not get_user_model().objects.filter(username="dora").exists()


@pytest.mark.parametrize("name", ["bad\x00name", "tab\tname", "new\nline", "=HYPERLINK(1)", "with space", "x" * 151, ""])
def test_studio_user_refuses_a_username_django_would_refuse(name):
    with pytest.raises(CommandError, match="NAME"):
        call_command("studio_user", name, "--role", "player", "--password", "pw", stdout=open(os.devnull, "w"))
    assert not get_user_model().objects.exists()


def test_studio_user_still_takes_the_usual_names():
    for name in ["alice", "dealer.2", "ana-maria", "bob@studio", "zoë"]:
        call_command("studio_user", name, "--role", "player", "--password", "pw", "--chips", "100.50", stdout=open(os.devnull, "w"))
    assert get_user_model().objects.count() == 5


@pytest.mark.parametrize("name", ["Tab\there", "New\nline", "Nul\x00", "Bell\x07", "C\rR", "S\u2028p"], ids=repr)
def test_a_table_name_refuses_control_characters(supervisor_api, table, name):
    created = supervisor_api.post("/api/tables/", {"name": name}, format="json")
    assert created.status_code == 400 and list(created.json()["fields"]) == ["name"], created.content
    patched = supervisor_api.patch(f"/api/tables/{table.pk}/", {"name": name}, format="json")
    assert patched.status_code == 400 and list(patched.json()["fields"]) == ["name"], patched.content
    with pytest.raises(Exception, match="Control characters"):
        Table(name=name).full_clean()  # what the admin's form runs
    assert list(Table.objects.values_list("name", flat=True)) == [table.name]


def test_a_table_name_may_still_be_any_visible_text(supervisor_api):
    for name in ["Lotus", "Salle privée 3", "東京 VIP", "=SUM(1)"]:
        assert supervisor_api.post("/api/tables/", {"name": name}, format="json").status_code == 201


def test_the_export_neutralises_formulas_and_keeps_numbers(supervisor_api, make_table):
    from bets.settlement import round_settle
    from tests.incidents.conftest import close, deal, place

    dealer = get_user_model().objects.create(username="@dealer")  # made before the username rule
    dealer.groups.add(make_user("d2", "dealer").groups.get())
    alice = make_user("alice", "player", chips=1000)
    tables = [make_table(name=name) for name in ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "Plain"]]
    for table in tables:
        rnd = round_open(table_id=table.pk, joker="KS", dealer=dealer)
        place(alice, rnd, "bahar", 20)
        close(rnd, dealer)
        deal(rnd, dealer, ["KH"])  # Andar wins: the house keeps 20
        assert round_settle(round_id=rnd.pk)
    rows = list(csv.reader(io.StringIO(b"".join(supervisor_api.get("/api/rounds/export.csv").streaming_content).decode())))
    header, body = rows[0], rows[1:]
    names = [r[header.index("table")] for r in body]
    assert names == ["Plain", "'@SUM(A1)", "'-2+3", "'+1+1", "'=HYPERLINK(\"http://x\")"]
    assert {r[header.index("dealer")] for r in body} == {"'@dealer"}
    assert {(r[header.index("staked")], r[header.index("paid")], r[header.index("house_result")]) for r in body} == {("20.00", "0.00", "20.00")}


def test_a_negative_amount_stays_a_number_in_the_export():
    from incidents.api import csv_cell

    assert [csv_cell(v) for v in ["-40.00", "-5", 7, "-", "-x", "\tx", "\rx", "=1", "a=1"]] == \
        ["-40.00", "-5", 7, "'-", "'-x", "'\tx", "'\rx", "'=1", "a=1"]


def test_a_table_may_not_take_a_match_currency_or_a_control_character(supervisor_api, table):
    for currency in ["M1", "M42", "CH\x07IPS"]:
        response = supervisor_api.post("/api/tables/", {"name": f"T {currency!r}", "currency": currency}, format="json")
        assert response.status_code == 400 and list(response.json()["fields"]) == ["currency"], response.content
        response = supervisor_api.patch(f"/api/tables/{table.pk}/", {"currency": currency}, format="json")
        assert response.status_code == 400, response.content
    assert supervisor_api.post("/api/tables/", {"name": "Euro", "currency": "EUR"}, format="json").status_code == 201
    assert supervisor_api.post("/api/tables/", {"name": "Marks", "currency": "MARK"}, format="json").status_code == 201
