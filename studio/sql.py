"""Plain SQL for the hottest paths (placing a bet, authenticating a token).

The ORM spends more CPU building such a statement than PostgreSQL spends running it, and every bet
runs a few of them. These helpers run a written statement
and turn its row into a model instance exactly as the ORM would: the same database converters
(JSON, money), and the instance marked as loaded from the database.
"""
from __future__ import annotations

import functools

from django.db import DEFAULT_DB_ALIAS, connection


def fetch_one(sql: str, params: list | tuple = ()):
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchone()


def fetch_all(sql: str, params: list | tuple = ()) -> list[tuple]:
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def columns(model, names: list[str], alias: str = "") -> str:
    """`names` (attnames: "table_id", not "table") as this model's quoted column list, each
    prefixed with `alias.` when given."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(prefix + connection.ops.quote_name(model._meta.get_field(n).column) for n in names)


def converted(model, names: list[str], row) -> list:
    """A row of raw database values as the ORM would read them, field by field."""
    values = []
    for (col, converters), value in zip(_converters(model, tuple(names)), row):
        for converter in converters:
            value = converter(value, col, connection)
        values.append(value)
    return values


def instance(model, names: list[str], row):
    """A model instance from a row of `names` (the others deferred), as if read by the ORM."""
    by_name = dict(zip(names, converted(model, names, row)))
    order = _model_order(model, tuple(names))  # from_db takes the values in the model's field order
    return model.from_db(DEFAULT_DB_ALIAS, order, [by_name[n] for n in order])


@functools.cache
def _converters(model, names: tuple[str, ...]) -> list:
    cols = [model._meta.get_field(n).get_col(model._meta.db_table) for n in names]
    return [(col, connection.ops.get_db_converters(col) + col.get_db_converters(connection)) for col in cols]


@functools.cache
def _model_order(model, names: tuple[str, ...]) -> list[str]:
    return [f.attname for f in model._meta.concrete_fields if f.attname in names]
