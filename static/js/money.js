// Money in the browser: the API's decimal strings ("12.50") held as BigInt hundredths, never as
// floats, and written for the reader's language as the server writes it (numbers.js: exact, and the
// same whatever locale data the browser has). Every page formats money here.

import { number } from "./numbers.js";

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

/**
 * A sum for people: money(1234550n, "en") -> "12,345.50", money("1235467.5", "hi") -> "12,35,467.50",
 * money(-2500n, "en", {signed: true}) -> "-25", "+20" for a gain. Whole amounts have no decimals
 * unless {places: 2}, as the server's floatformat:"-2g" writes them; a decimal string is accepted as well.
 */
export function money(value, locale, { signed = false, places } = {}) {
  const c = typeof value === "bigint" ? value : cents(value);
  if (c === null) return "";
  const p = places ?? (c % 100n === 0n ? 0 : 2);
  return number(decimal(c), locale, { min: p, max: 2, signed });
}

/** Sum of decimal strings, exactly. */
export function sum(values) {
  return values.reduce((total, v) => total + (typeof v === "bigint" ? v : cents(v) ?? 0n), 0n);
}
