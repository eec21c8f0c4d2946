/**
 * Two tenants on one running service, built over HTTP, for the tests that must see every kind
 * of key a tenant leaves: "Globex" (tests/e2e/_surfaces.ts: two public projects with
 * controls, evidence, signals, versions, updates, certifications, documents, answers,
 * subprocessors, an approved access request) plus a member with a personal access token, a
 * pending invitation, a webhook, a
 * custom domain claim, email subscribers and a shared questionnaire; and "Initech", a second organization with one
 * published project and its own subscriber, which deleting Globex must leave as it was.
 */
import type { Clock } from "../../src/lib/clock.ts";
import { startSurfacesFixture, type SurfacesFixture } from "../e2e/_surfaces.ts";
import { startSmtpServer, type TestSmtp } from "./smtp.ts";

export interface TenantWorld {
  globex: SurfacesFixture;
  /** Where the service's emails go (subscription confirmations, access links). */
  smtp: TestSmtp;
  /** Owner, member and outsider of Globex, as bearer tokens. */
  tokens: { owner: string; member: string; outsider: string };
  memberUserId: string;
  /** Globex's second project. */
  secondProjectId: string;
  webhookId: string;
  subscriberEmail: string;
  initech: { orgId: string; orgSlug: string; projectId: string; projectSlug: string };
  /** Mints the three tokens again (after the fake clock moved past their hour). */
  renewTokens(): Promise<void>;
  /** JSON call to the server with a token (or none). */
  call(
    method: string,
    path: string,
    options?: { token?: string; json?: unknown; accept?: string },
  ): Promise<Response>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** `kv`: the store to run on (default a new in-memory one); the caller closes it. */
export async function startTenantWorld(
  options: { clock?: Clock; kv?: Deno.Kv } = {},
): Promise<TenantWorld> {
  const smtp = await startSmtpServer();
  let globex: SurfacesFixture;
  try {
    globex = await startSurfacesFixture({
      clock: options.clock,
      kv: options.kv,
      env: {
        WEBHOOK_ALLOW_PRIVATE: "true",
        SMTP_URL: smtp.url,
        // Hosted subdomains live under a domain name (an IP address has none).
        TRUST_PAGE_BASE: "http://pages.trust.example",
      },
    });
  } catch (error) {
    await smtp[Symbol.asyncDispose]();
    throw error;
  }
  const dispose = async () => {
    await globex[Symbol.asyncDispose]();
    await smtp[Symbol.asyncDispose]();
  };
  try {
    const { server } = globex;
    const call: TenantWorld["call"] = (method, path, opts = {}) => {
      const headers: Record<string, string> = { accept: opts.accept ?? "application/json" };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      if (opts.json !== undefined) headers["content-type"] = "application/json";
      return fetch(`${server.baseUrl}${path}`, {
        method,
        headers,
        body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
        signal: AbortSignal.timeout(10_000),
      });
    };
    const ok = async (res: Promise<Response>, what: string) => {
      const response = await res;
      const text = await response.text();
      if (!response.ok) throw new Error(`${what} answered ${response.status}: ${text}`);
      return text ? JSON.parse(text) : null;
    };
    const owner = globex.token;
    const member = await server.tokenFor("mia");
    const outsider = await server.tokenFor("ian");
    const tokens = { owner, member, outsider };

    const invited = await ok(
      call("POST", `/organizations/${globex.orgId}/invitations`, {
        token: owner,
        json: { email: "mia@example.com", role: "member" },
      }),
      "invite",
    );
    const accepted = await ok(
      call("POST", `/invitations/${String(invited.acceptUrl).split("#invitation=")[1]}/accept`, {
        token: member,
      }),
      "accept",
    );
    await ok(
      call("POST", `/organizations/${globex.orgId}/invitations`, {
        token: owner,
        json: { email: "pending.invitee@globex.example", role: "member" },
      }),
      "invite",
    );
    const accessToken = await ok(
      call("POST", `/organizations/${globex.orgId}/access-tokens`, {
        token: member,
        json: { name: "Mia's CI", scope: "read", expiresInDays: 30 },
      }),
      "access token",
    );
    await ok(
      call("GET", `/organizations/${globex.orgId}`, { token: String(accessToken.token) }),
      "read with the access token",
    );
    const webhook = await ok(
      call("POST", `/projects/${globex.projectId}/webhooks`, {
        token: owner,
        json: { url: "http://127.0.0.1:9/globex-hook", events: ["version.published"] },
      }),
      "webhook",
    );
    await ok(
      call("POST", `/projects/${globex.projectId}/domains`, {
        token: owner,
        json: { domain: "trust.globex.example" },
      }),
      "domain",
    );
    const subscriberEmail = "sam@subscriber.example";
    await ok(
      call("POST", `/trust/${globex.projectSlug}/subscriptions`, {
        json: { email: subscriberEmail },
      }),
      "subscribe to project",
    );
    await ok(
      call("POST", `/public/trust/${globex.orgSlug}/subscriptions`, {
        json: { email: subscriberEmail },
      }),
      "subscribe to organization",
    );
    const projects = await ok(
      call("GET", `/organizations/${globex.orgId}/projects`, { token: owner }),
      "projects",
    );
    const second = (projects.projects as { id: string; slug: string }[])
      .find((p) => p.slug === globex.secondSlug)!;
    // A reviewed questionnaire: its record, rows, decision and file (a blob), and its share.
    const uploaded = await ok(
      fetch(`${server.baseUrl}/organizations/${globex.orgId}/questionnaires?name=Buyer`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner}`, "content-type": "text/csv" },
        body: "ID,Question,Answer\nQ1,Do you encrypt data at rest?,\nQ2,Do you log access?,\n",
        signal: AbortSignal.timeout(10_000),
      }),
      "upload a questionnaire",
    );
    const questionnaire =
      `/organizations/${globex.orgId}/questionnaires/${uploaded.questionnaire.id}`;
    await ok(
      call("PATCH", `${questionnaire}/rows/0:2`, {
        token: member,
        json: { state: "edited", answer: "Yes, with AES-256." },
      }),
      "edit a questionnaire row",
    );
    await ok(call("POST", `${questionnaire}/share`, { token: owner }), "share a questionnaire");

    const boot = await ok(
      call("POST", "/onboarding/bootstrap", {
        token: outsider,
        json: {
          workspaceName: "Initech",
          projectName: "Initech Cloud",
          projectSlug: "initech",
          projectVisibility: "public",
        },
      }),
      "bootstrap Initech",
    );
    await ok(call("POST", `/projects/${boot.project.id}/publish`, { token: outsider }), "publish");
    await ok(
      call("POST", "/trust/initech/subscriptions", { json: { email: "sam@subscriber.example" } }),
      "subscribe to Initech",
    );
    return {
      globex,
      smtp,
      tokens,
      memberUserId: accepted.membership.userId,
      secondProjectId: second.id,
      webhookId: webhook.webhook.id,
      subscriberEmail,
      initech: {
        orgId: boot.organization.id,
        orgSlug: boot.organization.slug,
        projectId: boot.project.id,
        projectSlug: "initech",
      },
      call,
      async renewTokens() {
        tokens.owner = await server.tokenFor("olivia");
        tokens.member = await server.tokenFor("mia");
        tokens.outsider = await server.tokenFor("ian");
      },
      [Symbol.asyncDispose]: dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** Every KV entry as text (key and value), for scans of what a tenant left. */
export async function dumpKv(kv: Deno.Kv): Promise<{ key: Deno.KvKey; text: string }[]> {
  const rows: { key: Deno.KvKey; text: string }[] = [];
  for await (const entry of kv.list({ prefix: [] })) {
    rows.push({ key: entry.key, text: `${stringify(entry.key)} ${stringify(entry.value)}` });
  }
  return rows;
}

function stringify(value: unknown): string {
  return JSON.stringify(value, (_, v) => {
    if (typeof v === "bigint") return `${v}n`;
    if (v instanceof Uint8Array) return new TextDecoder().decode(v);
    return v;
  }) ?? "";
}
