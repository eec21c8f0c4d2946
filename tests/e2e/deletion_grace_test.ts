/**
 * The deletion grace over real HTTP and MCP (the SDK's own client), on a fake clock: while a
 * project's deletion is scheduled, every public surface of it (each GET operation of
 * /openapi.json under its slug in every format, the `.md`/`.html`/`.json`/`.xml` forms, its
 * custom domain and hosted subdomain, the MCP tools) answers 410 with `no-store` and a notice
 * saying it is scheduled, when, and that it may return; its log entries keep their leaf hash
 * and proofs but withhold their text; publishing it is refused (409) and automatic publishes
 * skip it; the organization's other project, its answers (JSON, `?q=`, Markdown, HTML, MCP)
 * and its questionnaire matching keep answering without citing it (its trust center lists the
 * other project only; its certification and document lists, JSON, HTML and Markdown, leave out
 * acme's own, whose download answers 410 like acme's pages). Then the same for the whole
 * organization, and after the job every form answers 410 "was deleted". A project's deletion
 * alone, run to its end: its document's download answers 410 "was deleted", not 404.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DELETION_GRACE_MS } from "../../src/domain/deletion.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { publishIfChanged } from "../../src/publish/publish.ts";
import { createDomain } from "../../src/store/domains.ts";
import { makePdf } from "../support/documents.ts";
import { getProject } from "../../src/store/projects.ts";
import type { TestApp } from "../support/app.ts";
import { concretePaths, type Operation, world } from "../support/public_world.ts";
import { getWithHost } from "../support/raw_http.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const ACCEPTS = [undefined, "text/html", "text/markdown", "application/json"];
const SUFFIXES = [".md", ".html", ".json", ".xml"];
const SCHEDULED =
  /scheduled for deletion by its owner on \d{4}-\d\d-\d\d \d\d:\d\d UTC.*may return/;
const DELETED = /was deleted by its owner/;
/** A mention of the project "acme" (its pages, not "acme-labs"'s). */
const CITES_ACME = /\/trust\/acme(?![a-z0-9-])|"projectSlug":"acme"|"slug":"acme"/;
const HOSTED = "acme-pages.pages.trust.example";
const DOMAIN = "trust.acme.example";

/** The test server seen as the in-process test app the public world is built with. */
function asTestApp(server: TestServer, clock: ReturnType<typeof fakeClock>): TestApp {
  return {
    app: server.app,
    kv: server.services.kv,
    config: server.config,
    services: server.services,
    clock,
    log: server.log,
    tokenFor: (sub) => server.tokenFor(sub),
    call: (method, path, opts = {}) => {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body = opts.body;
      if (opts.json !== undefined) {
        body = JSON.stringify(opts.json);
        headers["content-type"] ??= "application/json";
      }
      return fetch(`${server.baseUrl}${path}`, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(20_000),
      });
    },
    [Symbol.asyncDispose]: () => server.close(),
  };
}

