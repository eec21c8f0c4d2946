import assert from "node:assert/strict";
import { markdownToHtml } from "../../src/lib/markdown.ts";

Deno.test("[lib] markdownToHtml() renders the service's documents with markdown-it", async (t) => {
  await t.step("headings, lists, tables, code and links", () => {
    const html = markdownToHtml(
      "# Rules\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```sh\necho <x>\n```\n\n" +
        "See [the page](/docs/evaluation) and `code`.",
    );
    assert.match(html, /<h1 id="rules">Rules<\/h1>/);
    assert.match(html, /<ul>\n<li>one<\/li>/);
    assert.match(html, /<table>[\s\S]*<th scope="col">a<\/th>[\s\S]*<td>1<\/td>/);
    assert.match(
      html,
      /<pre tabindex="0" role="region" aria-label="Code example 1"><code class="language-sh">echo &lt;x&gt;/,
    );
    assert.match(html, /<a href="\/docs\/evaluation">the page<\/a>/);
    assert.match(html, /<code>code<\/code>/);
  });
  await t.step("raw HTML is text and unsafe links are not links", () => {
    const html = markdownToHtml(
      '<script>alert(1)</script>\n\n[x](javascript:alert(1)) <b onclick="y">',
    );
    assert.doesNotMatch(html, /<script|<b |href="javascript/);
    assert.match(html, /&lt;script&gt;/);
  });
});
