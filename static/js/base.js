// Every page: the language switcher changes the language as soon as one is picked (its button is
// for browsers without scripts).
const form = document.querySelector("form.lang");
if (form) {
  form.querySelector("button").hidden = true;
  form.querySelector("select").addEventListener("change", () => form.requestSubmit());
}