async function ok(res: Response, what: string) {
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

function noStore(res: { headers: Headers }): boolean {
  return /(^|,)\s*no-store\s*(,|$)/.test(res.headers.get("cache-control") ?? "");
}

/** Runs every due job until none is (bounded). */
async function drain(server: TestServer) {
  for (let round = 0; round < 20; round++) {
    if ((await server.services.jobs.drain(10_000)) === 0) return;
  }
}

/** Whether a GET template names a project's (`project`) or the organization's public pages. */
function scopeOf(template: string): "project" | "organization" | null {
  if (/^\/(trust|log\/publications)\/\{projectSlug\}/.test(template)) return "project";
  if (/^\/public\/trust\/\{orgSlug\}/.test(template)) return "organization";
  return null;
}

/** A text body's words, or "" for a binary one (spreadsheets, images). */
async function textOf(res: Response): Promise<string> {
  const type = res.headers.get("content-type") ?? "";
  if (/json|text|xml|markdown|csv/.test(type)) return await res.text();
  await res.body?.cancel();
  return "";
}

/** Every public GET of /openapi.json in `scopes`, each concrete URL with its query. */
async function publicGets(
  ctx: TestApp,
  params: Record<string, string>,
  queries: Record<string, Record<string, string>>,
  scopes: ReadonlyArray<"project" | "organization">,
): Promise<{ url: string; auth: boolean }[]> {
  const doc = await (await ctx.call("GET", "/openapi.json")).json();
  const urls: { url: string; auth: boolean }[] = [];
  for (
    const [template, item] of Object.entries(doc.paths) as [string, Record<string, Operation>][]
  ) {
    const operation = item.get;
    const scope = scopeOf(template);
    if (!operation || !scope || !scopes.includes(scope)) continue;
    const query = new URLSearchParams(queries[template] ?? {}).toString();
    for (const path of concretePaths(template, operation, params)) {
      urls.push({ url: query ? `${path}?${query}` : path, auth: operation.security?.length !== 0 });
    }
  }
  return urls;
}

/**
 * Asserts that every URL answers 410 in every format, not stored by caches, with the notice
 * matching `notice` (the page's too). Returns how many answers were checked.
 */
async function assertAllGone(
  ctx: TestApp,
  urls: readonly { url: string; auth: boolean }[],
  token: string,
  notice: RegExp,
): Promise<number> {
  const failures: string[] = [];
  let checked = 0;
  for (const { url, auth } of urls) {
    for (const accept of ACCEPTS) {
      const headers: Record<string, string> = accept ? { accept } : {};
      const res = await ctx.call("GET", url, { token: auth ? token : undefined, headers });
      const body = await res.text();
      checked++;
      const label = `${url} (${accept ?? "no Accept"})`;
      if (res.status !== 410) failures.push(`${label}: ${res.status}`);
      else if (!noStore(res)) {
        failures.push(`${label}: Cache-Control ${res.headers.get("cache-control")}`);
      } else if (!notice.test(body)) failures.push(`${label}: ${body.slice(0, 200)}`);
    }
  }
  assert.deepEqual(failures, []);
  return checked;
}

/** One MCP tool call through the SDK client: whether it failed, and its text. */
async function tool(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ text?: string }>;
  return { isError: result.isError === true, text: content[0]?.text ?? "" };
}

const PROJECT_TOOLS: Array<[string, Record<string, unknown>]> = [
  ["get_trust_profile", {}],
  ["get_trust_controls", {}],
  ["get_trust_signals", {}],
  ["get_trust_json", {}],
  ["get_trust_history", {}],
  ["get_trust_updates", {}],
  ["get_trust_frameworks", {}],
];
const ORG_TOOLS: Array<[string, Record<string, unknown>]> = [
  ["get_subprocessors", {}],
  ["list_documents", {}],
  ["list_organization_projects", {}],
  ["get_certifications", {}],
  ["search_answers", {}],
  ["search_answers", { q: "sbom" }],
  ["answer_questionnaire", { questions: [{ text: "Do you produce an SBOM for each release?" }] }],
];

/** The custom domain's and the hosted subdomain's answers: all 410, no-store, `notice`. */
async function assertHostsGone(server: TestServer, notice: RegExp) {
  for (const host of [DOMAIN, HOSTED]) {
    for (
      const [path, accept] of [
        ["/", "text/html"],
        ["/", "application/json"],
        ["/trust.json", "application/json"],
        ["/index.md", "text/markdown"],
        ["/index.html", "text/html"],
        ["/feed.xml", "application/xml"],
        ["/.well-known/security.txt", "text/plain"],
      ]
    ) {
      const res = await getWithHost(server.baseUrl, path, host, { accept });
      assert.equal(res.status, 410, `${host}${path}: ${res.status} ${res.body.slice(0, 200)}`);
      assert.ok(noStore(res), `${host}${path}: ${res.headers.get("cache-control")}`);
      assert.match(res.body, notice, `${host}${path}`);
    }
  }
}

