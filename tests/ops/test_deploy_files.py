"""The production process files agree with each other: the Procfile and the systemd units run the
same four processes, each unit restarts its process, the web processes are web/server.py's (uvicorn
without its access log: the studio's own leaves query strings out), and the migrations run once,
before any web process."""
import configparser
import shlex
from pathlib import Path

from django.conf import settings as dj_settings

from web import server

ROOT = Path(dj_settings.BASE_DIR)
PROCESSES = {"web": "web@", "worker": "worker", "beat": "beat", "virtual_dealer": "virtual-dealer"}


def procfile() -> dict[str, list[str]]:
    lines = [line for line in (ROOT / "Procfile").read_text().splitlines() if line.strip() and not line.startswith("#")]
    return {name: shlex.split(command) for name, command in (line.split(":", 1) for line in lines)}


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(ROOT / "deploy" / "systemd" / f"studio-{name}.service")
    return parser


def program(argv: list[str]) -> list[str]:
    """What a command runs, without the interpreter's path and the options' values: `-m web.server --host`."""
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
        wanted = f"studio-{unit_name}1.service" if unit_name.endswith("@") else f"studio-{unit_name}.service"
        assert wanted in target


def test_the_web_processes_run_uvicorn_without_its_access_log_on_one_shared_port():
    assert server.OPTIONS["access_log"] is False and server.OPTIONS["log_level"] == "warning"
    target = (ROOT / "deploy" / "systemd" / "studio.target").read_text()
    assert "studio-web@1.service" in target and "studio-web@2.service" in target
    for argv in (procfile()["web"], shlex.split(unit("web@")["Service"]["ExecStart"])):
        assert argv[argv.index("-m") + 1] == "web.server" and "--port" in argv


def test_the_environment_example_names_what_production_requires():
    example = (ROOT / "deploy" / "systemd" / "studio.env.example").read_text()
    for name in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "ALLOWED_HOSTS", "HTTPS", "PROMETHEUS_MULTIPROC_DIR"):
        assert f"\n{name}=" in example


def test_the_migrations_and_the_static_files_come_once_before_the_web_processes_start():
    migrate = (ROOT / "deploy" / "systemd" / "studio-migrate.service").read_text().splitlines()
    steps = [shlex.split(line.split("=", 1)[1]) for line in migrate if line.startswith("ExecStart=")]
    assert [argv[1:3] for argv in steps] == [["manage.py", "migrate"], ["manage.py", "collectstatic"]]
    assert all("--noinput" in argv for argv in steps)
    assert "Type=oneshot" in migrate and "RemainAfterExit=yes" in migrate
    web = unit("web@")["Unit"]
    assert "studio-migrate.service" in web["Requires"] and "studio-migrate.service" in web["After"]
    assert not [line for line in (ROOT / "deploy" / "systemd" / "studio-web@.service").read_text().splitlines()
                if line.startswith("ExecStartPre=")]  # two web processes must not migrate at once
