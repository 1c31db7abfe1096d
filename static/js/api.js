// The studio's REST API from a page: JSON in and out, the page's token, and every refusal as an
// ApiError carrying the API's stable code, its message and its field errors. A refusal the pages
// have words for (refusals.js) is said in the page's language, and its field messages (the API's
// English, saying the same) are left out.

import { gettext } from "./i18n.js";
import { refusalText } from "./refusals.js";

export class ApiError extends Error {
  constructor(status, body) {
    const said = refusalText(body);
    super(said || (body && body.message) || (status ? gettext("The studio answered with an error.") + ` (${status})` : gettext("The studio cannot be reached right now. Check your connection and try again.")));
    this.status = status;
    this.code = (body && body.code) || (status ? `http_${status}` : "network");
    this.fields = said ? {} : (body && body.fields) || {};
    this.body = body;
  }
}

/**
 * client({token}) -> api(method, path, body?, headers?): path is relative to /api/ ("tables/3/").
 * With a token the request sends `Authorization: Token ...` and no cookie; without one it uses the
 * session cookie and Django's CSRF cookie for unsafe methods.
 */
export function client({ token = "", fetchImpl = globalThis.fetch, base = "/api/" } = {}) {
  return async function api(method, path, body, headers = {}) {
    const h = { Accept: "application/json", ...headers };
    if (token) h.Authorization = "Token " + token;
    else if (method !== "GET" && method !== "HEAD") h["X-CSRFToken"] = csrfToken();
    if (body !== undefined) h["Content-Type"] = "application/json";
    let res;
    try {
      res = await fetchImpl(base + String(path).replace(/^\/+/, "").replace(/^api\//, ""), {
        method, headers: h, credentials: token ? "omit" : "same-origin",
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      throw new ApiError(0, null);
    }
    let data = null;
    if (res.status !== 204) data = await res.json().catch(() => null);
    if (!res.ok) throw new ApiError(res.status, data);
    return data;
  };
}

function csrfToken() {
  const m = globalThis.document && /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
  return m ? decodeURIComponent(m[1]) : "";
}

/** An idempotency key for a bet or an action: 32 random hex digits. */
export function newKey(prefix = "page") {
  const b = new Uint8Array(16);
  globalThis.crypto.getRandomValues(b);
  return prefix + "-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** The token a page was rendered with ({{ token|json_script:id }}), "" when none. */
export function pageToken(id) {
  const el = globalThis.document && document.getElementById(id);
  return el ? JSON.parse(el.textContent || '""') || "" : "";
}
