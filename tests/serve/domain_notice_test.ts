/**
 * The notice a custom domain's pages get when the domain passed to another publisher
 * (src/serve/domain_notice.ts), on page texts of each shape: where it goes, what it escapes,
 * and the pages it leaves alone. The whole path over HTTP is in tests/e2e/names_reuse_test.ts.
 */
import assert from "node:assert/strict";
import { identityRequestHeaders, withNotice } from "../../src/serve/domain_notice.ts";
import type { NameChange } from "../../src/domain/log.ts";

const change = {
  kind: "domain",
  name: "trust.acme.example",
  leafIndex: 7,
  leafHash: "",
  entry: "",
  releasedAt: null,
  notice: `The custom domain "trust.acme.example" belonged to <b>a deleted</b> project & more`,
} as NameChange;

Deno.test("[domain notice] first in an HTML page's main content, escaped", () => {
  const page = '<body><header>x</header><main id="main" class="wrap"><h1>Acme</h1></main></body>';
  assert.equal(
    withNotice(page, "text/html; charset=utf-8", change),
    '<body><header>x</header><main id="main" class="wrap">\n<p role="note"><strong>' +
      "Another publisher.</strong> The custom domain &quot;trust.acme.example&quot; belonged " +
      "to &lt;b&gt;a deleted&lt;/b&gt; project &amp; more</p><h1>Acme</h1></main></body>",
  );
});

Deno.test("[domain notice] under a Markdown page's title, or first without one", () => {
  const note = "**Another publisher.** The custom domain";
  const titled = withNotice("# Acme\n\nBody.\n", "text/markdown; charset=utf-8", change)!;
  assert.ok(titled.startsWith(`# Acme\n\n${note}`), titled);
  assert.ok(titled.endsWith("more\n\nBody.\n"), titled);
  assert.doesNotMatch(titled, /<b>/, "Markdown specials are escaped too");
  const bare = withNotice("Body.\n", "text/markdown", change)!;
  assert.ok(bare.startsWith(note) && bare.endsWith("\n\nBody.\n"), bare);
});

Deno.test("[domain notice] nothing added to a page it does not fit", () => {
  assert.equal(withNotice("<html><body>no main</body></html>", "text/html", change), null);
  assert.equal(withNotice('{"profile":{}}', "application/json", change), null);
  assert.equal(withNotice("<svg/>", "image/svg+xml", change), null);
});

Deno.test("[domain notice] the page is asked for whole, without the answer's validators", () => {
  const asked = identityRequestHeaders(
    new Headers({
      accept: "text/html",
      "accept-encoding": "br, gzip",
      "if-none-match": '"abc"',
      "if-modified-since": "Wed, 02 Dec 2026 10:00:00 GMT",
    }),
  );
  assert.deepEqual([...asked], [["accept", "text/html"]]);
});
