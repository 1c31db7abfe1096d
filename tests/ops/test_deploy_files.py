"""The production process files agree with each other: the Procfile and the systemd units run the
same four processes, each unit restarts its process, and the web server runs without uvicorn's access
log (the studio's own leaves query strings out)."""
import configparser
import shlex
from pathlib import Path

from django.conf import settings as dj_settings

ROOT = Path(dj_settings.BASE_DIR)
PROCESSES = {"web": "web", "worker": "worker", "beat": "beat", "virtual_dealer": "virtual-dealer"}


def procfile() -> dict[str, list[str]]:
    lines = [line for line in (ROOT / "Procfile").read_text().splitlines() if line.strip() and not line.startswith("#")]
    return {name: shlex.split(command) for name, command in (line.split(":", 1) for line in lines)}


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(ROOT / "deploy" / "systemd" / f"studio-{name}.service")
    return parser


def program(argv: list[str]) -> list[str]:
    """What a command runs, without the interpreter's path and the options' values: `-m uvicorn web.asgi:application`."""
    start = next(i for i, arg in enumerate(argv) if arg in ("-m", "manage.py"))
    return argv[start:start + 3]


def test_the_procfile_and_the_units_run_the_same_four_processes():
    processes = procfile()
    assert set(processes) == set(PROCESSES)
    target = (ROOT / "deploy" / "systemd" / "studio.target").read_text()
    for name, unit_name in PROCESSES.items():
        service = unit(unit_name)["Service"]
        assert service["Restart"] == "always" and service["EnvironmentFile"]
        assert program(shlex.split(service["ExecStart"])) == program(processes[name])
        assert f"studio-{unit_name}.service" in target


def test_the_web_server_runs_without_uvicorns_access_log():
    for argv in (procfile()["web"], shlex.split(unit("web")["Service"]["ExecStart"])):
        assert "--no-access-log" in argv and argv[argv.index("--log-level") + 1] == "warning"


def test_the_environment_example_names_what_production_requires():
    example = (ROOT / "deploy" / "systemd" / "studio.env.example").read_text()
    for name in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "ALLOWED_HOSTS", "HTTPS", "PROMETHEUS_MULTIPROC_DIR"):
        assert f"\n{name}=" in example


def test_the_web_unit_migrates_and_collects_the_static_files_before_it_starts():
    before = [shlex.split(line.split("=", 1)[1]) for line in (ROOT / "deploy" / "systemd" / "studio-web.service").read_text().splitlines()
              if line.startswith("ExecStartPre=")]
    assert [argv[1:3] for argv in before] == [["manage.py", "migrate"], ["manage.py", "collectstatic"]]
    assert all("--noinput" in argv for argv in before)
