"""The static files' storage: WhiteNoise's compressed, hashed manifest storage, in which the studio's
own ES modules (static/js/) import each other by their hashed names too (`import { money } from
"../money.js"` becomes "../money.<hash>.js"): every file of a page is cached for ever and a release
never mixes an old module with a new one.

Django can rewrite module imports itself (`support_js_module_import_aggregation`), but it runs its
patterns over every .js file collected, the admin's, the browsable API's and Swagger UI's bundles
included, which import nothing by a relative name: 2.6 s of a 4.3 s collectstatic, which the
launcher and the web unit run at every start. The patterns here rewrite the three forms the studio's
modules use, `import ... from "./x.js";` (over several lines too), `import "./x.js";` and a module
loaded when first needed, `import("./x.js")`, and only in static/js/: 2.0 s in all.
tests/web/test_page_policy.py checks that every import of a collected module names a hashed file."""
from django.contrib.staticfiles.storage import HashedFilesMixin
from whitenoise.storage import CompressedManifestStaticFilesStorage

MODULES = "js/*.js"  # fnmatch: any depth under js/
MODULE_IMPORTS = (
    (r"""(?P<matched>import(?P<names>[\s{*][^;"']*?)\s*from\s*"(?P<url>\.{1,2}/[^"]+)"\s*;)""",
     """import%(names)s from "%(url)s";"""),
    (r"""(?P<matched>import\s*"(?P<url>\.{1,2}/[^"]+)"\s*;)""", """import "%(url)s";"""),
    (r"""(?P<matched>import\(\s*"(?P<url>\.{1,2}/[^"]+)"\s*\))""", """import("%(url)s")"""),
)


class StaticStorage(CompressedManifestStaticFilesStorage):
    patterns = HashedFilesMixin.patterns + ((MODULES, MODULE_IMPORTS),)
