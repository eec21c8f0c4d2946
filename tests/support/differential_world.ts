/**
 * Three organizations on one real server with a fake clock, for the differential suite
 * (tests/differential/): "Globex", the target, with everything a public surface shows (two
 * public projects and a private one, controls, evidence, signals, several versions, updates
 * and incidents, a custom domain, public and restricted documents, certifications,
 * subprocessors, answers, a vendor profile and logo, subscribers, a webhook, a shared
 * questionnaire, an approved access request, a member and a pending invitation), and
 * "Initech" and "Hooli", two organizations with a published project each that an operation on
 * Globex must leave as they were. No job worker loop runs: the suite drains jobs itself.
 * Every instant is relative to the clock's start.
 */
import { fakeClock } from "../../src/lib/clock.ts";
import { makePdf } from "./documents.ts";
import { startDnsServer } from "./dns_server.ts";
import { startTestServer, type TestServer } from "./server.ts";
import { startSmtpServer, type TestSmtp } from "./smtp.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** One answer of the service, parsed (`json` null when the body is not JSON). */
export interface Answer {
  status: number;
  text: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

/** A request to the service: JSON body, raw body with its type, bearer token, headers. */
export interface Call {
  token?: string;
  json?: unknown;
  body?: BodyInit;
  type?: string;
  headers?: Record<string, string>;
}

/** What the suite needs to name in Globex (ids, tokens of links sent by email). */
export interface Target {
  orgId: string;
  orgSlug: string;
  projectId: string;
  projectSlug: string;
  secondId: string;
  secondSlug: string;
  privateId: string;
  controlIds: Record<string, string>;
  collector: { id: string; secret: string };
  documentIds: { public: string; restricted: string };
  certificationIds: string[];
  subprocessorIds: string[];
  answerIds: string[];
  updateIds: string[];
  domain: { id: string; name: string; token: string };
  webhookId: string;
  questionnaireId: string;
  memberUserId: string;
  invitationToken: string;
  accessRequestId: string;
  accessLinkId: string;
  accessToken: string;
  subscriptionIds: string[];
  /** Confirmation tokens of a pending subscription, unsubscribe tokens of confirmed ones. */
  confirmTokens: string[];
  unsubscribeTokens: string[];
  /** A refresh token of the built-in provider, once an operation obtained one. */
  refreshToken?: string;
}

export interface DifferentialWorld {
  server: TestServer;
  clock: ReturnType<typeof fakeClock>;
  smtp: TestSmtp;
  dns: Awaited<ReturnType<typeof startDnsServer>>;
  /** Bearer tokens by subject (minted again by `renewTokens` after the clock moved). */
  tokens: { owner: string; member: string; outsider: string; hooli: string };
  target: Target;
  others: { name: string; orgId: string; orgSlug: string; projectId: string; slug: string }[];
  send(method: string, path: string, call?: Call): Promise<Answer>;
  /** `send` that throws unless the answer is 2xx. */
  // deno-lint-ignore no-explicit-any
  ok(method: string, path: string, call?: Call): Promise<any>;
  /** Runs every due job (and what they stage) until none is due. */
  settle(): Promise<void>;
  renewTokens(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const CONTROLS = [
  { key: "custom.pass", evidenceType: "policy_result", rule: { path: "ok", op: "truthy" } },
  {
    key: "custom.fail",
    evidenceType: "policy_result",
    rule: { path: "ok", op: "eq", value: false },
  },
  {
    key: "custom.stale",
    evidenceType: "dependency_inventory",
    rule: { path: "ok", op: "truthy" },
    degradationPolicyJson: { degradedAfterSeconds: 3600, staleAfterSeconds: 86_400 },
  },
] as const;

/** Links sent by email to `to`, by kind, in arrival order. */
function linksIn(smtp: TestSmtp, to: string, pattern: RegExp): string[] {
  const found: string[] = [];
  smtp.messages.forEach((mail, i) => {
    if (!smtp.recipients[i].includes(to)) return;
    const text = `${mail.text ?? ""} ${typeof mail.html === "string" ? mail.html : ""}`;
    for (const match of text.matchAll(pattern)) found.push(match[1]);
  });
  return [...new Set(found)];
}

export async function startDifferentialWorld(): Promise<DifferentialWorld> {
  const clock = fakeClock(new Date(Math.floor(Date.now() / 1000) * 1000));
  const smtp = await startSmtpServer();
  const dns = await startDnsServer();
  const server = await startTestServer({
    worker: false,
    clock,
    // One attempt per delivery: a failed one is over at once (and can be redelivered).
    webhookDelivery: { retryDelaysMs: [], jitter: 0, timeoutMs: 2000 },
    env: {
      SMTP_URL: smtp.url,
      DNS_NAMESERVER: `127.0.0.1:${dns.port}`,
      WEBHOOK_ALLOW_PRIVATE: "true",
      TRUST_PAGE_BASE: "http://pages.trust.example",
      // The visitors' group signs a new account up through the form.
      SIGNUP: "open",
    },
  });
  const close = async () => {
    await server.close();
    await dns.close();
    await smtp.close();
  };
  try {
    const tokens = { owner: "", member: "", outsider: "", hooli: "" };
    const renewTokens = async () => {
      tokens.owner = await server.tokenFor("olivia");
      tokens.member = await server.tokenFor("mia");
      tokens.outsider = await server.tokenFor("ian");
      tokens.hooli = await server.tokenFor("gavin");
    };
    await renewTokens();
    const send: DifferentialWorld["send"] = async (method, path, call = {}) => {
      const headers: Record<string, string> = { accept: "application/json", ...call.headers };
      if (call.token) headers.authorization = `Bearer ${call.token}`;
      let body = call.body;
      if (call.json !== undefined) {
        body = JSON.stringify(call.json);
        headers["content-type"] = "application/json";
      } else if (call.type) headers["content-type"] = call.type;
      const res = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(20_000),
      });
      const text = await res.text();
      let json = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch { /* not JSON */ }
      return { status: res.status, text, json };
    };
    const ok: DifferentialWorld["ok"] = async (method, path, call) => {
      const answer = await send(method, path, call);
      if (answer.status >= 300) {
        throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text}`);
      }
      return answer.json;
    };
    const settle = async () => {
      for (let round = 0; round < 20; round++) {
        if ((await server.services.jobs.drain(30_000)) === 0) return;
      }
      throw new Error("Jobs still due after 20 drains");
    };
    const owner = () => ({ token: tokens.owner });
    const ago = (ms: number) => new Date(clock.now().getTime() - ms).toISOString();
    const later = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();

    // Globex.
    const boot = await ok("POST", "/onboarding/bootstrap", {
      ...owner(),
      json: {
        workspaceName: "Globex",
        projectName: "Globex Cloud",
        projectSlug: "globex",
        projectVisibility: "public",
      },
    });
    const orgId: string = boot.organization.id;
    const orgSlug: string = boot.organization.slug;
    const projectId: string = boot.project.id;
    const second = await ok("POST", "/projects", {
      ...owner(),
      json: {
        organizationId: orgId,
        name: "Globex Labs",
        slug: "globex-labs",
        visibility: "public",
      },
    });
    const hidden = await ok("POST", "/projects", {
      ...owner(),
      json: { organizationId: orgId, name: "Globex Internal", slug: "globex-internal" },
    });
    await ok("PATCH", `/organizations/${orgId}/profile`, {
      ...owner(),
      json: {
        displayName: "Globex, Inc.",
        description: "Cloud software for logistics.",
        website: "https://globex.example",
        securityContact: { email: "security@globex.example" },
        brandColor: "#1d4ed8",
      },
    });
    await ok("PUT", `/organizations/${orgId}/logo`, {
      ...owner(),
      body: Deno.readFileSync(new URL("../fixtures/logos/logo.png", import.meta.url)),
      type: "image/png",
    });
    const controlIds: Record<string, string> = {};
    for (const control of CONTROLS) {
      const made = await ok("POST", `/projects/${projectId}/controls`, {
        ...owner(),
        json: { publicName: control.key.slice("custom.".length), ...control },
      });
      controlIds[control.key] = made.control.id;
    }
    await ok("PUT", `/projects/${projectId}/controls/${controlIds["custom.pass"]}/criteria`, {
      ...owner(),
      json: {
        criteria: [{ framework: "iso27001", id: "A.8.8" }, { framework: "soc2", id: "CC7.1" }],
      },
    });
    const made = await ok("POST", `/projects/${projectId}/collectors`, {
      ...owner(),
      json: { name: "ci" },
    });
    const collector = { id: made.collector.id, secret: made.secret.value };
    const bearer = { token: collector.secret };
    await ok("POST", `/collectors/${collector.id}/heartbeat`, {
      ...bearer,
      json: { sourceRef: "ci" },
    });
    const evidence = (evidenceType: string, observedAt: string, payload: unknown) =>
      ok("POST", "/ingest/evidence", {
        ...bearer,
        json: {
          projectId,
          evidenceType,
          sourceType: "github_actions",
          sourceRef: "globex/api@refs/heads/main",
          observedAt,
          payload,
        },
      });
    await evidence("sbom", ago(60_000), {
      bomFormat: "CycloneDX",
      specVersion: "1.5",
      components: [{ name: "left-pad" }],
    });
    await evidence("policy_result", ago(60_000), { ok: true });
    await evidence("dependency_inventory", ago(2 * HOUR), { ok: true });
    await ok("POST", "/ingest/signals", {
      ...bearer,
      json: {
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
      },
    });
    await ok("PUT", `/organizations/${orgId}/nda`, {
      ...owner(),
      json: { text: "Keep it confidential." },
    });
    const upload = async (title: string, visibility: string) =>
      (await ok(
        "POST",
        `/organizations/${orgId}/documents?title=${
          encodeURIComponent(title)
        }&visibility=${visibility}`,
        { ...owner(), body: await makePdf(title) as BodyInit, type: "application/pdf" },
      )).document.id as string;
    const documentIds = {
      public: await upload("Security overview", "public"),
      restricted: await upload("SOC 2 Type II report", "restricted"),
    };
    const certifications = `/organizations/${orgId}/certifications`;
    const certificationIds: string[] = [];
    for (
      const body of [
        {
          framework: "soc2-type2",
          status: "achieved",
          auditor: "Example Assurance LLP",
          auditPeriod: { start: ago(400 * DAY), end: ago(40 * DAY) },
          issuedAt: ago(30 * DAY),
          expiresAt: later(300 * DAY),
          scope: "The Globex Cloud platform",
          documentId: documentIds.restricted,
        },
        { framework: "iso27001-2022", status: "in_progress", projectId },
        // Expires in two days: the certification expiry job turns it expired.
        {
          framework: "pci-dss-4.0",
          status: "achieved",
          issuedAt: ago(300 * DAY),
          expiresAt: later(2 * DAY),
        },
        {
          framework: "other",
          frameworkName: "ISO/IEC 42001:2023",
          status: "achieved",
          projectId: second.project.id,
          documentId: documentIds.public,
        },
      ]
    ) {
      certificationIds.push(
        (await ok("POST", certifications, { ...owner(), json: body })).certification.id,
      );
    }
    const subprocessorIds: string[] = [];
    for (
      const [name, purpose, location] of [
        ["Hetzner", "Hosting", "Germany"],
        ["Mailgun", "Email", "United States"],
        ["Sentry", "Error tracking", "United States"],
      ]
    ) {
      const added = await ok("POST", `/organizations/${orgId}/subprocessors`, {
        ...owner(),
        json: { name, purpose, location, website: "https://vendor.example" },
      });
      subprocessorIds.push(added.subprocessor.id);
    }
    await ok("POST", `/projects/${projectId}/publish`, owner());
    const updateIds: string[] = [];
    for (
      const [kind, title, resolved] of [
        ["incident", "Login failures", false],
        ["advisory", "Rotate your API keys", false],
        ["incident", "Slow dashboard", true],
        ["change", "New region", false],
      ] as const
    ) {
      const { update } = await ok("POST", `/projects/${projectId}/updates`, {
        ...owner(),
        json: { kind, title, body: `**${title}**: details follow.` },
      });
      if (resolved) {
        await ok("PATCH", `/projects/${projectId}/updates/${update.id}`, {
          ...owner(),
          json: { resolved: true },
        });
      }
      updateIds.push(update.id);
    }
    const answerIds: string[] = [];
    for (
      const body of [
        {
          question: "Do you encrypt data at rest?",
          answer: "Yes, with **AES-256**.",
          category: "Encryption",
          visibility: "public",
          questionnaireRefs: [{ questionnaire: "caiq-v4", id: "CEK-03.1" }],
          citations: [
            { kind: "control", id: controlIds["custom.pass"] },
            { kind: "document", id: documentIds.public },
            { kind: "certification", id: certificationIds[0] },
          ],
        },
        {
          question: "Who performed your last penetration test?",
          answer: "Example Labs.",
          category: "Testing",
          visibility: "restricted",
          questionnaireRefs: [{ questionnaire: "sig", id: "A.1" }],
        },
        {
          question: "Do you keep access logs?",
          answer: "Yes, for one year.",
          category: "Logging",
          visibility: "public",
        },
      ]
    ) {
      answerIds.push(
        (await ok("POST", `/organizations/${orgId}/answers`, { ...owner(), json: body })).answer.id,
      );
    }
    await ok("POST", `/projects/${projectId}/publish`, owner());
    await ok("POST", `/projects/${second.project.id}/publish`, owner());

    const domainName = "trust.globex.example";
    const claimed = await ok("POST", `/projects/${projectId}/domains`, {
      ...owner(),
      json: { domain: domainName },
    });
    const domain = {
      id: claimed.domain.domain.id,
      name: domainName,
      token: claimed.domain.domain.verificationToken,
    };
    const webhook = await ok("POST", `/projects/${projectId}/webhooks`, {
      ...owner(),
      json: {
        url: "http://127.0.0.1:9/globex-hook",
        events: ["version.published"],
        signing: "hmac",
      },
    });
    const invited = await ok("POST", `/organizations/${orgId}/invitations`, {
      ...owner(),
      json: { email: "mia@example.com", role: "member" },
    });
    const accepted = await ok(
      "POST",
      `/invitations/${String(invited.acceptUrl).split("#invitation=")[1]}/accept`,
      { token: tokens.member },
    );
    const pending = await ok("POST", `/organizations/${orgId}/invitations`, {
      ...owner(),
      json: { email: "ian@example.com", role: "member" },
    });
    const uploaded = await ok("POST", `/organizations/${orgId}/questionnaires?name=Buyer`, {
      ...owner(),
      body:
        "ID,Question,Answer\nQ1,Do you encrypt data at rest?,\nQ2,Do you log access?,\nQ3,Do you scan dependencies?,\n",
      type: "text/csv",
    });
    const questionnaireId: string = uploaded.questionnaire.id;
    await ok("POST", `/organizations/${orgId}/questionnaires/${questionnaireId}/share`, owner());
    const asked = await ok("POST", `/public/trust/${orgSlug}/access-requests`, {
      json: {
        name: "Vera",
        company: "Customer",
        email: "vera@customer.example",
        documentIds: [documentIds.restricted],
        ndaVersion: 1,
        acceptNda: true,
      },
    });
    const approved = await ok(
      "POST",
      `/organizations/${orgId}/access-requests/${asked.id}/approve`,
      { ...owner(), json: { expiresInDays: 3 } },
    );
    // A second request, left pending for the operations that decide one.
    const open = await ok("POST", `/public/trust/${orgSlug}/access-requests`, {
      json: {
        name: "Walt",
        company: "Buyer",
        email: "walt@buyer.example",
        documentIds: [documentIds.restricted],
        ndaVersion: 1,
        acceptNda: true,
      },
    });
    for (const email of ["sam@subscriber.example", "sue@subscriber.example"]) {
      await ok("POST", `/trust/globex/subscriptions`, { json: { email } });
      await ok("POST", `/public/trust/${orgSlug}/subscriptions`, { json: { email } });
    }
    await settle();
    const confirm = /\/subscriptions\/confirm\/([0-9a-f-]{36}\.[A-Za-z0-9_-]{43})/g;
    for (const token of linksIn(smtp, "sam@subscriber.example", confirm)) {
      await ok("POST", `/subscriptions/confirm/${token}`);
    }
    // A notice to the confirmed subscriber carries its unsubscribe link.
    await ok("POST", `/projects/${projectId}/updates`, {
      ...owner(),
      json: { kind: "advisory", title: "Maintenance window", body: "Sunday, 02:00 UTC." },
    });
    await settle();
    await ok("POST", `/trust/globex/subscriptions`, { json: { email: "pat@subscriber.example" } });
    await settle();
    const subscribers = await ok("GET", `/organizations/${orgId}/subscribers`, owner());

    // Initech and Hooli: one published project each, with an update and an answer.
    const others: DifferentialWorld["others"] = [];
    for (
      const [name, slug, token] of [
        ["Initech", "initech", tokens.outsider],
        ["Hooli", "hooli", tokens.hooli],
      ] as const
    ) {
      const made = await ok("POST", "/onboarding/bootstrap", {
        token,
        json: {
          workspaceName: name,
          projectName: `${name} Cloud`,
          projectSlug: slug,
          projectVisibility: "public",
        },
      });
      await ok("POST", `/projects/${made.project.id}/updates`, {
        token,
        json: { kind: "incident", title: `${name} outage`, body: "Investigating." },
      });
      await ok("POST", `/organizations/${made.organization.id}/answers`, {
        token,
        json: {
          question: "Do you encrypt data at rest?",
          answer: "Yes.",
          category: "Encryption",
          visibility: "public",
        },
      });
      await ok("POST", `/projects/${made.project.id}/publish`, { token });
      others.push({
        name,
        orgId: made.organization.id,
        orgSlug: made.organization.slug,
        projectId: made.project.id,
        slug,
      });
    }
    await settle();

    const target: Target = {
      orgId,
      orgSlug,
      projectId,
      projectSlug: "globex",
      secondId: second.project.id,
      secondSlug: "globex-labs",
      privateId: hidden.project.id,
      controlIds,
      collector,
      documentIds,
      certificationIds,
      subprocessorIds,
      answerIds,
      updateIds,
      domain,
      webhookId: webhook.webhook.id,
      questionnaireId,
      memberUserId: accepted.membership.userId,
      invitationToken: String(pending.acceptUrl).split("#invitation=")[1],
      accessRequestId: open.id,
      accessLinkId: approved.link.id,
      accessToken: String(approved.link.url).split("/").pop()!,
      subscriptionIds: (subscribers.subscribers as { id: string }[]).map((s) => s.id),
      confirmTokens: linksIn(smtp, "pat@subscriber.example", confirm),
      unsubscribeTokens: linksIn(
        smtp,
        "sam@subscriber.example",
        /\/unsubscribe\/([0-9a-f-]{36}\.[A-Za-z0-9_-]{43})/g,
      ),
    };
    return {
      server,
      clock,
      smtp,
      dns,
      tokens,
      target,
      others,
      send,
      ok,
      settle,
      renewTokens,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
