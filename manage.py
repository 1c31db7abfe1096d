#!/usr/bin/env python
"""Django's command line. Where DATABASE_URL or REDIS_URL is not set, the studio's own PostgreSQL
and Valkey (embedded/) are started first if they are not running, so every command reaches
the database and Redis that `make run` serves; they stop a few seconds after their last user ends."""
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    import embedded

    own = embedded.studio_services()
    if own is not None:
        try:
            embedded.ensure(own)
        except embedded.ServicesError as exc:
            sys.exit(str(exc))
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
