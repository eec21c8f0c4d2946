/**
 * Public trust reads (no credentials). Private projects and unknown slugs
 * answer the same 404, so a slug's existence is not revealed.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { TrustSignalsResponse } from "../../domain/collector.ts";
import { notFound } from "../../domain/errors.ts";
import type { Project } from "../../domain/workspace.ts";
import { getProjectBySlug } from "../../store/projects.ts";
import { getLatestSignals } from "../../store/signals.ts";
import type { AppEnv } from "../env.ts";
import { createRouter } from "../env.ts";
import { errors, json } from "../openapi.ts";

export const publicTrustRoutes = createRouter();

/** Cache policy of every latest (unversioned) public read. */
export const PUBLIC_CACHE = "public, s-maxage=300";

export const SlugParams = z.object({
  projectSlug: z.string().min(1).max(100).openapi({
    param: { name: "projectSlug", in: "path" },
    example: "acme-cloud",
  }),
});

/** The public project with this slug, or a 404 that does not say which part failed. */
export async function publicProject(c: Context<AppEnv>, slug: string): Promise<Project> {
  const project = await getProjectBySlug(c.var.services.kv, slug);
  if (!project || project.visibility !== "public") {
    throw notFound(`No public trust profile for "${slug.slice(0, 100)}"`);
  }
  return project;
}

/** Headers of public reads: shared caching and reads from any origin. */
export function publicHeaders(c: Context<AppEnv>, cacheControl = PUBLIC_CACHE): void {
  c.header("Cache-Control", cacheControl);
  c.header("Access-Control-Allow-Origin", "*");
}

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}/signals",
    operationId: "getTrustSignals",
    tags: ["Public trust"],
    summary: "The project's latest repository signal detection",
    description:
      "signals is null when the project never submitted a detection. Poll at most once per minute.",
    request: { params: SlugParams },
    responses: {
      200: json(TrustSignalsResponse, "The latest detection, or null"),
      ...errors(404),
    },
  }),
  async (c) => {
    const project = await publicProject(c, c.req.valid("param").projectSlug);
    const signals = await getLatestSignals(c.var.services.kv, project.id);
    publicHeaders(c);
    return c.json({ signals }, 200);
  },
);
