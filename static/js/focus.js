// A region drawn again under its reader (the stream, a reload): if the focus was inside it, it goes
// back to the same control in the new markup, so that a keyboard user keeps their place.

/** Replace `el`'s markup. `same(active)`, asked only when the focus was inside `el`, is the selector
 *  of the control in the new markup that takes it back (null: none). */
export function redraw(el, markup, same) {
  const active = el.contains(document.activeElement) ? document.activeElement : null;
  const selector = active && same(active);
  el.innerHTML = markup;
  if (selector) el.querySelector(selector)?.focus();
}
