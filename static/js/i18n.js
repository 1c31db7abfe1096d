// The pages' words in the reader's language. Django's JavaScriptCatalog of the page's language
// (/jsi18n/<lang>/<digest>/, web/catalogue.py, loaded by base.html before any module) defines
// window.django with its words; these wrappers fall back to the English text where it is absent
// (node --test, a page without it).
// The names are gettext's own, so that `manage.py makemessages -d djangojs` finds every string:
// call them with literal strings, and put values in with format().

const catalog = () => globalThis.django;

/** gettext("Place your bets") */
export function gettext(text) {
  const c = catalog();
  return c ? c.gettext(text) : text;
}

/** ngettext("%(n)s card", "%(n)s cards", n): the form for n, with %(n)s (and other values) put in. */
export function ngettext(singular, plural, count, values = {}) {
  const c = catalog();
  const text = c ? c.ngettext(singular, plural, count) : (count === 1 ? singular : plural);
  return format(text, { n: count, ...values });
}

/** pgettext, for words whose sense the context decides ("Andar" the side, "King" the rank). */
export function pgettext(context, text) {
  const c = catalog();
  return c ? c.pgettext(context, text) : text;
}

/** Values into a translated text: format(gettext("Round %(id)s"), {id: 7}). */
export function format(text, values = {}) {
  return String(text).replace(/%\((\w+)\)s/g, (m, name) => (name in values ? String(values[name]) : m));
}

/** The page's language (the <html lang> Django rendered), for numbers.js. */
export function locale() {
  return (globalThis.document && document.documentElement.lang) || "en";
}
