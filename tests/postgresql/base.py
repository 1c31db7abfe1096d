"""The test suite's PostgreSQL backend (tests/settings.py's ENGINE): Django's, with one change
(Django's documented way to change a built-in backend is a subclass named in ENGINE). The studio
itself runs on Django's own.

A flush that keeps the sequences (the test suite's, after each of its transactional tests) empties
the tables with DELETE instead of TRUNCATE. TRUNCATE gives every table new files, about 10 ms a
table, 0.26-0.47 s for the studio's 40 tables on a 2-core VM, where deleting the few rows a test
leaves takes 30 ms (`python scripts/bench_flush.py`). Every foreign key is DEFERRABLE
INITIALLY DEFERRED (Django makes them so), so the DELETEs run in any order inside flush's one
transaction. A flush that resets the sequences (`manage.py flush`) or cascades to tables outside its
list keeps TRUNCATE, which alone does both.

A table whose rows the database itself refuses to delete (a row trigger calling
`studio_append_only()`: the ledger's entries, the public log's leaves and subtrees,
studio/appendonly.py) is emptied with TRUNCATE, which
fires no row trigger, and only when it has rows (a DELETE of no row passes the trigger, and the
TRUNCATE's new files cost some 10-30 ms); which tables those are, one query of the catalog says.

That flush also keeps the rows of the two tables the migrations fill and Django's post_migrate
signal, sent after every flush, fills again when they are empty: the content types and the
permissions. Deleted, they were inserted again at once (some 40 content types and 160 permissions,
35 ms of the 70 that post_migrate took after each transactional test); kept, post_migrate finds
them all and writes nothing.
"""
from django.db.backends.postgresql import base, operations

MIGRATIONS_FILL = {"django_content_type", "auth_permission"}  # contenttypes' and auth's tables (models not loaded yet)
# The tables whose rows a trigger keeps from being updated or deleted (bets' migration 0005).
APPEND_ONLY = ("SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid "
               "WHERE p.proname = 'studio_append_only' AND c.relnamespace = 'public'::regnamespace")


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return super().sql_flush(style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        tables = [table for table in tables if table not in MIGRATIONS_FILL]
        if not tables:
            return []
        append_only = self.append_only_tables()
        statements = []
        for table in tables:
            name = style.SQL_FIELD(self.quote_name(table))
            if table in append_only:  # its rows refuse DELETE; TRUNCATE (no row trigger) when it has any
                statements.append(f"DO $$BEGIN IF EXISTS (SELECT FROM {name}) THEN {style.SQL_KEYWORD('TRUNCATE')} {name}; END IF; END$$;")
            else:
                statements.append(f"{style.SQL_KEYWORD('DELETE FROM')} {name};")
        # one string, one round trip: without parameters psycopg sends it as one simple query
        return [" ".join(statements)]

    def append_only_tables(self) -> set[str]:
        with self.connection.cursor() as cursor:
            cursor.execute(APPEND_ONLY)
            return {name for (name,) in cursor.fetchall()}


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
