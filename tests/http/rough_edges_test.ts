/**
 * Rough edges of issue 36, each checked where it showed: the documentation pages and the
 * access-request form come compressed (public, the same for everyone); every service page, the
 * sign-in form included, has a meta description; wide code blocks and tables of the
 * documentation pages are labelled regions that take the keyboard's focus; a feed entry links
 * to its version's HTML page.
 */
import assert from "node:assert/strict";
import { markdownToHtml } from "../../src/lib/markdown.ts";
import { createTestApp, TEST_BASE_URL } from "../support/app.ts";
import { publishVersion, team, workspace } from "../support/fixtures.ts";

const GZIP = { "accept-encoding": "gzip", accept: "text/html" };

Deno.test("[http] documentation pages and the access-request form are sent compressed", async () => {
  await using ctx = await createTestApp();
  const { owner, orgId, orgSlug } = await team(ctx);
  await (await ctx.call("PUT", `/organizations/${orgId}/nda`, {
    token: owner,
    json: { text: "Do not share what you read here with anyone outside your company." },
  })).body?.cancel();
  for (
    const path of [
      "/docs/evaluation",
      "/setup",
      "/agent-instructions",
      `/public/trust/${orgSlug}/documents/request`,
    ]
  ) {
    const res = await ctx.call("GET", path, { headers: GZIP });
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("content-encoding"), "gzip", path);
    assert.match(res.headers.get("vary") ?? "", /Accept-Encoding/i, path);
    assert.match(res.headers.get("cache-control") ?? "", /(^|, )public(,|$)/, path);
    const text = await new Response(res.body!.pipeThrough(new DecompressionStream("gzip")))
      .text();
    assert.match(text, /^<!doctype html>/i, path);
  }
});

Deno.test("[http] the sign-in page and the documentation pages have a meta description", async () => {
  await using ctx = await createTestApp({ env: { AUTH_MODE: "builtin" } });
  const query = new URLSearchParams({
    response_type: "code",
    client_id: ctx.config.auth.clientId,
    redirect_uri: "http://127.0.0.1:9/callback",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    state: "s",
  });
  const signIn = await ctx.call("GET", `/oauth2/authorize?${query}`);
  assert.equal(signIn.status, 200);
  assert.match(
    await signIn.text(),
    /<meta name="description" content="Sign in to the Trust Profile Service[^"]+">/,
  );
  const docs = await ctx.call("GET", "/docs/evaluation", { headers: { accept: "text/html" } });
  assert.match(await docs.text(), /<meta name="description" content="Evaluation rules: [^"]+">/);
});

Deno.test("[http] code blocks and tables of the service's documents are focusable labelled regions", () => {
  const out = markdownToHtml(
    "```sh\ndeno run a-long-command\n```\n\n    indented\n\n| Probe | Reads |\n| --- | --- |\n| a | b |\n",
  );
  assert.match(out, /<pre tabindex="0" role="region" aria-label="Code example 1"><code/);
  assert.match(out, /<pre tabindex="0" role="region" aria-label="Code example 2"><code>/);
  assert.match(
    out,
    /<div class="table-scroll" tabindex="0" role="region" aria-label="Table 1: Probe, Reads">\n?<table>/,
  );
  assert.match(out, /<\/table>\n?<\/div>/);
});

Deno.test("[http] each feed entry links to its version's HTML page, which answers", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  const xml = await (await ctx.call("GET", "/trust/acme/feed.xml")).text();
  const entry = xml.match(/<entry>[\s\S]*?<\/entry>/)?.[0] ?? "";
  const page = entry.match(/<link rel="alternate" type="text\/html" href="([^"]+)"\/>/)?.[1];
  assert.ok(page, `no text/html link in the entry:\n${entry}`);
  assert.equal(page, `${TEST_BASE_URL}/trust/acme/versions/1/index.html`);
  const res = await ctx.call("GET", new URL(page).pathname);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
  assert.match(await res.text(), /Version 1|version 1/);
});
