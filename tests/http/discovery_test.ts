/**
 * Discovery documents, fetched from a real listening server: each in its
 * format (RFC 9727, RFC 8414, ai-plugin v1, server cards, llmstxt.org), all
 * consistent with one another and with /openapi.json, and every link they
 * announce answering 200.
 */
import assert from "node:assert/strict";
import { addFormats, Ajv2020 } from "../deps.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

/** The server-card draft's own JSON Schema (tests/fixtures/README.md), its ServerCard. */
const validateServerCard = await (async () => {
  const schema = JSON.parse(
    await Deno.readTextFile(new URL("../fixtures/mcp/server-card.schema.json", import.meta.url)),
  );
  // Not strict, as upstream validates its examples: the generated schema has annotations.
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  ajv.addSchema(schema, "server-card.schema.json");
  return ajv.getSchema("server-card.schema.json#/$defs/ServerCard")!;
})();

const SERVER_CARD_TYPE = "application/mcp-server-card+json";

async function get(url: string, headers: Record<string, string> = {}) {
  return await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
}

async function getJson(server: TestServer, path: string) {
  const res = await get(`${server.baseUrl}${path}`);
  assert.equal(res.status, 200, path);
  assert.match(res.headers.get("content-type") ?? "", /json/, path);
  return { res, body: await res.json() };
}

async function assertResolves(url: string) {
  const res = await get(url);
  assert.equal(res.status, 200, `${url} answers 200`);
  await res.body?.cancel();
}

/** Absolute links of a Markdown text, `[label](url)`. */
function markdownLinks(text: string): string[] {
  return [...text.matchAll(/\[[^\]]+\]\((https?:[^)\s]+)\)/g)].map((m) => m[1]);
}

