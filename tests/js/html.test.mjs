import { test } from "node:test";
import assert from "node:assert/strict";
import { esc, html, raw } from "../../static/js/html.js";

test("esc escapes all five characters", () => {
  assert.equal(esc(`<a href="x" title='y'>&</a>`), "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  assert.equal(esc(null), "");
  assert.equal(esc(0), "0");
});

test("html escapes values and nests its own fragments", () => {
  const name = "<img onerror=x>";
  const inner = html`<b>${name}</b>`;
  assert.equal(String(html`<p title="${"'q'"}">${inner}${[1, "<"]}${false}</p>`),
    "<p title=\"&#39;q&#39;\"><b>&lt;img onerror=x&gt;</b>1&lt;</p>");
  assert.equal(String(html`${raw("<br>")}`), "<br>");
});
