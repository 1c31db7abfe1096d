"""Number formats Django's own locale files leave out (FORMAT_MODULE_PATH): the digit grouping of
Vietnamese (25.000) and of Hindi and Nepali (the Indian lakh grouping, 1,00,000). The pages'
modules write numbers the same way (static/js/numbers.js); tests/js/number_formats.json holds what
both must write, checked on each side (tests/studio/test_formats.py, tests/js/numbers.test.mjs)."""