Deno.test("[e2e] deletion grace: every public surface of a scheduled project or organization answers 410 no-store saying it may return, the rest of the organization keeps answering without it, and 410 deleted after the job", async () => {
  const clock = fakeClock(new Date());
  await using server = await startTestServer({
    clock,
    worker: false,
    env: { TRUST_PAGE_BASE: "http://pages.trust.example" },
  });
  const ctx = asTestApp(server, clock);
  const { token, params, queries } = await world(ctx);
  const orgId = params.organizationId;
  const orgSlug = params.orgSlug;
  const acmeId = params.projectId;
  const api = (method: string, path: string, json?: unknown) =>
    ctx.call(method, path, { token, json });

  // The organization's other project, published; answers citing a control of each project.
  const labs = await ok(
    await api("POST", "/projects", {
      organizationId: orgId,
      name: "Labs",
      slug: "acme-labs",
      visibility: "public",
    }),
    "second project",
  );
  const labsId: string = labs.project.id;
  await ok(await api("POST", `/projects/${labsId}/publish`), "publish labs");
  const sbomOf = async (projectId: string) => {
    const { controls } = await ok(await api("GET", `/projects/${projectId}/controls`), "controls");
    return controls.find((c: { key: string }) => c.key === "evidence.sbom").id as string;
  };
  const acmeCertification = await ok(
    await api("POST", `/organizations/${orgId}/certifications`, {
      framework: "iso27001-2022",
      status: "in_progress",
      projectId: acmeId,
    }),
    "certification of acme",
  );
  await ok(await api("POST", `/projects/${acmeId}/publish`), "publish acme with it");
  // A document of acme alone, listed on the organization's trust center.
  const acmeDocument = await ok(
    await ctx.call(
      "POST",
      `/organizations/${orgId}/documents?title=Acme%20pentest&visibility=public&projectId=${acmeId}`,
      {
        token,
        body: await makePdf() as BodyInit,
        headers: { "content-type": "application/pdf" },
      },
    ),
    "document of acme",
  );
  for (const [projectId, extra] of [[acmeId, "Acme"], [labsId, "Labs"]] as const) {
    const citations: { kind: string; id: string }[] = [
      { kind: "control", id: await sbomOf(projectId) },
    ];
    if (projectId === acmeId) {
      citations.push({ kind: "certification", id: acmeCertification.certification.id });
    }
    await ok(
      await api("POST", `/organizations/${orgId}/answers`, {
        question: `Do you produce an SBOM for each release of ${extra}?`,
        answer: "Yes, CycloneDX for every release.",
        category: "Supply chain",
        visibility: "public",
        citations,
        questionnaireRefs: [{ questionnaire: "caiq-v4", id: "STA-08.1" }],
      }),
      "answer",
    );
  }
  // A verified custom domain and a hosted subdomain of "acme".
  const at = clock.now().toISOString();
  await createDomain(server.services.kv, {
    id: crypto.randomUUID(),
    projectId: acmeId,
    domain: DOMAIN,
    verificationStatus: "verified",
    verificationMethod: "dns_txt",
    verificationToken: "t",
    verifiedAt: at,
    lastCheckedAt: at,
    createdAt: at,
    updatedAt: at,
  });
  await ok(await api("PATCH", `/projects/${acmeId}`, { hostedSubdomain: "acme-pages" }), "hosted");
  await drain(server);
  for (const host of [DOMAIN, HOSTED]) {
    const res = await getWithHost(server.baseUrl, "/trust.json", host);
    assert.equal(res.status, 200, `${host} before: ${res.status}`);
  }

  // Before: the organization's answers cite acme; the log names it. What each org URL answers.
  const orgUrls = await publicGets(ctx, params, queries, ["organization"]);
  const labsParams = { ...params, projectSlug: "acme-labs", id: labsId, projectId: labsId };
  const labsUrls = (await publicGets(ctx, labsParams, queries, ["project"]))
    .filter(({ url }) => !/\/(updates|documents)\/[0-9a-f-]{36}/.test(url));
  const before = new Map<string, number>();
  for (const { url, auth } of [...orgUrls, ...labsUrls]) {
    const res = await ctx.call("GET", url, { token: auth ? token : undefined });
    await res.body?.cancel();
    before.set(url, res.status);
  }
  const orgLists = async () => {
    const bodies: { url: string; accept: string; body: string }[] = [];
    for (const path of ["certifications", "documents"]) {
      for (const accept of ["application/json", "text/html", "text/markdown"]) {
        const url = `/public/trust/${orgSlug}/${path}`;
        const res = await ctx.call("GET", url, { headers: { accept } });
        assert.equal(res.status, 200, `${url} ${accept}`);
        bodies.push({ url, accept, body: await textOf(res) });
      }
    }
    return bodies;
  };
  for (const { url, accept, body } of await orgLists()) {
    const acmeItem = url.endsWith("documents") ? /Acme pentest/ : CITES_ACME;
    assert.match(body, acmeItem, `${url} ${accept} lists acme's own item to begin with`);
  }
  const answersBefore = await (await ctx.call("GET", `/public/trust/${orgSlug}/answers`)).text();
  assert.match(answersBefore, CITES_ACME, "the world's answers cite acme to begin with");
  const treeSize = async () => (await (await ctx.call("GET", "/log")).json()).treeSize as number;
  const sizeBefore = await treeSize();
  const entries: { index: number; leafHash: string; entry: string | null }[] = [];
  for (let index = 0; index < sizeBefore; index++) {
    entries.push(await ok(await ctx.call("GET", `/log/entries/${index}`), "entry"));
  }
  const acmeEntries = entries.filter((e) => e.entry?.includes("\nacme\n"));
  const labsEntries = entries.filter((e) => e.entry?.includes("\nacme-labs\n"));
  assert.ok(acmeEntries.length >= 2 && labsEntries.length >= 1);

  const client = new Client({ name: "deletion-grace-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)));
  try {
    // The project's deletion is scheduled.
    const scheduled = await api("POST", `/projects/${acmeId}/deletion`, { confirm: "acme" });
    assert.equal(scheduled.status, 202);
    await scheduled.body?.cancel();
    await drain(server);

    // Every public GET of the project, in every format, and its suffix forms: 410. So does
    // the public download of its own document, under the organization's trust center.
    const acmeUrls = await publicGets(ctx, params, queries, ["project"]);
    const suffixed = SUFFIXES.map((suffix) => ({ url: `/trust/acme${suffix}`, auth: false }));
    const downloads = [{
      url: `/public/trust/${orgSlug}/documents/${acmeDocument.document.id}/download`,
      auth: false,
    }];
    const checked = await assertAllGone(
      ctx,
      [...acmeUrls, ...suffixed, ...downloads],
      token,
      SCHEDULED,
    );
    assert.ok(checked > 100, `${checked} answers checked`);
    const page = await ctx.call("GET", "/trust/acme", { headers: { accept: "text/html" } });
    assert.match(await page.text(), /<h1>Scheduled for deletion<\/h1>/);
    await assertHostsGone(server, SCHEDULED);
    for (const [name, args] of PROJECT_TOOLS) {
      const result = await tool(client, name, { projectSlug: "acme", ...args });
      assert.ok(result.isError, name);
      assert.match(result.text, SCHEDULED, name);
    }

    // The organization and its other project answer as before, and cite nothing of acme.
    const failures: string[] = [];
    for (const { url, auth } of [...orgUrls, ...labsUrls]) {
      for (const accept of ACCEPTS) {
        const res = await ctx.call("GET", url, {
          token: auth ? token : undefined,
          headers: accept ? { accept } : {},
        });
        const body = await textOf(res);
        if (res.status !== before.get(url)) failures.push(`${url} ${accept}: ${res.status}`);
        else if (/\/answers|acme-labs/.test(url) && CITES_ACME.test(body)) {
          failures.push(`${url} ${accept} cites acme`);
        }
      }
    }
    for (const suffix of SUFFIXES) {
      const res = await ctx.call("GET", `/public/trust/${orgSlug}${suffix}`);
      await res.body?.cancel();
      if (res.status !== ([".md", ".html"].includes(suffix) ? 200 : 404)) {
        failures.push(`${suffix}: ${res.status}`);
      }
    }
    const center = await ok(await ctx.call("GET", `/public/trust/${orgSlug}`), "center");
    assert.deepEqual(center.projects.map((p: { slug: string }) => p.slug), ["acme-labs"]);
    // Its certification and document lists leave out acme's own items (JSON, HTML, Markdown).
    for (const { url, accept, body } of await orgLists()) {
      assert.doesNotMatch(body, CITES_ACME, `${url} ${accept} cites acme`);
      assert.doesNotMatch(body, /Acme pentest/, `${url} ${accept} lists acme's document`);
    }
    assert.deepEqual(failures, []);
    const answers = await ok(
      await ctx.call("GET", `/public/trust/${orgSlug}/answers?q=sbom`),
      "answers ?q=",
    );
    const cited = answers.answers.flatMap((a: { citations: { project?: { slug: string } }[] }) =>
      a.citations.map((c) => c.project?.slug ?? null)
    );
    assert.deepEqual(cited.filter(Boolean), ["acme-labs"], "labs is still cited, acme is not");
    assert.equal(answers.answers.length, 2, "both answers stay");
    const matched = await ctx.call("POST", `/public/trust/${orgSlug}/questionnaire-answers`, {
      json: { questions: [{ text: "Do you produce an SBOM for each release?" }] },
    });
    const matchedText = await matched.text();
    assert.equal(matched.status, 200, matchedText);
    assert.doesNotMatch(matchedText, CITES_ACME);
    assert.match(matchedText, /acme-labs/);
    for (const [name, args] of ORG_TOOLS) {
      const result = await tool(client, name, { orgSlug, ...args });
      assert.ok(!result.isError, `${name}: ${result.text.slice(0, 200)}`);
      if (/answer/.test(name)) assert.doesNotMatch(result.text, CITES_ACME, name);
    }
    const labsProfile = await tool(client, "get_trust_profile", { projectSlug: "acme-labs" });
    assert.ok(!labsProfile.isError);

    // The log: acme's entries keep their leaf hash and proofs, without their text.
    for (const before of acmeEntries) {
      const now = await ok(await ctx.call("GET", `/log/entries/${before.index}`), "entry");
      assert.deepEqual(now, { index: before.index, leafHash: before.leafHash, entry: null });
      const proof = await ok(
        await ctx.call("GET", `/log/entries/${before.index}/inclusion`),
        "inclusion",
      );
      assert.equal(proof.leafHash, before.leafHash);
      assert.equal(proof.entry, null);
      assert.ok(proof.proof.length > 0);
    }
    for (const before of labsEntries) {
      assert.deepEqual(
        await ok(await ctx.call("GET", `/log/entries/${before.index}`), "e"),
        before,
      );
    }

    // Publishing acme is refused, manual and automatic; labs publishes.
    const refused = await api("POST", `/projects/${acmeId}/publish`);
    assert.equal(refused.status, 409);
    const envelope = await refused.json();
    assert.equal(envelope.error.code, "conflict");
    assert.match(envelope.error.message, /deletion is scheduled/);
    const keys = server.services.keys;
    const publishDeps = {
      ...server.services,
      signingKey: keys.publications,
      logKey: keys.log,
    };
    // A new declaration of acme: an automatic publish would make a version of it.
    await ok(
      await api("POST", `/organizations/${orgId}/certifications`, {
        framework: "soc2-type2",
        status: "in_progress",
        projectId: acmeId,
      }),
      "another certification of acme",
    );
    const acme = (await getProject(server.services.kv, acmeId))!;
    assert.equal(await publishIfChanged(publishDeps, acme), null);
    assert.equal(await treeSize(), sizeBefore, "no log entry was added during the grace");
    await ok(await api("POST", `/projects/${labsId}/publish`), "publish labs during acme's grace");
    assert.equal(await treeSize(), sizeBefore + 1);

    // Undone: acme is back, and the automatic publish it was refused now happens.
    assert.equal((await api("DELETE", `/projects/${acmeId}/deletion`)).status, 204);
    await drain(server);
    assert.equal((await ctx.call("GET", "/trust/acme/trust.json")).status, 200);
    assert.notEqual(await publishIfChanged(publishDeps, acme), null);

    // The whole organization's deletion is scheduled: every surface of it answers 410.
    const orgScheduled = await api("POST", `/organizations/${orgId}/deletion`, {
      confirm: orgSlug,
    });
    assert.equal(orgScheduled.status, 202);
    await orgScheduled.body?.cancel();
    await drain(server);
    const orgSuffixed = SUFFIXES.map((suffix) => ({
      url: `/public/trust/${orgSlug}${suffix}`,
      auth: false,
    }));
    const everything = [
      ...downloads,
      ...acmeUrls,
      ...labsUrls,
      ...orgUrls,
      ...suffixed,
      ...orgSuffixed,
      ...SUFFIXES.map((suffix) => ({ url: `/trust/acme-labs${suffix}`, auth: false })),
    ];
    await assertAllGone(ctx, everything, token, SCHEDULED);
    await assertHostsGone(server, SCHEDULED);
    const orgMatch = await ctx.call("POST", `/public/trust/${orgSlug}/questionnaire-answers`, {
      json: { questions: [{ text: "Do you produce an SBOM for each release?" }] },
    });
    assert.equal(orgMatch.status, 410);
    assert.ok(noStore(orgMatch));
    assert.match(await orgMatch.text(), SCHEDULED);
    for (const [name, args] of [...ORG_TOOLS, ...PROJECT_TOOLS]) {
      const slug = name in Object.fromEntries(ORG_TOOLS)
        ? { orgSlug }
        : { projectSlug: "acme-labs" };
      const result = await tool(client, name, { ...slug, ...args });
      assert.ok(result.isError, name);
      assert.match(result.text, SCHEDULED, name);
    }
    const labsRefused = await api("POST", `/projects/${labsId}/publish`);
    assert.equal(labsRefused.status, 409);
    await labsRefused.body?.cancel();

    // After the grace the job deletes it: every form answers 410 "was deleted".
    clock.advance(DELETION_GRACE_MS + 60_000);
    await drain(server);
    await assertAllGone(ctx, everything, token, DELETED);
    // The deleted project's custom domain answers 410 "deleted" on every path (its tombstone
    // holds it); its hosted subdomain, not remembered, 404: neither serves the service's own
    // routes (before, "/" redirected to the dashboard, served on the vendor's domain).
    for (
      const path of ["/", "/trust.json", "/index.md", "/.well-known/security.txt", "/dashboard/"]
    ) {
      const onDomain = await getWithHost(server.baseUrl, path, DOMAIN, { accept: "text/html" });
      assert.equal(onDomain.status, 410, `${DOMAIN}${path}: ${onDomain.status}`);
      assert.ok(noStore(onDomain), `${DOMAIN}${path}`);
      assert.match(onDomain.body, DELETED, `${DOMAIN}${path}`);
      const onHosted = await getWithHost(server.baseUrl, path, HOSTED, {
        accept: "application/json",
      });
      assert.equal(onHosted.status, 404, `${HOSTED}${path}: ${onHosted.status}`);
      assert.equal(JSON.parse(onHosted.body).error.code, "not_found", `${HOSTED}${path}`);
    }
    const gonePage = await ctx.call("GET", `/public/trust/${orgSlug}.html`);
    assert.match(await gonePage.text(), /<h1>Deleted<\/h1>/);
    for (const [name, args] of [...ORG_TOOLS, ...PROJECT_TOOLS]) {
      const slug = name in Object.fromEntries(ORG_TOOLS) ? { orgSlug } : { projectSlug: "acme" };
      const result = await tool(client, name, { ...slug, ...args });
      assert.ok(result.isError, name);
      assert.match(result.text, DELETED, name);
    }
  } finally {
    await client.close();
  }
});

Deno.test("[e2e] deletion grace: a deleted project's document download answers 410 (scheduled, then deleted), no-store, while the organization's other documents download", async () => {
  const clock = fakeClock(new Date());
  await using server = await startTestServer({ clock, worker: false });
  const token = await server.tokenFor("alice");
  const call = (method: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}${path}`, {
      ...init,
      method,
      headers: { authorization: `Bearer ${token}`, ...init.headers },
      signal: AbortSignal.timeout(20_000),
    });
  const api = async (method: string, path: string, json?: unknown) =>
    await ok(
      await call(method, path, {
        body: json === undefined ? undefined : JSON.stringify(json),
        headers: { "content-type": "application/json" },
      }),
      `${method} ${path}`,
    );
  const boot = await api("POST", "/onboarding/bootstrap", {
    workspaceName: "Acme",
    workspaceSlug: "acme-co",
    projectName: "Acme Cloud",
    projectSlug: "acme",
    projectVisibility: "public",
  });
  const orgId: string = boot.organization.id;
  const acmeId: string = boot.project.id;
  const labs = await api("POST", "/projects", {
    organizationId: orgId,
    name: "Labs",
    slug: "acme-labs",
    visibility: "public",
  });
  const upload = async (title: string, projectId: string) => {
    const query = `title=${encodeURIComponent(title)}&visibility=public&projectId=${projectId}`;
    const res = await call("POST", `/organizations/${orgId}/documents?${query}`, {
      body: await makePdf() as BodyInit,
      headers: { "content-type": "application/pdf" },
    });
    return `/public/trust/acme-co/documents/${(await ok(res, title)).document.id}/download`;
  };
  const acmeDownload = await upload("Acme pentest", acmeId);
  const labsDownload = await upload("Labs pentest", labs.project.id);
  const get = async (url: string, accept?: string) => {
    const res = await fetch(`${server.baseUrl}${url}`, { headers: accept ? { accept } : {} });
    return { res, body: await textOf(res) };
  };
  for (const url of [acmeDownload, labsDownload]) {
    const { res } = await get(url);
    assert.equal(res.status, 200, url);
  }

  const scheduled = await call("POST", `/projects/${acmeId}/deletion`, {
    body: JSON.stringify({ confirm: "acme" }),
    headers: { "content-type": "application/json" },
  });
  assert.equal(scheduled.status, 202);
  await scheduled.body?.cancel();
  const expectGone = async (notice: RegExp, title: string) => {
    const json = await get(acmeDownload);
    assert.equal(json.res.status, 410, json.body);
    assert.ok(noStore(json.res), json.res.headers.get("cache-control") ?? "");
    assert.equal(JSON.parse(json.body).error.code, "gone");
    assert.match(json.body, notice);
    const page = await get(acmeDownload, "text/html");
    assert.equal(page.res.status, 410);
    assert.ok(noStore(page.res));
    assert.match(page.body, new RegExp(`<h1>${title}</h1>`));
    assert.match(page.body, notice);
    const labsNow = await get(labsDownload);
    assert.equal(labsNow.res.status, 200, "the organization's other documents download");
  };
  await expectGone(SCHEDULED, "Scheduled for deletion");

  // The job runs after the grace: the document is gone, and its download still says so.
  clock.advance(DELETION_GRACE_MS + 60_000);
  await drain(server);
  assert.equal((await server.services.kv.get(["projects", acmeId])).versionstamp, null);
  await expectGone(DELETED, "Deleted");
  const unknown = await get(`/public/trust/acme-co/documents/${crypto.randomUUID()}/download`);
  assert.equal(unknown.res.status, 404, "an id that never was is still 404");
});
