// Loading a part of a page only when it is needed, so a cold load carries neither its module nor its
// data nor its style: `whenNear(el, load)` runs `load` once, when `el` comes within `margin` of the
// viewport (IntersectionObserver; at once where it is missing): My history, a virtual table's
// fairness proof, the supervisor's history. `styleSheet(href)` adds a style sheet once, for a part
// loaded on demand (a replay, a table's settings dialog).

export function whenNear(el, load, margin = "300px") {
  if (!("IntersectionObserver" in globalThis)) { load(); return; }
  const watch = new IntersectionObserver((entries) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    watch.disconnect();
    load();
  }, { rootMargin: margin });
  watch.observe(el);
}

const sheets = new Map();  // href -> its load

/** The style sheet at `href`, added once: resolves when it has loaded (or failed: the part still works). */
export function styleSheet(href) {
  if (!href || !globalThis.document) return Promise.resolve();
  if (!sheets.has(href)) {
    const link = Object.assign(document.createElement("link"), { rel: "stylesheet", href });
    sheets.set(href, new Promise((resolve) => { link.onload = link.onerror = resolve; }));
    document.head.append(link);
  }
  return sheets.get(href);
}