Deno.test("[discovery] JSON documents follow their formats and agree", async (t) => {
  await using server = await startTestServer({ worker: false });
  const base = server.baseUrl;
  const { body: openapi } = await getJson(server, "/openapi.json");

  await t.step("api-catalog is an RFC 9727 linkset whose links all resolve", async () => {
    const res = await get(`${base}/.well-known/api-catalog`);
    assert.equal(res.status, 200);
    assert.equal(
      res.headers.get("content-type"),
      'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
    );
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(res.headers.get("cache-control"), "public, max-age=300");
    const { linkset } = await res.json();
    assert.ok(Array.isArray(linkset) && linkset.length >= 1);
    for (const context of linkset) {
      assert.equal(typeof context.anchor, "string");
      assert.ok(URL.canParse(context.anchor), context.anchor);
      for (const [relation, targets] of Object.entries(context)) {
        if (relation === "anchor") continue;
        assert.ok(Array.isArray(targets) && targets.length > 0, relation);
        for (const target of targets as Array<{ href: string }>) {
          assert.ok(URL.canParse(target.href), target.href);
          await assertResolves(target.href);
        }
      }
    }
    const api = linkset.find((l: { anchor: string }) => l.anchor === openapi.servers[0].url);
    assert.ok(api, "the API's anchor is the OpenAPI server URL");
    assert.equal(api["service-desc"][0].href, `${base}/openapi.json`);
    assert.equal(api.status[0].href, `${base}/health`);
    assert.ok(linkset.some((l: { anchor: string }) => l.anchor === `${base}/mcp`));
    const centers = linkset.find((l: { anchor: string }) => l.anchor === `${base}/public/trust/`);
    assert.ok(centers, "the organization trust centers have their own link context");
    assert.match(centers["service-desc"][0].title, /\/public\/trust\/\{orgSlug\}/);
    assert.ok(openapi.paths["/public/trust/{orgSlug}"]?.get, "and OpenAPI describes them");
    const meta = api["service-meta"].map((l: { href: string }) => l.href);
    for (const path of ["/log", "/log/checkpoint", "/verify.ts"]) {
      assert.ok(meta.includes(`${base}${path}`), `the api-catalog lists ${path}`);
    }
  });

  await t.step(
    "api-catalog links the exports, each to its operation in /openapi.json",
    async () => {
      const { body } = await getJson(server, "/.well-known/api-catalog");
      const profiles = body.linkset.find((l: { anchor: string }) => l.anchor === `${base}/trust/`);
      assert.ok(profiles, "the project trust profiles have their own link context");
      const described = new Map<string, string>();
      for (const link of profiles["service-desc"] as Array<{ href: string; title: string }>) {
        const url = new URL(link.href);
        assert.equal(`${url.origin}${url.pathname}`, `${base}/openapi.json`);
        // The fragment is a JSON Pointer (RFC 6901) into the document, percent-encoded.
        const pointer = decodeURIComponent(url.hash.slice(1));
        let node: unknown = openapi;
        for (const token of pointer.split("/").slice(1)) {
          node =
            (node as Record<string, unknown>)[token.replaceAll("~1", "/").replaceAll("~0", "~")];
        }
        assert.ok(node && typeof node === "object" && "operationId" in node, pointer);
        described.set((node as { operationId: string }).operationId, link.title);
      }
      for (
        const [operationId, title] of [
          ["getTrustOscal", /OSCAL 1\.0\.6 Assessment Results.*oscal-assessment-results\.json/],
          ["getTrustAttestation", /SLSA Verification Summary.*vsa\.intoto\.json/],
          ["getTrustSecurityInsights", /Security Insights.*security-insights\.json/],
          ["getTrustJson", /trust\.json/],
        ] as const
      ) {
        assert.match(described.get(operationId) ?? "", title, operationId);
      }
    },
  );

  await t.step("GET and HEAD of the api-catalog carry the api-catalog Link", async () => {
    const expected = `<${base}/.well-known/api-catalog>; rel="api-catalog"`;
    // Identity on both, so the GET's body length is the Content-Length both announce.
    const identity = { "accept-encoding": "identity" };
    const head = await fetch(`${base}/.well-known/api-catalog`, {
      method: "HEAD",
      headers: identity,
    });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("link"), expected);
    assert.match(head.headers.get("content-type") ?? "", /^application\/linkset\+json/);
    assert.equal(await head.text(), "");
    const res = await get(`${base}/.well-known/api-catalog`, identity);
    assert.equal(res.headers.get("link"), expected);
    const length = (await res.arrayBuffer()).byteLength;
    assert.ok(length > 0);
    // RFC 9110 §8.6: a HEAD response's Content-Length is the GET response's.
    assert.equal(head.headers.get("content-length"), String(length));
  });

  await t.step("OAuth metadata has the RFC 8414 required members", async () => {
    const { body } = await getJson(server, "/.well-known/oauth-authorization-server");
    assert.equal(body.issuer, server.config.auth.issuer);
    for (const member of ["authorization_endpoint", "token_endpoint"]) {
      assert.ok(URL.canParse(body[member]), member);
    }
    assert.ok(Array.isArray(body.response_types_supported));
    assert.ok(body.response_types_supported.includes("code"));
  });

  let mcpUrl = "";
  await t.step("mcp.json names the transport URL and the tools", async () => {
    const { res, body } = await getJson(server, "/.well-known/mcp.json");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(body.name, "trust-profile-service");
    assert.equal(body.version, openapi.info.version);
    assert.ok(body.description.length > 20);
    assert.deepEqual(body.transport, { type: "streamable-http", url: `${base}/mcp` });
    assert.deepEqual(body.authentication, { type: "none" });
    assert.deepEqual(body.tools.map((tool: { name: string }) => tool.name), [
      "get_trust_profile",
      "get_trust_controls",
      "get_trust_signals",
      "get_trust_json",
      "get_trust_history",
      "search_trust_profiles",
      "get_subprocessors",
      "list_documents",
      "get_trust_updates",
      "list_organization_projects",
      "get_certifications",
      "get_trust_frameworks",
      "search_answers",
      "answer_questionnaire",
    ]);
    for (const tool of body.tools) assert.ok(tool.description.length > 40, tool.name);
    assert.equal(body.resourceTemplates[0].uriTemplate, "trust://{projectSlug}/trust.json");
    mcpUrl = body.transport.url;
    assert.ok(openapi.paths["/mcp"].post, "the transport URL is described in /openapi.json");
  });

  let cardUrl = "";
  await t.step("ai-catalog.json lists the server card as the draft's discovery asks", async () => {
    const res = await get(`${base}/.well-known/ai-catalog.json`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/ai-catalog+json");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const catalog = await res.json();
    assert.equal(catalog.specVersion, "1.0");
    assert.ok(catalog.host.displayName.length > 0);
    const cards = catalog.entries.filter((e: { type: string }) => e.type === SERVER_CARD_TYPE);
    assert.equal(cards.length, 1);
    const [entry] = cards;
    assert.equal(entry.mediaType, SERVER_CARD_TYPE, "the catalog 1.0 text's member name too");
    assert.match(entry.identifier, /^urn:air:[^:]+:mcp:trust-profile-service$/);
    assert.ok(entry.displayName.length > 0);
    assert.equal(entry.url, `${base}/mcp/server-card`, "<streamable-http-url>/server-card");
    assert.equal(entry.data, undefined, "exactly one of url and data");
    cardUrl = entry.url;
  });

  await t.step("the server card is served at its URL, cacheable and revalidated", async () => {
    const res = await get(cardUrl, { accept: SERVER_CARD_TYPE });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), SERVER_CARD_TYPE);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("access-control-expose-headers") ?? "", /\bETag\b/);
    assert.equal(res.headers.get("cache-control"), "public, max-age=3600");
    const etag = res.headers.get("etag");
    // Compressed for this fetch (it accepts gzip and br): the ETag names the coding.
    assert.match(etag ?? "", /^"[0-9a-f]{64}(\.br|\.gz)?"$/);
    const card = await res.json();
    assert.ok(validateServerCard(card), JSON.stringify(validateServerCard.errors));
    const again = await get(cardUrl, { "if-none-match": etag! });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get("etag"), etag);
    assert.equal(await again.text(), "");
    const head = await fetch(cardUrl, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    const preflight = await fetch(cardUrl, {
      method: "OPTIONS",
      headers: {
        origin: "https://agent.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "content-type, if-none-match",
      },
    });
    assert.equal(preflight.status, 204);
    await preflight.body?.cancel();
    assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /\bGET\b/);
    const allowed = (preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    for (const header of ["content-type", "if-none-match"]) assert.ok(allowed.includes(header));
    const { body: listed } = await getJson(server, "/.well-known/mcp/server-cards.json");
    assert.deepEqual(listed, [card], "the listed card is the same card");
  });

  await t.step("server-cards.json holds cards valid against the draft's schema (v1)", async () => {
    const { body } = await getJson(server, "/.well-known/mcp/server-cards.json");
    assert.ok(Array.isArray(body) && body.length === 1);
    const [card] = body;
    assert.ok(validateServerCard(card), JSON.stringify(validateServerCard.errors));
    assert.equal(
      card.$schema,
      "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
    );
    assert.match(card.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    assert.equal(card.version, openapi.info.version);
    assert.ok(card.description.length > 0 && card.description.length <= 100);
    assert.equal(card.remotes.length, 1);
    assert.equal(card.remotes[0].type, "streamable-http");
    assert.equal(card.remotes[0].url, mcpUrl, "the same URL as mcp.json");
    // fixed-instant: the MCP protocol revision's name, not a time
    assert.ok(card.remotes[0].supportedProtocolVersions.includes("2025-06-18"));
    await assertResolves(card.websiteUrl);
    await assertResolves(card.icons[0].src);
  });

  await t.step("ai-plugin.json has the v1 fields and points at /openapi.json", async () => {
    const { body } = await getJson(server, "/.well-known/ai-plugin.json");
    assert.equal(body.schema_version, "v1");
    assert.ok(body.name_for_human.length > 0 && body.name_for_human.length <= 20);
    assert.match(body.name_for_model, /^[a-zA-Z0-9_]{1,50}$/);
    assert.ok(body.description_for_human.length > 0 && body.description_for_human.length <= 120);
    assert.ok(body.description_for_model.length > 0 && body.description_for_model.length <= 8000);
    assert.deepEqual(body.auth, { type: "none" });
    assert.equal(body.api.type, "openapi");
    assert.equal(body.api.url, `${base}/openapi.json`);
    assert.match(body.contact_email, /^[^@\s]+@[^@\s]+$/);
    const logo = await get(body.logo_url);
    assert.equal(logo.status, 200);
    assert.match(logo.headers.get("content-type") ?? "", /^image\//);
    await logo.body?.cancel();
    await assertResolves(body.legal_info_url);
  });

  await t.step("every discovery route is described in /openapi.json", () => {
    for (
      const path of [
        "/.well-known/api-catalog",
        "/.well-known/mcp.json",
        "/.well-known/mcp/server-cards.json",
        "/.well-known/ai-catalog.json",
        "/mcp/server-card",
        "/.well-known/ai-plugin.json",
        "/.well-known/oauth-authorization-server",
        "/llms.txt",
        "/robots.txt",
        "/agent-instructions.md",
        "/agent-instructions",
        "/setup.md",
        "/setup",
      ]
    ) {
      assert.ok(openapi.paths[path]?.get, path);
    }
  });
});

