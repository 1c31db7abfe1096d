#!/usr/bin/env bash
# Try the frameworks' newest releases: the committed code (HEAD) in a scratch folder, its virtualenv
# built from the lock as `make install` builds it, then Django, DRF, Channels, channels-redis,
# uvicorn, a2wsgi and Celery upgraded to the newest releases the package index offers (pip install
# -U over the locked set), and the whole suite run there as `make test` runs it, on the services the
# caller's DATABASE_URL / REDIS_URL name (neither set: its own throwaway PostgreSQL and Valkey).
# It prints the versions it tried and the suite's result, and exits with the suite's status.
# "Newest" is the newest that supports the Python the environment is made with (PYTHON, or the
# first Python 3.12 or newer the Makefile finds): e.g. PYTHON=python3.13 to try a newer one.
# Not part of CI: an upgrade is a decision, this shows what it would break (docs/TESTING.md).
#
#   scripts/try_upgrades.sh                  # install, upgrade, run the suite, delete the scratch folder
#   scripts/try_upgrades.sh --install-only   # stop after the upgrade (versions and pip's check only)
#   scripts/try_upgrades.sh --keep           # keep the scratch folder (its path is printed)
#   PYTEST_ARGS="tests/stream" scripts/try_upgrades.sh   # a part of the suite only
set -euo pipefail

PACKAGES=(django djangorestframework channels channels-redis uvicorn a2wsgi celery)
# What `pip install -U` is given: the extras the project installs them with (pyproject.toml).
REQUIREMENTS=(django djangorestframework channels channels-redis "uvicorn[standard]" a2wsgi "celery[redis]")

install_only=0
keep=0
for arg in "$@"; do
  case "$arg" in
    --install-only) install_only=1 ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "try_upgrades: unknown argument $arg (--install-only, --keep)" >&2; exit 2 ;;
  esac
done

say() { printf 'try_upgrades: %s\n' "$*"; }
root="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
commit="$(git -C "$root" rev-parse --short HEAD)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/try-upgrades.XXXXXX")"
cleanup() {
  if [ "$keep" = 1 ]; then say "kept $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT

# A clean copy of the committed tree: no virtualenv, no local data, no uncommitted change.
mkdir "$scratch/src"
git -C "$root" archive --format=tar HEAD | tar -x -C "$scratch/src"
cd "$scratch/src"
say "HEAD $commit in $scratch/src"

# The locked set, exactly as `make install` builds it (uv from the lock, every hash checked).
out="$(make --no-print-directory install 2>&1)" || { echo "$out"; say "the locked set did not install"; exit 1; }
py="$scratch/src/.venv/bin/python"

version() { "$py" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$1" 2>/dev/null || echo "-"; }
declare -A locked
for p in "${PACKAGES[@]}"; do locked[$p]="$(version "$p")"; done

# The upgrade: pip's default strategy moves the named packages to their newest releases and their
# dependencies only where those require it; everything else stays as locked.
pip=("${PYTHON:-python3}" -m pip --python "$py")
"${pip[@]}" --version >/dev/null 2>&1 || { "$py" -m ensurepip >/dev/null && pip=("$py" -m pip); }
# (A machine's pip may warn about index folders it is configured with but lacks: noise, left out.)
"${pip[@]}" install -q -U "${REQUIREMENTS[@]}" 2>&1 | { grep -v "^WARNING: Location '" || true; }
[ "${PIPESTATUS[0]}" = 0 ] || { say "the upgrade did not install"; exit 1; }

echo
printf '%-22s %-12s %s\n' "package" "locked" "tried"
for p in "${PACKAGES[@]}"; do
  now="$(version "$p")"
  mark=""; [ "$now" != "${locked[$p]}" ] && mark="  (upgraded)"
  printf '%-22s %-12s %s%s\n' "$p" "${locked[$p]}" "$now" "$mark"
done
echo
if check="$("${pip[@]}" check 2>&1)"; then say "pip check: no broken requirement"; else say "pip check:"; echo "$check"; fi

if [ "$install_only" = 1 ]; then
  say "install only: the suite was not run"
  exit 0
fi

# `make test` as it is, on the upgraded environment: its install step finds the lock's stamp and
# leaves the environment alone. The one test that holds the environment to the lock is left out:
# here the environment differs from the lock on purpose.
say "running the suite (make test) with DATABASE_URL=${DATABASE_URL:-<throwaway>} REDIS_URL=${REDIS_URL:-<throwaway>}"
start=$SECONDS
set +e
make --no-print-directory test \
  PYTEST_ARGS="--deselect tests/ops/test_lock_file.py::test_the_environment_is_the_locked_one ${PYTEST_ARGS:-}" \
  2>&1 | tee "$scratch/suite.log"
status=${PIPESTATUS[0]}
set -e
summary="$(grep -E '^=+ .*(passed|failed|error).* =+$' "$scratch/suite.log" | tail -n 1 | sed -E 's/^=+ | =+$//g' || true)"

echo
say "tried on HEAD $commit:"
for p in "${PACKAGES[@]}"; do printf '  %-22s %s -> %s\n' "$p" "${locked[$p]}" "$(version "$p")"; done
say "suite: ${summary:-no pytest summary (see above)} in $((SECONDS - start)) s"
if [ "$status" = 0 ]; then say "RESULT: PASSED"; else say "RESULT: FAILED (make test exited $status)"; fi
exit "$status"
