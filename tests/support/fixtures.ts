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
