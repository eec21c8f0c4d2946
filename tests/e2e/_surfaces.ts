/**
 * One organization with everything a public surface can show, set up over HTTP the way an
 * owner and a collector would: two public projects, controls in every state (pass, fail,
 * degraded, stale, unknown with evidence, and not reported), certifications of the whole
 * organization and of a project (achieved, in progress, expired, one linking its report),
 * open and resolved incidents and advisories, public and restricted documents and answers,
 * subprocessors with a history, a framework mapping, signals and two published versions.
 * No job worker runs, so nothing changes the published versions while a test reads them.
 */
import type { Clock } from "../../src/lib/clock.ts";
import { makePdf } from "../support/documents.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

export interface SurfacesFixture {
  server: TestServer;
  token: string;
  orgId: string;
  orgSlug: string;
  projectId: string;
  projectSlug: string;
  secondSlug: string;
  updateIds: string[];
  documentIds: { public: string; restricted: string };
  accessToken: string;
  [Symbol.asyncDispose](): Promise<void>;
}

type Send = (
  method: string,
  path: string,
  body?: unknown,
  // deno-lint-ignore no-explicit-any
) => Promise<any>;

function sender(baseUrl: string, token: () => string): Send {
  return async (method, path, body) => {
    const raw = body instanceof Uint8Array;
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token()}`,
        "content-type": raw ? "application/pdf" : "application/json",
      },
      body: body === undefined ? undefined : raw ? body as BodyInit : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

const HOUR = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** Custom controls, one per state the evaluator gives (evidence below decides which). */
const CONTROLS = [
  { key: "custom.pass", evidenceType: "policy_result", rule: { path: "ok", op: "truthy" } },
  {
    key: "custom.fail",
    evidenceType: "policy_result",
    rule: { path: "ok", op: "eq", value: false },
  },
  {
    key: "custom.unknown",
    evidenceType: "policy_result",
    rule: { path: "missing", op: "gt", value: 1 },
  },
  {
    key: "custom.degraded",
    evidenceType: "dependency_inventory",
    rule: { path: "ok", op: "truthy" },
    degradationPolicyJson: { degradedAfterSeconds: 3600, staleAfterSeconds: 86_400 },
  },
  {
    key: "custom.stale",
    evidenceType: "dependency_inventory",
    rule: { path: "ok", op: "truthy" },
    degradationPolicyJson: { degradedAfterSeconds: null, staleAfterSeconds: 3600 },
  },
  {
    key: "custom.not-reported",
    evidenceType: "build_provenance",
    rule: { path: "ok", op: "truthy" },
  },
] as const;

/** Starts a server and builds the organization; the caller disposes of it. */
export async function startSurfacesFixture(
  options: { env?: Record<string, string>; clock?: Clock; kv?: Deno.Kv } = {},
): Promise<SurfacesFixture> {
  const server = await startTestServer({
    worker: false,
    env: options.env,
    clock: options.clock,
    kv: options.kv,
  });
  try {
    const token = await server.tokenFor("olivia");
    let bearer = token;
    const send = sender(server.baseUrl, () => bearer);
    const boot = await send("POST", "/onboarding/bootstrap", {
      workspaceName: "Globex",
      projectName: "Globex Cloud",
      projectSlug: "globex",
      projectVisibility: "public",
    });
    const orgId: string = boot.organization.id;
    const orgSlug: string = boot.organization.slug;
    const projectId: string = boot.project.id;
    const second = await send("POST", "/projects", {
      organizationId: orgId,
      name: "Globex Labs",
      slug: "globex-labs",
      visibility: "public",
    });
    await send("PATCH", `/organizations/${orgId}/profile`, {
      displayName: "Globex, Inc.",
      description: "Cloud software for logistics.",
      website: "https://globex.example",
      securityContact: { email: "security@globex.example" },
      brandColor: "#1d4ed8",
    });

    const created: Record<string, string> = {};
    for (const control of CONTROLS) {
      const { control: made } = await send("POST", `/projects/${projectId}/controls`, {
        publicName: control.key.slice("custom.".length),
        ...control,
      });
      created[control.key] = made.id;
    }
    await send("PUT", `/projects/${projectId}/controls/${created["custom.pass"]}/criteria`, {
      criteria: [{ framework: "iso27001", id: "A.8.8" }, { framework: "soc2", id: "CC7.1" }],
    });

    const { collector, secret } = await send("POST", `/projects/${projectId}/collectors`, {
      name: "ci",
    });
    bearer = secret.value;
    await send("POST", `/collectors/${collector.id}/heartbeat`, { sourceRef: "ci" });
    const evidence = (evidenceType: string, observedAt: string, payload: unknown) =>
      send("POST", "/ingest/evidence", {
        projectId,
        evidenceType,
        sourceType: "github_actions",
        sourceRef: "globex/api@refs/heads/main",
        observedAt,
        payload,
      });
    await evidence("sbom", ago(60_000), {
      bomFormat: "CycloneDX",
      specVersion: "1.5",
      components: [{ name: "left-pad" }],
    });
    await evidence("policy_result", ago(60_000), { ok: true });
    await evidence("dependency_inventory", ago(2 * HOUR), { ok: true });
    await send("POST", "/ingest/signals", {
      projectId,
      detection: {
        detectedAt: ago(30_000),
        commitSha: "0123456789abcdef0123456789abcdef01234567",
        ciCd: { detected: true, tools: ["github-actions"] },
        monitoring: { detected: false },
        authProvider: { detected: true, providers: ["auth0"] },
        cloudProvider: { detected: true, providers: ["aws"] },
        securityContact: { detected: true, email: "security@globex.example" },
      },
    });
    bearer = token;

    await send("PUT", `/organizations/${orgId}/nda`, { text: "Keep it confidential." });
    const upload = async (title: string, visibility: string) =>
      (await send(
        "POST",
        `/organizations/${orgId}/documents?title=${
          encodeURIComponent(title)
        }&visibility=${visibility}`,
        await makePdf(title),
      )).document.id as string;
    const documentIds = {
      public: await upload("Security overview", "public"),
      restricted: await upload("SOC 2 Type II report", "restricted"),
    };

    const certifications = `/organizations/${orgId}/certifications`;
    // fixed-instant: a past audit and issue date, valid until 2099: the same state every day
    const soc2 = await send("POST", certifications, {
      framework: "soc2-type2",
      status: "achieved",
      auditor: "Example Assurance LLP",
      auditPeriod: { start: "2025-01-01T00:00:00Z", end: "2025-12-31T00:00:00Z" },
      issuedAt: "2026-02-01T00:00:00Z",
      expiresAt: "2099-02-01T00:00:00Z",
      scope: "The Globex Cloud platform",
      registryUrl: "https://registry.example/globex",
      documentId: documentIds.restricted,
    });
    await send("POST", certifications, {
      framework: "iso27001-2022",
      status: "in_progress",
      projectId,
    });
    // fixed-instant: a certification that expired in 2024, expired whatever day it runs
    await send("POST", certifications, {
      framework: "pci-dss-4.0",
      status: "achieved",
      issuedAt: "2023-01-01T00:00:00Z",
      expiresAt: "2024-01-01T00:00:00Z",
    });
    await send("POST", certifications, {
      framework: "other",
      frameworkName: "ISO/IEC 42001:2023",
      status: "achieved",
      projectId: second.project.id,
      documentId: documentIds.public,
    });

    const subprocessors = `/organizations/${orgId}/subprocessors`;
    const hosting = await send("POST", subprocessors, {
      name: "Hetzner",
      purpose: "Hosting",
      location: "Germany",
      website: "https://hetzner.example",
    });
    await send("PATCH", `${subprocessors}/${hosting.subprocessor.id}`, { location: "Finland" });
    const mail = await send("POST", subprocessors, {
      name: "Mailgun",
      purpose: "Email",
      location: "United States",
      website: "https://vendor.example",
    });
    await send("DELETE", `${subprocessors}/${mail.subprocessor.id}`);
    await send("POST", subprocessors, {
      name: "Sentry",
      purpose: "Error tracking",
      location: "United States",
      website: "https://vendor.example",
    });

    await send("POST", `/projects/${projectId}/publish`);

    const updateIds: string[] = [];
    for (
      const [kind, title, resolved] of [
        ["incident", "Login failures", false],
        ["advisory", "Rotate your API keys", false],
        ["incident", "Slow dashboard", true],
        ["advisory", "Old TLS versions", true],
        ["change", "New region", false],
      ] as const
    ) {
      const { update } = await send("POST", `/projects/${projectId}/updates`, {
        kind,
        title,
        body: `**${title}**: details follow.`,
      });
      if (resolved) {
        await send("PATCH", `/projects/${projectId}/updates/${update.id}`, { resolved: true });
      }
      updateIds.push(update.id);
    }

    const answers = `/organizations/${orgId}/answers`;
    await send("POST", answers, {
      question: "Do you encrypt data at rest?",
      answer: "Yes, with **AES-256**.",
      category: "Encryption",
      visibility: "public",
      questionnaireRefs: [{ questionnaire: "caiq-v4", id: "CEK-03.1" }],
      citations: [
        { kind: "control", id: created["custom.pass"] },
        { kind: "document", id: documentIds.public },
        { kind: "certification", id: soc2.certification.id },
      ],
    });
    await send("POST", answers, {
      question: "Who performed your last penetration test?",
      answer: "Example Labs.",
      category: "Testing",
      visibility: "restricted",
      questionnaireRefs: [{ questionnaire: "sig", id: "A.1" }],
    });

    // A second version after the certifications changed and the custom controls aged.
    await send("POST", `/projects/${projectId}/publish`);
    await send("POST", `/projects/${second.project.id}/publish`);

    const asked = await fetch(`${server.baseUrl}/public/trust/${orgSlug}/access-requests`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "Vera",
        company: "Customer",
        email: "vera@customer.example",
        documentIds: [documentIds.restricted],
        ndaVersion: 1,
        acceptNda: true,
      }),
    });
    if (asked.status !== 202) throw new Error(`access request: ${await asked.text()}`);
    const { id: requestId } = await asked.json();
    const approved = await send(
      "POST",
      `/organizations/${orgId}/access-requests/${requestId}/approve`,
      { expiresInDays: 3 },
    );
    const accessToken = String(approved.link.url).split("/").pop()!;

    return {
      server,
      token,
      orgId,
      orgSlug,
      projectId,
      projectSlug: "globex",
      secondSlug: "globex-labs",
      updateIds,
      documentIds,
      accessToken,
      [Symbol.asyncDispose]: () => server.close(),
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}
