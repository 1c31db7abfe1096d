"""Random multipliers (RULES.md, "Random multipliers"): the table setting, and the round's draw.

A table with the setting `multipliers` names the spots that can be multiplied, how many of them
are drawn each round and the multipliers' weights. When a round opens the studio draws a 32-byte
seed and publishes its commitment, SHA-256(seed); when betting closes the multipliers are derived
from the seed by `draw` and published with it, so that anyone can check the draw:

- the random numbers: blocks HMAC-SHA256(key = seed, message = k as 8 bytes big-endian) for k = 0,
  1, 2, ..., each read as four 64-bit big-endian unsigned integers, in order;
- a uniform choice among n: the next integer x, refused (and the next taken) while
  x >= 2**64 - 2**64 % n, then x % n;
- the spots: a partial Fisher-Yates shuffle of `spots` in their configured order, for i in
  0 .. draws - 1 swapping position i with i + choice(len(spots) - i); the first `draws` are drawn;
- each drawn spot's multiplier, in draw order: r = choice(total weight), the first value whose
  running weight exceeds r.

scripts/verify_round_record.py repeats this with the standard library.
"""
from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction

from .errors import InvalidConfig

MIN_MULTIPLIER, MAX_MULTIPLIER = 2, 1000
MAX_VALUES = 20  # multiplier values a table may list
SEED_BYTES = 32
_SPACE = 2 ** 64


def _whole(value, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidConfig(f"multipliers: {name} must be a whole number, not {value!r}", field="multipliers")
    if value < low or (high is not None and value > high):
        limit = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise InvalidConfig(f"multipliers: {name} must be {limit}, not {value}", field="multipliers")
    return value


@dataclass(frozen=True)
class Multipliers:
    spots: tuple[str, ...]  # the spots that can be multiplied, distinct, in the configured order
    draws: int  # how many of them get a multiplier each round
    values: tuple[tuple[int, int], ...]  # (multiplier, weight)

    @classmethod
    def from_value(cls, value) -> Multipliers | None:
        """The setting as JSON gives it (None: no multipliers); InvalidConfig naming what is wrong.
        Whether the spots are offered at the table is TableConfig's to check."""
        if value is None or isinstance(value, Multipliers):
            return value
        if not isinstance(value, Mapping):
            raise InvalidConfig(f"multipliers must be null or an object with spots, draws and values, not {value!r}", field="multipliers")
        unknown = sorted(str(k) for k in value if k not in ("spots", "draws", "values"))
        if unknown or not {"spots", "draws", "values"} <= set(value):
            raise InvalidConfig("multipliers must have exactly spots, draws and values", field="multipliers")
        spots = value["spots"]
        if isinstance(spots, str) or not isinstance(spots, list | tuple) or not spots or not all(isinstance(s, str) for s in spots):
            raise InvalidConfig("multipliers: spots must be a non-empty list of spot names", field="multipliers")
        if len(set(spots)) != len(spots):
            raise InvalidConfig("multipliers: each spot at most once", field="multipliers")
        draws = _whole(value["draws"], "draws", 1, len(spots))
        values = value["values"]
        if isinstance(values, str) or not isinstance(values, list | tuple) or not 1 <= len(values) <= MAX_VALUES:
            raise InvalidConfig(f"multipliers: values must be a list of 1 to {MAX_VALUES} [multiplier, weight] pairs", field="multipliers")
        pairs = []
        for pair in values:
            if isinstance(pair, str) or not isinstance(pair, list | tuple) or len(pair) != 2:
                raise InvalidConfig(f"multipliers: each value is a [multiplier, weight] pair, not {pair!r}", field="multipliers")
            pairs.append((_whole(pair[0], "a multiplier", MIN_MULTIPLIER, MAX_MULTIPLIER), _whole(pair[1], "a weight", 1, 10**6)))
        if len({m for m, _ in pairs}) != len(pairs):
            raise InvalidConfig("multipliers: each multiplier at most once", field="multipliers")
        return cls(spots=tuple(spots), draws=draws, values=tuple(pairs))

    def to_dict(self) -> dict:
        return {"spots": list(self.spots), "draws": self.draws, "values": [list(pair) for pair in self.values]}

    @property
    def total_weight(self) -> int:
        return sum(w for _, w in self.values)

    def chance(self, multiplier: int) -> Fraction:
        """P(a drawn spot gets `multiplier`)."""
        return Fraction(sum(w for m, w in self.values if m == multiplier), self.total_weight)

    @property
    def expected(self) -> Fraction:
        """E[multiplier] of a drawn spot."""
        return sum((Fraction(m * w) for m, w in self.values), Fraction(0)) / self.total_weight

    @property
    def drawn_chance(self) -> Fraction:
        """P(a given spot of `spots` is drawn in a round)."""
        return Fraction(self.draws, len(self.spots))

    @property
    def highest(self) -> int:
        return max(m for m, _ in self.values)


def commitment(seed: bytes) -> str:
    """What a round publishes when it opens: the hex SHA-256 of its seed's bytes."""
    return hashlib.sha256(seed).hexdigest()


def _integers(seed: bytes) -> Iterator[int]:
    for k in range(2 ** 32):
        block = hmac.new(seed, k.to_bytes(8, "big"), hashlib.sha256).digest()
        for i in range(0, 32, 8):
            yield int.from_bytes(block[i:i + 8], "big")
    raise RuntimeError("the multipliers' random stream ran out")  # 2**34 numbers: never reached


def _choice(numbers: Iterator[int], n: int) -> int:
    limit = _SPACE - _SPACE % n
    for x in numbers:
        if x < limit:
            return x % n
    raise RuntimeError("unreachable")


def draw(setting: Multipliers, seed: bytes) -> tuple[tuple[str, int], ...]:
    """The round's multiplied spots and their multipliers, in draw order (the module's algorithm)."""
    numbers = _integers(seed)
    pool = list(setting.spots)
    for i in range(setting.draws):
        j = i + _choice(numbers, len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    drawn = []
    for spot in pool[:setting.draws]:
        r = _choice(numbers, setting.total_weight)
        for multiplier, weight in setting.values:
            if r < weight:
                drawn.append((spot, multiplier))
                break
            r -= weight
    return tuple(drawn)
