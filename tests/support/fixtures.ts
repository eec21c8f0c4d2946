/**
 * Small builders for HTTP tests: a workspace with a project, collectors,
 * and evidence items in the collector API's shape.
 */
import type { TestApp } from "./app.ts";

export interface Workspace {
  token: string;
  organization: { id: string; slug: string };
  project: { id: string; slug: string; organizationId: string };
}

/** Bootstraps a workspace for a new user `sub`. */
export async function workspace(
  ctx: TestApp,
  sub: string,
  options: { projectSlug?: string; visibility?: "private" | "public" } = {},
): Promise<Workspace> {
  const token = await ctx.tokenFor(sub);
  const res = await ctx.call("POST", "/onboarding/bootstrap", {
    token,
    json: {
      workspaceName: `${sub} workspace`,
      projectName: `${sub} project`,
      projectSlug: options.projectSlug,
      projectVisibility: options.visibility,
    },
  });
  if (res.status !== 201) throw new Error(`bootstrap failed: ${await res.text()}`);
  const { organization, project } = await res.json();
  return { token, organization, project };
}

/** Publishes the workspace's project and returns the new version's number. */
export async function publishVersion(ctx: TestApp, ws: Workspace): Promise<number> {
  const res = await ctx.call("POST", `/projects/${ws.project.id}/publish`, { token: ws.token });
  if (res.status !== 201) throw new Error(`publish failed: ${await res.text()}`);
  return (await res.json()).publishedProfile.version;
}

/** Creates a collector and returns it with its one-time secret. */
export async function collector(
  ctx: TestApp,
  ws: Workspace,
  body: { name?: string; allowedActions?: string[] } = {},
): Promise<{ id: string; secret: string }> {
  const res = await ctx.call("POST", `/projects/${ws.project.id}/collectors`, {
    token: ws.token,
    json: { name: body.name ?? "ci", ...body },
  });
  if (res.status !== 201) throw new Error(`collector creation failed: ${await res.text()}`);
  const json = await res.json();
  return { id: json.collector.id, secret: json.secret.value };
}

/** An evidence item (no projectId) observed `minutesAgo` before the test clock. */
export function evidenceItem(
  ctx: TestApp,
  payload: Record<string, unknown>,
  options: { evidenceType?: string; minutesAgo?: number; sourceRef?: string } = {},
) {
  return {
    evidenceType: options.evidenceType ?? "sbom",
    sourceType: "github_actions",
    sourceRef: options.sourceRef ?? "acme/api@refs/heads/main",
    observedAt: new Date(ctx.clock.now().getTime() - (options.minutesAgo ?? 1) * 60_000)
      .toISOString(),
    payload,
  };
}

/** A CycloneDX-like payload of roughly `bytes` bytes, unique per `seed`. */
export function sbomPayload(seed: number, bytes = 1024): Record<string, unknown> {
  return {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    serialNumber: `urn:uuid:00000000-0000-4000-8000-${String(seed).padStart(12, "0")}`,
    components: [{
      type: "library",
      name: "left-pad",
      version: "1.3.0",
      note: "x".repeat(Math.max(0, bytes - 200)),
    }],
  };
}

/** An organization with an owner, a member who accepted an invitation, and a stranger. */
export interface Team {
  owner: string;
  member: string;
  stranger: string;
  orgId: string;
  orgSlug: string;
  /** The organization's first project (public unless asked otherwise). */
  project: { id: string; slug: string };
}

/**
 * Bootstraps "Acme" for `owner`, invites and accepts `member`, and has `stranger` seen once,
 * so a KV snapshot taken afterwards is not disturbed by a user's first request.
 */
export async function team(
  ctx: TestApp,
  options: { visibility?: "private" | "public" } = {},
): Promise<Team> {
  const owner = await ctx.tokenFor("owner", { email: "owner@acme.test" });
  const member = await ctx.tokenFor("member", { email: "member@acme.test" });
  const stranger = await ctx.tokenFor("stranger", { email: "stranger@else.test" });
  const res = await ctx.call("POST", "/onboarding/bootstrap", {
    token: owner,
    json: {
      workspaceName: "Acme",
      projectName: "Acme Cloud",
      projectVisibility: options.visibility ?? "public",
    },
  });
  if (res.status !== 201) throw new Error(`bootstrap failed: ${await res.text()}`);
  const { organization, project } = await res.json();
  const invited = await ctx.call("POST", `/organizations/${organization.id}/invitations`, {
    token: owner,
    json: { email: "member@acme.test", role: "member" },
  });
  const token = new URL((await invited.json()).acceptUrl).hash.slice("#invitation=".length);
  const accepted = await ctx.call("POST", `/invitations/${token}/accept`, { token: member });
  if (accepted.status !== 200) throw new Error(`accept failed: ${await accepted.text()}`);
  const seen = await ctx.call("GET", "/me", { token: stranger });
  if (seen.status !== 200) throw new Error(`GET /me failed: ${await seen.text()}`);
  return {
    owner,
    member,
    stranger,
    orgId: organization.id,
    orgSlug: organization.slug,
    project: { id: project.id, slug: project.slug },
  };
}
