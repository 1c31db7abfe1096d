"""Who sees a table, and who drives it: two rules, each in one place.

Seeing: a public table is anyone's; a private table (a friends' match) is seen only by the match's
players and by supervisors. The API, the pages and the stream all ask `visible_tables`/`table_or_404`
/`round_or_404`/`match_or_404`, and everyone else is told there is no such table, round or match (404).

Driving: a table is driven by a person (a dealer at the console), by the virtual dealer, or by a
match (the virtual dealer deals it while the match runs; the match closes betting early once every
player is done). A round keeps the driver its table had when it opened: a round with a fairness
commitment is the virtual dealer's, a round whose settings name a match is the match's. Opening,
closing betting early, dealing and correcting by anyone but the driver is refused (409
`virtual_table`). The clock (the betting timer, the sweep) closes betting once it is due, at any
table; supervisors pause, resume and void any round through incidents. Which person drives a
person's round (the dealer on shift at its table, or its own dealer while no one is; supervisors)
is tables.shifts.require_round_dealer's rule; resuming, voiding and correcting a round are a
supervisor's alone (`require_supervisor`).
"""
from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet

from studio.errors import NotAllowed, NotFound, WrongMoment
from studio.roles import SUPERVISOR, has_role

from .models import Match, MatchPlayer, Round, Table

PERSON, VIRTUAL, MATCH = "person", "virtual", "match"
DRIVERS = (PERSON, VIRTUAL, MATCH)
NOT_FOUND = {"table": "No such table.", "round": "No such round.", "match": "No such match: join it with its code."}


# --- seeing -------------------------------------------------------------------------------------

def member_of_match_table(user) -> Exists:
    """True for a table whose match has this user among its players."""
    return Exists(MatchPlayer.objects.filter(match__table_id=OuterRef("pk"), user_id=user.pk))


def visible_tables(user) -> QuerySet[Table]:
    rows = Table.objects.all()
    if has_role(user, SUPERVISOR):
        return rows
    if user is None or not user.is_authenticated:
        return rows.filter(is_private=False)
    return rows.filter(Q(is_private=False) | member_of_match_table(user))


def table_visible(*, table_id: int, user) -> bool:
    return visible_tables(user).filter(pk=table_id).exists()


def table_or_404(*, table_id: int, user) -> Table:
    table = visible_tables(user).filter(pk=table_id).first()
    if table is None:
        raise NotFound(NOT_FOUND["table"], code="not_found")
    return table


def round_or_404(*, round_id: int, user) -> Round:
    rnd = Round.objects.filter(pk=round_id, table__in=visible_tables(user)).first()
    if rnd is None:
        raise NotFound(NOT_FOUND["round"], code="not_found")
    return rnd


def require_round_visible(*, rnd: Round, user) -> None:
    """For a round already read (a bet's context, no query for a public table's round): 404 unless
    the user may see its table. The round's settings say whether its table was private."""
    if (rnd.settings.get("private") or rnd.settings.get("match")) and not table_visible(table_id=rnd.table_id, user=user):
        raise NotFound(NOT_FOUND["round"], code="not_found")


def match_visible(*, match: Match, user) -> bool:
    return table_visible(table_id=match.table_id, user=user)


def match_or_404(*, match_id: int, user) -> Match:
    """A match is seen by whoever sees its table: its players and supervisors."""
    match = Match.objects.select_related("created_by").filter(pk=match_id).first()
    if match is None or not match_visible(match=match, user=user):
        raise NotFound(NOT_FOUND["match"], code="not_found")
    return match


# --- driving ------------------------------------------------------------------------------------

def with_driver(tables: QuerySet[Table]) -> QuerySet[Table]:
    """The tables with what `table_driver` needs read in the same query (a list of tables)."""
    return tables.annotate(has_match=Exists(Match.objects.filter(table_id=OuterRef("pk"))))


def table_driver(table: Table) -> str:
    has_match = getattr(table, "has_match", None)
    if has_match is None:
        has_match = Match.objects.filter(table_id=table.pk).exists()
    if has_match:
        return MATCH
    return VIRTUAL if table.virtual_dealer else PERSON


def round_driver(rnd: Round) -> str:
    if rnd.settings.get("match"):
        return MATCH
    return VIRTUAL if rnd.commitment else PERSON


def _may_drive(driver: str, by: str) -> bool:
    return by == driver or (driver == MATCH and by == VIRTUAL)


def _refuse(driver: str, by: str, doing: str):
    if by != PERSON:
        raise WrongMoment(f"The {by} driver cannot {doing} here (the table's driver: {driver}).", code="wrong_driver",
                               extra={"driver": driver})
    who = "The virtual dealer runs this table" if driver == VIRTUAL else "This table belongs to a match, dealt by the virtual dealer"
    raise WrongMoment(f"{who}: a person cannot {doing}.", code="virtual_table", extra={"driver": driver})


def require_table_driver(*, table: Table, by: str, doing: str) -> None:
    """Opening a round: only the table's driver; a match table only while its match runs."""
    driver = table_driver(table)
    if not _may_drive(driver, by):
        _refuse(driver, by, doing)
    if driver == MATCH:
        status = Match.objects.filter(table_id=table.pk).values_list("status", flat=True).first()
        if status != Match.Status.RUNNING:
            raise WrongMoment(f"The match is {status}: its table opens rounds only while it runs.", code=f"match_{status}")


def require_round_driver(*, rnd: Round, by: str, doing: str) -> None:
    """Closing betting early, dealing, correcting: only the driver the round opened with."""
    driver = round_driver(rnd)
    if not _may_drive(driver, by):
        _refuse(driver, by, doing)


def require_supervisor(user, *, doing: str) -> None:
    """What only a supervisor may do to a round (resume, void, correct its cards): 403 for anyone
    else, whichever door they came through (the API checks the same role first, with the same answer)."""
    if not has_role(user, SUPERVISOR):
        raise NotAllowed(f"Only a supervisor may {doing}.", code="forbidden")
