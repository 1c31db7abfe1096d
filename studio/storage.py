"""The static files' storage: WhiteNoise's compressed, hashed manifest storage, with Django's ES
module support turned on, so that a hashed module imports its neighbours by their hashed names too
(`import { money } from "../money.js"` becomes "../money.<hash>.js"): every file of a page is cached
for ever and a release never mixes an old module with a new one."""
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
