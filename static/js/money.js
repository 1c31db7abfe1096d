// Money in the browser: the API's decimal strings ("12.50") held as BigInt hundredths, never as
// floats, and written for the reader's language with Intl (exact: Intl formats a decimal string as
// written). Every page formats money here.

const PATTERN = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

/** "12.5" -> 1250n; anything that is not a decimal with at most two places -> null. */
export function cents(text) {
  const m = PATTERN.exec(String(text ?? "").trim());
  if (!m) return null;
  const value = BigInt(m[2]) * 100n + BigInt((m[3] || "0").padEnd(2, "0"));
  return m[1] && value !== 0n ? -value : value;
}

/** 1250n -> "12.50"; 1200n -> "12" (the API accepts either): the text to send back to the API. */
export function decimal(c) {
  const neg = c < 0n, a = neg ? -c : c;
  const frac = a % 100n;
  return (neg ? "-" : "") + (a / 100n).toString() + (frac ? "." + frac.toString().padStart(2, "0") : "");
}

const formats = new Map();
function formatter(locale, places, signed) {
  const key = `${locale}|${places}|${signed}`;
  if (!formats.has(key)) {
    formats.set(key, new Intl.NumberFormat(locale || undefined, {
      minimumFractionDigits: places, maximumFractionDigits: 2, signDisplay: signed ? "exceptZero" : "auto",
    }));
  }
  return formats.get(key);
}

/**
 * A sum for people: money(1234550n, "en") -> "12,345.50", money(2500n, "hi") -> "25",
 * money(-2500n, "en", {signed: true}) -> "−25" style signs from Intl, "+20" for a gain.
 * Whole amounts have no decimals unless {places: 2}; a decimal string is accepted as well.
 */
export function money(value, locale, { signed = false, places } = {}) {
  const c = typeof value === "bigint" ? value : cents(value);
  if (c === null) return "";
  const exact = decimal(c);
  const p = places ?? (c % 100n === 0n ? 0 : 2);
  return formatter(locale, p, signed).format(exact);
}

/** Sum of decimal strings, exactly. */
export function sum(values) {
  return values.reduce((total, v) => total + (typeof v === "bigint" ? v : cents(v) ?? 0n), 0n);
}
