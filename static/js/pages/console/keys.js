// Where a key pressed on the console goes. A barcode scanner types its code and Enter into whatever
// has the focus; the console's one place for a code is the scan box, so a character typed anywhere
// else on the page (the table list, a button, the language list) is taken to the scan box instead
// of changing a list by type-ahead or being dropped. Keys that act on a control (arrows, Space,
// Tab, Enter on a button or list) keep their meaning there: that is the dealer leaving the box on
// purpose.

const TEXT_INPUTS = new Set(["", "text", "search", "password", "email", "number", "tel", "url"]);
const CONTROLS = new Set(["BUTTON", "SELECT", "A", "SUMMARY"]);

function isTextField(el) {
  if (!el) return false;
  if (el.isContentEditable) return true;
  if (el.tagName === "TEXTAREA") return true;
  return el.tagName === "INPUT" && TEXT_INPUTS.has(String(el.type || "").toLowerCase());
}

function isControl(el) {
  if (!el) return false;
  if (CONTROLS.has(el.tagName)) return true;
  return el.tagName === "INPUT";  // buttons, checkboxes...: Enter is theirs
}

/**
 * route(event, box) for a keydown anywhere on the page:
 * - "primary": Ctrl+Enter (or Cmd+Enter): the phase's deliberate action (close betting, new round),
 * - "type": a character typed outside the box: it goes into the box,
 * - "submit": Enter on no control (the page itself had the focus): the box is submitted,
 * - "keep": the key does what it does where it was pressed.
 */
export function route({ key, ctrlKey = false, metaKey = false, altKey = false, target = null }, box) {
  if (key === "Enter" && (ctrlKey || metaKey) && !altKey) return "primary";
  if (target === box || ctrlKey || metaKey || altKey) return "keep";
  if (isTextField(target)) return "keep";
  if (key === "Enter") return isControl(target) ? "keep" : "submit";
  if (typeof key !== "string" || key.length !== 1 || key === " ") return "keep";
  return "type";
}
