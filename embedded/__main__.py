"""`python -m embedded status|stop|wipe`: the studio's own PostgreSQL and Valkey in `.studio/`
(`make wipe` wipes them)."""
import argparse
import sys

from . import FOLDER, Services, ServicesError, stop, wipe


def main(argv: list[str] | None = None) -> int:
    """Say whether they run, stop them, or delete them with their data."""
    parser = argparse.ArgumentParser(prog="python -m embedded", description=main.__doc__)
    parser.add_argument("action", choices=["status", "stop", "wipe"])
    args = parser.parse_args(argv)
    services = Services(FOLDER)
    try:
        if args.action == "status":
            pid = services.keeper_pid()
            print(f"running (keeper pid {pid}): {services.database_url()} {services.redis_url()}" if pid else "not running")
        elif args.action == "stop":
            print("stopped" if stop(services) else "not running")
        else:
            wipe(services)
            print(f"wiped {services.folder}")
    except ServicesError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
