"""The catalogues are complete and compiled: every word a page shows (templates, Python marked for
translation, the pages' modules) has a translation in each offered language, none fuzzy, and the
committed .mo files are what the .po files compile to. Extraction is Django's makemessages (into a
scratch folder, never the repo's), the checks GNU gettext's own msgcmp and msgfmt."""
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

ROOT = Path(settings.BASE_DIR)
LOCALE = ROOT / "locale"
TRANSLATED = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
DOMAINS = ["django", "djangojs"]
IGNORE = [".venv/*", "staticfiles/*", "test-artifacts/*", "tests/*", "node_modules/*", "scripts/*", "locale/*"]

def _gettext_tool(name):
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"GNU gettext's {name} is missing (Debian's gettext package)", pytrace=False)
    return path


@pytest.fixture(scope="module")
def pot_files(tmp_path_factory):
    """The .pot files of the code as it is, extracted into a scratch locale folder."""
    scratch = tmp_path_factory.mktemp("locale")
    with pytest.MonkeyPatch.context() as mp, override_settings(LOCALE_PATHS=[scratch]):
        mp.chdir(ROOT)
        for domain in DOMAINS:
            call_command("makemessages", locale=["xx"], domain=domain, ignore_patterns=IGNORE,
                         keep_pot=True, no_obsolete=True, verbosity=0,
                         extensions=["js"] if domain == "djangojs" else ["html", "txt", "py"])
    return scratch


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_string_has_a_translation(pot_files, lang, domain):
    po = LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
    assert po.exists(), f"no catalogue {po.relative_to(ROOT)}: run manage.py makemessages -l {lang}"
    pot = pot_files / f"{domain}.pot"
    cmp = subprocess.run([_gettext_tool("msgcmp"), str(po), str(pot)], capture_output=True, text=True)
    assert cmp.returncode == 0, f"{po.relative_to(ROOT)} lacks strings the pages use:\n{cmp.stderr[-3000:]}"
    stats = subprocess.run([_gettext_tool("msgfmt"), "--check", "--statistics", "-o", "/dev/null", str(po)],
                           capture_output=True, text=True)
    assert stats.returncode == 0, stats.stderr
    assert "fuzzy" not in stats.stderr and "untranslated" not in stats.stderr, f"{po.name} ({lang}): {stats.stderr}"


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("lang", TRANSLATED)
def test_compiled_catalogue_is_current(tmp_path, lang, domain):
    po = LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
    mo = po.with_suffix(".mo")
    fresh = tmp_path / "fresh.mo"
    subprocess.run([_gettext_tool("msgfmt"), "-o", str(fresh), str(po)], check=True)
    assert mo.exists() and mo.read_bytes() == fresh.read_bytes(), (
        f"{mo.relative_to(ROOT)} is not what {po.name} compiles to: run manage.py compilemessages")
