// A part of a page far below the fold (a virtual table's fairness proof) is loaded when the reader
// comes near it: `whenNear(el, load)` runs `load` once, when `el` comes within `margin` of the
// viewport (IntersectionObserver), so a cold load carries neither its module nor its data. Where
// IntersectionObserver is missing, at once.

export function whenNear(el, load, margin = "300px") {
  if (!("IntersectionObserver" in globalThis)) { load(); return; }
  const watch = new IntersectionObserver((entries) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    watch.disconnect();
    load();
  }, { rootMargin: margin });
  watch.observe(el);
}
