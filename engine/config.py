"""Table settings that change the rules (RULES.md), validated once, JSON round-trippable."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from decimal import Decimal, InvalidOperation
from enum import StrEnum

from .errors import InvalidConfig
from .multipliers import Multipliers


class Side(StrEnum):
    ANDAR = "andar"
    BAHAR = "bahar"

    @property
    def other(self) -> Side:
        return Side.BAHAR if self is Side.ANDAR else Side.ANDAR


class FirstCard(StrEnum):
    ANDAR = "andar"
    BAHAR = "bahar"
    JOKER_COLOUR = "joker_colour"  # black joker: Andar first; red joker: Bahar first


class Mode(StrEnum):
    CLASSIC = "classic"
    NO_COMMISSION = "no_commission"


class Paytable(StrEnum):
    LIVE = "live"
    PLAY = "play"


SIDE_BETS = ("first_andar", "first_bahar", "first_three", "card_count")

# Card count boxes: (lowest, highest number of cards dealt, odds X for X:1).
PAYTABLES: dict[Paytable, tuple[tuple[int, int, Decimal], ...]] = {
    Paytable.LIVE: (
        (1, 5, Decimal("2")),
        (6, 10, Decimal("3")),
        (11, 15, Decimal("4")),
        (16, 20, Decimal("5")),
        (21, 25, Decimal("8")),
        (26, 30, Decimal("12")),
        (31, 35, Decimal("20")),
        (36, 40, Decimal("40")),
        (41, 45, Decimal("110")),
        (46, 49, Decimal("800")),
    ),
    Paytable.PLAY: (
        (1, 5, Decimal("2.5")),
        (6, 10, Decimal("3.5")),
        (11, 15, Decimal("4.5")),
        (16, 25, Decimal("3.5")),
        (26, 30, Decimal("14")),
        (31, 35, Decimal("24")),
        (36, 40, Decimal("49")),
        (41, 49, Decimal("119")),
    ),
}

CENT = Decimal("0.01")


class Spot(StrEnum):
    """The fixed spots. Card count spots are plain strings ``count_LO_HI`` (see count_spot)."""

    ANDAR = "andar"
    BAHAR = "bahar"
    FIRST_ANDAR = "first_andar"
    FIRST_BAHAR = "first_bahar"
    FIRST_THREE = "first_three"


def count_spot(lo: int, hi: int) -> str:
    return f"count_{lo}_{hi}"


# paytable -> {spot name: (lo, hi, odds)}
COUNT_BOXES: dict[Paytable, dict[str, tuple[int, int, Decimal]]] = {
    table: {count_spot(lo, hi): (lo, hi, odds) for lo, hi, odds in boxes} for table, boxes in PAYTABLES.items()
}


# The "Super" preset of the multipliers (docs/RULES.md): one of the ten card count boxes of the live
# paytable drawn each round, x2 to x10. Every box still returns under 100% (86.4-97.2%).
SUPER_MULTIPLIERS = {"spots": list(COUNT_BOXES[Paytable.LIVE]), "draws": 1, "values": [[2, 70], [3, 20], [5, 8], [10, 2]]}


def offered_spots(config: TableConfig) -> list[str]:
    """Display order: main bets, then (classic only) first andar/bahar/three, then card count."""
    spots = [Spot.ANDAR.value, Spot.BAHAR.value]
    if config.mode is Mode.CLASSIC:
        spots += [s.value for s in (Spot.FIRST_ANDAR, Spot.FIRST_BAHAR, Spot.FIRST_THREE) if s in config.side_bets]
    if "card_count" in config.side_bets:
        spots += list(COUNT_BOXES[config.card_count_paytable])
    return spots


def decimal_text(value: Decimal) -> str:
    """Shortest plain text of a decimal: 0.90 -> "0.9", 800 -> "800", 1.00 -> "1"."""
    return format(value.normalize(), "f")


def _enum(cls, value, name: str):
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(m.value for m in cls)
        raise InvalidConfig(f"{name} must be one of {choices}, not {value!r}", field=name) from None


def _decimal(value, name: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str):
        raise InvalidConfig(f"{name} must be a decimal (a string like '0.9'), not {value!r}", field=name)
    try:
        result = Decimal(value.strip() if isinstance(value, str) else value)
    except InvalidOperation:
        raise InvalidConfig(f"{name} must be a decimal, not {value!r}", field=name) from None
    if not result.is_finite():
        raise InvalidConfig(f"{name} must be a finite decimal, not {value!r}", field=name)
    return result


def _side_bets(value) -> frozenset[str]:
    if isinstance(value, str) or not isinstance(value, list | tuple | set | frozenset):
        raise InvalidConfig(f"side_bets must be a list of names, not {value!r}", field="side_bets")
    unknown = sorted(str(v) for v in value if v not in SIDE_BETS)
    if unknown:
        raise InvalidConfig(
            f"unknown side bet {', '.join(unknown)}: choose from {', '.join(SIDE_BETS)}", field="side_bets"
        )
    return frozenset(str(v) for v in value)


@dataclass(frozen=True)
class TableConfig:
    first_card: FirstCard = FirstCard.ANDAR
    mode: Mode = Mode.CLASSIC
    commission: Decimal = Decimal("0.9")
    side_bets: frozenset[str] = frozenset(SIDE_BETS)
    card_count_paytable: Paytable = Paytable.LIVE
    chip_unit: Decimal = Decimal("1")
    multipliers: Multipliers | None = field(default=None)  # the "Super" tables' random multipliers (engine.multipliers)

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "first_card", _enum(FirstCard, self.first_card, "first_card"))
        set_(self, "mode", _enum(Mode, self.mode, "mode"))
        set_(self, "card_count_paytable", _enum(Paytable, self.card_count_paytable, "card_count_paytable"))
        set_(self, "side_bets", _side_bets(self.side_bets))
        commission = _decimal(self.commission, "commission")
        if not 0 < commission <= 1:
            raise InvalidConfig(f"commission must be above 0 and at most 1, not {commission}", field="commission")
        set_(self, "commission", Decimal(decimal_text(commission)))  # "0.900" -> 0.9
        chip_unit = _decimal(self.chip_unit, "chip_unit")
        if chip_unit <= 0 or chip_unit % CENT != 0:
            raise InvalidConfig(
                f"chip_unit must be positive and a whole number of hundredths, not {chip_unit}", field="chip_unit"
            )
        set_(self, "chip_unit", Decimal(decimal_text(chip_unit)))  # "1.00" -> 1
        multipliers = Multipliers.from_value(self.multipliers)
        if multipliers is not None:
            offered = offered_spots(self)
            unknown = [spot for spot in multipliers.spots if spot not in offered]
            if unknown:
                raise InvalidConfig(f"multipliers: {', '.join(unknown)} not offered at this table (offered: {', '.join(offered)})",
                                    field="multipliers")
        set_(self, "multipliers", multipliers)

    @classmethod
    def from_dict(cls, data: Mapping) -> TableConfig:
        """From JSON-ish values (strings, lists, decimal strings). Missing keys take the defaults;
        unknown keys are refused (a misspelt setting must not be silently ignored)."""
        if not isinstance(data, Mapping):
            raise InvalidConfig(f"table settings must be a mapping, not {data!r}", field="config")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise InvalidConfig(f"unknown table setting {key!r}", field=str(key))
        return cls(**data)

    def to_dict(self) -> dict:
        """JSON-safe; `multipliers` only on a table that has them, so that the rules of a table
        without them read (and hash, reports.rollup) the same as before the setting existed."""
        data = {
            "first_card": self.first_card.value,
            "mode": self.mode.value,
            "commission": decimal_text(self.commission),
            "side_bets": sorted(self.side_bets),
            "card_count_paytable": self.card_count_paytable.value,
            "chip_unit": decimal_text(self.chip_unit),
        }
        if self.multipliers is not None:
            data["multipliers"] = self.multipliers.to_dict()
        return data


# The settings that make up a TableConfig: what a round's snapshot of its table must hold to be replayed.
CONFIG_KEYS = tuple(f.name for f in fields(TableConfig))
OPTIONAL_KEYS = frozenset({"multipliers"})  # absent from a snapshot that has none


def rules_of(settings: Mapping) -> dict:
    """The engine's part of a round's (or a table's) settings, as TableConfig.to_dict gives it: the
    optional settings only where set."""
    return {k: settings[k] for k in CONFIG_KEYS if k in settings and not (k in OPTIONAL_KEYS and settings[k] is None)}
