// Numbers for people, written as the server writes them in each language the studio offers
// (Django's formats, which studio/formats/ completes): the separators and the digit grouping come
// from the table below, the digits are Latin as Django's are, and no Intl locale data is used, so a
// page reads the same in every browser (Debian's Chromium has no Nepali data: its Intl would group
// Nepali the Western way). tests/js/number_formats.json holds the expected strings that
// tests/js/numbers.test.mjs checks here and tests/studio/test_formats.py checks against Django.

/** Each offered language's way: decimal separator, thousands separator, group sizes from the right
 * (the last one repeats: [3, 2] is the Indian 12,34,567). An unknown language is written as English. */
export const FORMATS = {
  en: { decimal: ".", group: ",", grouping: [3] },
  hi: { decimal: ".", group: ",", grouping: [3, 2] },
  ne: { decimal: ".", group: ",", grouping: [3, 2] },
  vi: { decimal: ",", group: ".", grouping: [3] },
  ja: { decimal: ".", group: ",", grouping: [3] },
};

/** "hi-IN" -> the Hindi format; anything not offered -> English's. */
export function formatOf(locale) {
  const language = String(locale || "").toLowerCase().split(/[-_]/)[0];
  return Object.hasOwn(FORMATS, language) ? FORMATS[language] : FORMATS.en;
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/** A decimal string, a BigInt or a finite Number -> {negative, digits (a BigInt), scale}: the value is
 * digits / 10^scale, exactly (a Number as its shortest decimal form, as Intl reads it). */
function parse(value) {
  if (typeof value === "bigint") return { negative: value < 0n, digits: value < 0n ? -value : value, scale: 0 };
  if (typeof value === "number" && !Number.isFinite(value)) return null;
  const m = DECIMAL.exec(String(value ?? "").trim());
  if (!m || !(m[2] || m[3])) return null;
  const whole = m[2] || "", frac = m[3] || "";
  let scale = frac.length - Number(m[4] || 0);
  let text = whole + frac;
  if (scale < 0) { text += "0".repeat(-scale); scale = 0; }
  return { negative: m[1] === "-", digits: BigInt(text || "0"), scale };
}

function grouped(whole, separator, grouping) {
  const groups = [];
  let end = whole.length, i = 0;
  while (end > 0) {
    const size = grouping[Math.min(i, grouping.length - 1)];
    groups.unshift(whole.slice(Math.max(0, end - size), end));
    end -= size;
    i += 1;
  }
  return groups.join(separator);
}

/**
 * number("1235467.5", "hi", {min: 2}) -> "12,35,467.50"; number(1234, "vi") -> "1.234".
 * At least `min` and at most `max` decimals (rounded half away from zero, as Django's floatformat
 * rounds); `signed` writes "+" before a gain ("-" is always written, never before a zero).
 * Not a number -> "".
 */
export function number(value, locale, { min = 0, max = Math.max(min, 3), signed = false } = {}) {
  const n = parse(value);
  if (n === null) return "";
  let { digits } = n;
  if (n.scale > max) {
    const cut = 10n ** BigInt(n.scale - max);
    const rest = digits % cut;
    digits /= cut;
    if (rest * 2n >= cut) digits += 1n;
  } else {
    digits *= 10n ** BigInt(max - n.scale);
  }
  const text = digits.toString().padStart(max + 1, "0");
  const whole = text.slice(0, text.length - max);
  const frac = text.slice(text.length - max).replace(/0+$/, "").padEnd(min, "0");
  const { decimal, group, grouping } = formatOf(locale);
  const sign = digits === 0n ? "" : n.negative ? "-" : signed ? "+" : "";
  return sign + grouped(whole, group, grouping) + (frac ? decimal + frac : "");
}
