// The pages' words in the reader's language. Django's JavaScriptCatalog (/jsi18n/, loaded by
// base.html before any module) defines window.django with the active language's catalogue; these
// wrappers fall back to the English text where it is absent (node --test, a page without it).

const catalog = () => globalThis.django;

/** gettext: t("Place your bets") */
export function t(text) {
  const c = catalog();
  return c ? c.gettext(text) : text;
}

/** ngettext with %(name)s interpolation: tn("%(n)s card", "%(n)s cards", n, {n}) */
export function tn(singular, plural, count, values = {}) {
  const c = catalog();
  const text = c ? c.ngettext(singular, plural, count) : (count === 1 ? singular : plural);
  return fill(text, { n: count, ...values });
}

/** t() with %(name)s values: tf("Round %(id)s", {id: 7}) */
export function tf(text, values) { return fill(t(text), values); }

/** pgettext, for words whose sense the context decides ("Andar" the side, "First" the bet). */
export function tp(context, text) {
  const c = catalog();
  return c ? c.pgettext(context, text) : text;
}

function fill(text, values) {
  return text.replace(/%\((\w+)\)s/g, (m, name) => (name in values ? String(values[name]) : m));
}

/** The page's language (the <html lang> Django rendered), for Intl. */
export function locale() {
  return (globalThis.document && document.documentElement.lang) || "en";
}
