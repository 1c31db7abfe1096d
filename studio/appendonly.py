"""Append-only rows: a model whose rows are written once and never updated or deleted through the ORM.

`save()` of a row already stored, `delete()`, and the queryset's `update()` and `delete()` raise
`AppendOnlyError`. What this guards against is a mistake in the code (an admin action, a service, a
shell session), not someone with database access: a row edited behind the application's back is
the audit chain's to detect. Deleting the user a row names still sets its user columns to null
(Django's collector writes that without the queryset), the row keeping the names it recorded.

The ledger's entries (bets.LedgerEntry), written by raw SQL on the hottest paths where this guard
never looks, are refused at the database too: a row trigger calling `studio_append_only()` (bets'
migration 0005) refuses every UPDATE and DELETE with an IntegrityError (SQLSTATE 23001); so are the
public log's leaves and subtrees (integrity.LogEntry and LogNode, integrity's migration 0003). TRUNCATE
fires no row trigger: `manage.py flush` and the test suite's flush (tests/postgresql/base.py) empty
such a table with it."""
from __future__ import annotations

from django.db import models


class AppendOnlyError(Exception):
    """A stored append-only row cannot be changed or deleted."""


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnlyError(f"{self.model.__name__} rows are append-only: they cannot be updated.")

    def delete(self):
        raise AppendOnlyError(f"{self.model.__name__} rows are append-only: they cannot be deleted.")

    def bulk_update(self, objs, fields, batch_size=None):
        raise AppendOnlyError(f"{self.model.__name__} rows are append-only: they cannot be updated.")


class AppendOnlyModel(models.Model):
    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnlyError(f"{type(self).__name__} rows are append-only: row {self.pk} cannot be changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError(f"{type(self).__name__} rows are append-only: row {self.pk} cannot be deleted.")