Deno.test("[discovery] llms.txt and the guides are Markdown whose links resolve", async (t) => {
  await using server = await startTestServer({ worker: false });
  const base = server.baseUrl;

  await t.step("llms.txt: H1, blockquote, H2 sections of link lists, all resolving", async () => {
    const res = await get(`${base}/llms.txt`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; charset=utf-8/);
    assert.equal(res.headers.get("cache-control"), "public, max-age=300");
    const text = await res.text();
    const lines = text.split("\n");
    assert.match(lines[0], /^# \S/, "starts with an H1");
    assert.equal(lines.filter((l) => l.startsWith("# ")).length, 1, "exactly one H1");
    const firstSection = lines.findIndex((l) => l.startsWith("## "));
    assert.ok(lines.slice(1, firstSection).some((l) => /^> \S/.test(l)), "a summary blockquote");
    const sections = text.split(/^## /m).slice(1);
    assert.ok(sections.length >= 2);
    for (const section of sections) {
      const items = section.split("\n").filter((l) => l.startsWith("- "));
      assert.ok(items.length > 0, `section "${section.split("\n")[0]}" lists links`);
      for (const item of items) assert.match(item, /^- \[[^\]]+\]\(https?:\/\/[^)\s]+\)(: .+)?$/);
    }
    const links = markdownLinks(text);
    assert.ok(links.includes(`${base}/agent-instructions.md`));
    assert.ok(links.includes(`${base}/setup.md`));
    assert.ok(text.includes(`${base}/public/trust/{orgSlug}`), "names the trust centers");
    for (const link of links) await assertResolves(link);
    for (
      const tool of [
        "get_trust_history",
        "search_trust_profiles",
        "/versions",
        "list_documents",
        `${base}/trust/{projectSlug}/documents`,
      ]
    ) {
      assert.ok(text.includes(tool), `llms.txt names ${tool}`);
    }
    for (const path of ["/log", "/log/checkpoint", "/verify.ts"]) {
      assert.ok(links.includes(`${base}${path}`), `llms.txt links ${path}`);
    }
    for (
      const name of ["oscal-assessment-results.json", "vsa.intoto.json", "security-insights.json"]
    ) {
      assert.ok(text.includes(name), `llms.txt names the export ${name}`);
    }
  });

  for (const page of ["/agent-instructions", "/setup"]) {
    await t.step(`${page}: .md and Accept: text/markdown are the same Markdown`, async () => {
      const md = await get(`${base}${page}.md`);
      assert.equal(md.status, 200);
      assert.match(md.headers.get("content-type") ?? "", /^text\/markdown/);
      const text = await md.text();
      assert.match(text, /^# \S/);
      const negotiated = await get(`${base}${page}`, { accept: "text/markdown" });
      assert.match(negotiated.headers.get("content-type") ?? "", /^text\/markdown/);
      assert.equal(negotiated.headers.get("vary"), "Accept, Accept-Encoding");
      assert.equal(await negotiated.text(), text);
      for (const link of markdownLinks(text)) await assertResolves(link.replace(/#.*$/, ""));
    });

    await t.step(`${page}: HTML for browsers and by default`, async () => {
      for (const accept of ["text/html,application/xhtml+xml,*/*;q=0.8", "*/*"]) {
        const res = await get(`${base}${page}`, { accept });
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
        assert.equal(res.headers.get("cache-control"), "public, max-age=300");
        const html = await res.text();
        assert.match(html, /^<!doctype html>/);
        assert.match(html, /<h1 id="[^"]+">/);
      }
    });
  }

  await t.step("agent instructions cover public reads, MCP, polling and signatures", async () => {
    const text = await (await get(`${base}/agent-instructions.md`)).text();
    for (
      const needle of [
        "/trust/{projectSlug}",
        "/public/trust/{orgSlug}",
        "/trust/{projectSlug}/.well-known/security.txt",
        `${base}/mcp`,
        "get_trust_profile",
        "| `get_trust_history` | `{ projectSlug, cursor?, limit? }` | `GET /trust/{projectSlug}/versions` |",
        "| `search_trust_profiles` | `{ query }` | `GET /public/trust-profiles?query={query}` |",
        "| `get_subprocessors` | `{ orgSlug }` | `GET /public/trust/{orgSlug}/subprocessors` |",
        "| `list_documents` | `{ orgSlug }` | `GET /public/trust/{orgSlug}/documents` |",
        "| `get_certifications` | `{ orgSlug }` | `GET /public/trust/{orgSlug}/certifications` |",
        "| `list_organization_projects` | `{ orgSlug }` | `GET /public/trust/{orgSlug}` |",
        "/trust/{projectSlug}/documents",
        "| `get_trust_updates` | `{ projectSlug, cursor?, limit? }` | `GET /trust/{projectSlug}/updates` |",
        "| `get_trust_frameworks` | `{ projectSlug }` | `GET /trust/{projectSlug}/frameworks` |",
        "| `search_answers` | `{ orgSlug, q?, cursor?, limit? }` | `GET /public/trust/{orgSlug}/answers?q={q}` |",
        "| `answer_questionnaire` | `{ orgSlug, questions }` | `POST /public/trust/{orgSlug}/questionnaire-answers` |",
        "/trust/{projectSlug}/updates",
        "once per minute",
        `${base}/.well-known/jwks.json`,
        "trust.json.jws",
        `deno run --allow-net ${base}/verify.ts {projectSlug}`,
        `${base}/log/checkpoint`,
        "/trust/{projectSlug}/vsa.intoto.json",
        "/trust/{projectSlug}/oscal-assessment-results.json",
        "/trust/{projectSlug}/security-insights.json",
        "## Terms of use",
      ]
    ) {
      assert.ok(text.includes(needle), needle);
    }
  });

  await t.step("the setup guide walks from account to publication", async () => {
    const text = await (await get(`${base}/setup.md`)).text();
    const order = [
      "/onboarding/bootstrap",
      "/collectors",
      "/heartbeat",
      "/ingest/evidence",
      "/publish",
    ].map((needle) => text.indexOf(needle));
    assert.ok(order.every((i) => i > 0), String(order));
    assert.deepEqual(order, [...order].sort((a, b) => a - b), "in the order to follow");
  });
});

Deno.test("[discovery] robots.txt lets crawlers read public pages, not the operator side", async () => {
  await using server = await startTestServer({ worker: false });
  const res = await fetch(`${server.baseUrl}/robots.txt`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
  const lines = (await res.text()).split("\n").filter((l) => l && !l.startsWith("#"));
  assert.equal(lines[0], "User-agent: *");
  for (const rule of lines.slice(1)) assert.match(rule, /^(Allow|Disallow): \/\S*$/, rule);
  assert.ok(lines.includes("Allow: /"));
  for (const path of ["/dashboard/", "/oauth2/", "/projects/", "/mcp"]) {
    assert.ok(lines.includes(`Disallow: ${path}`), path);
  }
  // The longest match decides (RFC 9309 §2.2.2): the server card stays findable.
  assert.ok(lines.includes("Allow: /mcp/server-card"));
  assert.ok(!lines.some((l) => /Disallow: \/(trust|public)/.test(l)), "trust pages are findable");
});
