/**
 * Lighthouse (npm, run under Deno with the system Chromium) against the real
 * server: a published public project's trust page and its organization's
 * trust center, each with an open incident's banner and certification cards on
 * its first screen, score at least 0.95 for accessibility, 0.9 for SEO (the robots-txt audit
 * skipped: see the flag below) and 1 for best practices (no console error, the icon's
 * included; no deprecated API; a doctype and charset). Each run is bounded; the test is
 * skipped, saying so, only when Chromium is missing.
 */
import assert from "node:assert/strict";
import { CHROMIUM_PATH, WAIT_MS } from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const LIGHTHOUSE = "npm:lighthouse@13.5.0";
/** Upper bound of one Lighthouse run, the first download of the package included. */
const RUN_MS = 240_000;
const THRESHOLDS = { accessibility: 0.95, seo: 0.9, "best-practices": 1 } as const;

const chromiumMissing = await Deno.stat(CHROMIUM_PATH).then(() => false, () => true);
if (chromiumMissing) {
  console.warn(`Lighthouse test skipped: no Chromium at ${CHROMIUM_PATH}`);
}

interface Audit {
  id: string;
  title: string;
  score: number | null;
  scoreDisplayMode: string;
}

interface LighthouseResult {
  categories: Record<string, { score: number | null; auditRefs: Array<{ id: string }> }>;
  audits: Record<string, Audit & { explanation?: string }>;
  runtimeError?: { code: string; message: string };
}

/** Runs Lighthouse on `url` and returns its JSON report; throws with its output when it fails. */
async function lighthouse(url: string): Promise<LighthouseResult> {
  const command = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-lock",
      LIGHTHOUSE,
      url,
      "--only-categories=accessibility,seo,best-practices",
      // Lighthouse reads robots.txt with a fetch from inside the page, which the pages' CSP
      // (default-src 'none') rightly refuses; tests/http/discovery_test.ts checks robots.txt.
      "--skip-audits=robots-txt",
      "--output=json",
      "--output-path=stdout",
      "--quiet",
      "--chrome-flags=--headless --no-sandbox --disable-gpu --disable-dev-shm-usage",
    ],
    env: { CHROME_PATH: CHROMIUM_PATH, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(RUN_MS),
  });
  const { code, stdout, stderr } = await command.output();
  const out = new TextDecoder().decode(stdout);
  const err = new TextDecoder().decode(stderr);
  assert.equal(code, 0, `Lighthouse exited with ${code} on ${url}:\n${err.slice(-2000)}`);
  const report = JSON.parse(out) as LighthouseResult;
  assert.equal(report.runtimeError, undefined, JSON.stringify(report.runtimeError));
  return report;
}

/** The audits of `category` that did not pass, as "id: title" lines. */
function failedAudits(report: LighthouseResult, category: string): string[] {
  return report.categories[category].auditRefs
    .map((ref) => report.audits[ref.id])
    .filter((a) => a && a.score !== null && a.score < 1 && a.scoreDisplayMode !== "informative")
    .map((a) => `${a.id}: ${a.title}${a.explanation ? ` (${a.explanation})` : ""}`);
}

function assertScores(report: LighthouseResult, page: string) {
  for (const [category, minimum] of Object.entries(THRESHOLDS)) {
    const score = report.categories[category]?.score ?? 0;
    const failing = failedAudits(report, category);
    console.log(`${page}: ${category} ${score}${failing.length ? `; ${failing.join("; ")}` : ""}`);
    assert.ok(
      score >= minimum,
      `${page}: ${category} ${score} < ${minimum}; failing audits:\n${failing.join("\n")}`,
    );
  }
}

async function call(
  server: TestServer,
  path: string,
  options: { token: string; json?: unknown; auth?: string },
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    headers: {
      authorization: options.auth ?? `Bearer ${options.token}`,
      "content-type": "application/json",
    },
    body: JSON.stringify(options.json ?? {}),
    signal: AbortSignal.timeout(WAIT_MS),
  });
  const text = await res.text();
  assert.ok(res.ok, `${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/**
 * A public project with a heartbeat, a passing SBOM and a failing scan, published once, with
 * an open incident and two certifications (one achieved, one in progress).
 */
async function publishedProject(server: TestServer) {
  const token = await server.tokenFor("lighthouse");
  const boot = await call(server, "/onboarding/bootstrap", {
    token,
    json: {
      workspaceName: "Acme Security",
      projectName: "Acme Cloud",
      projectVisibility: "public",
    },
  });
  const projectId = boot.project.id as string;
  const created = await call(server, `/projects/${projectId}/collectors`, {
    token,
    json: { name: "ci" },
  });
  const auth = `Bearer ${created.secret.value}`;
  await call(server, `/collectors/${created.collector.id}/heartbeat`, {
    token,
    auth,
    json: { sourceRef: "ci" },
  });
  const observedAt = new Date(Date.now() - 60_000).toISOString();
  for (
    const [evidenceType, payload] of [
      ["sbom", { bomFormat: "CycloneDX", specVersion: "1.5", components: [] }],
      ["vulnerability_scan", { summary: { critical: 1, high: 0, medium: 0, low: 0 } }],
    ] as const
  ) {
    await call(server, "/ingest/evidence", {
      token,
      auth,
      json: {
        projectId,
        evidenceType,
        sourceType: "github_actions",
        sourceRef: "acme/api@main",
        observedAt,
        payload,
      },
    });
  }
  await call(server, `/projects/${projectId}/publish`, { token });
  await call(server, `/projects/${projectId}/updates`, {
    token,
    json: { kind: "incident", title: "Elevated API error rates", body: "We are investigating." },
  });
  for (
    const json of [
      {
        framework: "soc2-type2",
        status: "achieved",
        auditor: "Example Assurance LLP",
        // fixed-instant: a past audit period, the same whatever day it runs
        auditPeriod: { start: "2025-10-01T00:00:00Z", end: "2026-09-30T00:00:00Z" },
        expiresAt: "2099-10-15T00:00:00Z",
        scope: "The Acme Cloud platform",
        registryUrl: "https://registry.example/acme",
      },
      { framework: "iso27001-2022", status: "in_progress" },
    ]
  ) await call(server, `/organizations/${boot.organization.id}/certifications`, { token, json });
  return { slug: boot.project.slug as string, orgSlug: boot.organization.slug as string };
}

Deno.test({
  name:
    "[browser] Lighthouse: the trust page and the trust center are accessible, findable and follow best practices",
  ignore: chromiumMissing,
  // Lighthouse's own child processes and timers are its business, not this test's.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    await using server = await startTestServer();
    const { slug, orgSlug } = await publishedProject(server);
    const pages = {
      "the project's trust page": `${server.baseUrl}/trust/${slug}`,
      "the organization trust center": `${server.baseUrl}/public/trust/${orgSlug}`,
    };
    for (const [page, url] of Object.entries(pages)) {
      await t.step(`${page}: accessibility ≥ 0.95, SEO ≥ 0.9, best practices 1`, async () => {
        assertScores(await lighthouse(url), page);
      });
    }
  },
});
