import assert from "node:assert/strict";
import { DESIGN_TOKEN_NAMES, DESIGN_TOKENS_CSS } from "../../src/lib/design_tokens.ts";
import { TRUST_PAGE_STYLE } from "../../src/publish/render/_style.ts";
import { createTestApp } from "../support/app.ts";

const STYLESHEETS = {
  "dashboard.css": new URL("../../static/dashboard/dashboard.css", import.meta.url),
  "service.css": new URL("../../static/service.css", import.meta.url),
};

/** Custom properties a stylesheet reads that are neither tokens nor set in the same sheet. */
function unknownProperties(css: string): string[] {
  const used = new Set([...css.matchAll(/var\(--([a-z0-9-]+)/g)].map((m) => m[1]));
  const local = new Set([...css.matchAll(/--([a-z0-9-]+)\s*:/g)].map((m) => m[1]));
  return [...used].filter((name) => !DESIGN_TOKEN_NAMES.includes(name) && !local.has(name));
}

Deno.test("[lib] one set of design tokens for the trust pages, the service pages and the dashboard", async (t) => {
  await t.step("the trust page inlines the tokens and reads no other property", () => {
    assert.ok(TRUST_PAGE_STYLE.includes(DESIGN_TOKENS_CSS));
    assert.deepEqual(unknownProperties(TRUST_PAGE_STYLE.replace(DESIGN_TOKENS_CSS, "")), []);
    assert.match(DESIGN_TOKENS_CSS, /^[\x20-\x7e\n]*$/, "ASCII only: the CSP allows it by hash");
  });
  for (const [name, url] of Object.entries(STYLESHEETS)) {
    await t.step(`${name} sets no colour of its own on :root and reads only tokens`, async () => {
      const css = await Deno.readTextFile(url);
      assert.doesNotMatch(css, /:root\s*\{/);
      assert.deepEqual(unknownProperties(css), []);
    });
  }
  await t.step("/static/tokens.css serves the same tokens", async () => {
    await using ctx = await createTestApp();
    const res = await ctx.call("GET", "/static/tokens.css");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(await res.text(), DESIGN_TOKENS_CSS);
  });
});
