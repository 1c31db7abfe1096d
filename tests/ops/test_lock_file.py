"""requirements.lock pins every installed version (`make lock` writes it from pyproject.toml's ranges,
`make` installs from it): each dependency pyproject.toml names is locked at a version inside its
range, so changing the ranges without regenerating the lock fails here; and the environment the
tests run in is the locked one."""
import re
import tomllib
from importlib import metadata
from pathlib import Path

from django.conf import settings as dj_settings
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(dj_settings.BASE_DIR)
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)(?:\s*;\s*([^\\]+?))?\s*\\?$")


def locked() -> dict[str, tuple[Version, str | None]]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        found = PIN.match(line)
        if found:
            pins[canonicalize_name(found[1])] = (Version(found[2]), found[3])
    return pins


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(text) for text in project["dependencies"] + project["optional-dependencies"]["test"]]


def test_every_declared_dependency_is_locked_inside_its_range():
    pins = locked()
    assert len(pins) > 50  # the whole tree, not only the direct dependencies
    stale = []
    for requirement in declared():
        pin = pins.get(canonicalize_name(requirement.name))
        if pin is None or not requirement.specifier.contains(pin[0], prereleases=True):
            stale.append(f"{requirement} (locked: {pin[0] if pin else 'nothing'})")
    assert not stale, "pyproject.toml changed without `make lock`: " + ", ".join(stale)


def test_every_locked_version_is_hashed():
    text = (ROOT / "requirements.lock").read_text()
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    assert blocks and all("--hash=sha256:" in block for block in blocks if "==" in block)


def test_the_environment_is_the_locked_one():
    wrong = []
    for name, (version, marker) in locked().items():
        if marker and not Marker(marker).evaluate():
            continue
        try:
            installed = Version(metadata.version(name))
        except metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            wrong.append(f"{name} {installed or 'missing'} (locked {version})")
    assert not wrong, "installed versions differ from requirements.lock (run `make install`): " + ", ".join(wrong)
