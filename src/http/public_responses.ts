/**
 * Hono-side answers of public reads: the shared headers, published artifacts
 * through the app's artifact cache, and the latest profile in the
 * negotiated format. What they serve is resolved in src/serve.
 */
import type { Context } from "hono";
import { respondWithArtifact, respondWithBytes, type Wrap } from "../serve/artifacts.ts";
import { latestPageWithLiveBlock } from "../serve/live_sections.ts";
import { profileWrap } from "../serve/bodies.ts";
import { publicPublication } from "../serve/public_read.ts";
import { JSON_TYPE, MARKDOWN_TYPE, PUBLIC_CACHE, trustPageHeaders } from "../serve/headers.ts";
import type { Artifact, Publication } from "../domain/publication.ts";
import type { Project } from "../domain/workspace.ts";
import type { AppEnv } from "./env.ts";
import { negotiatedFormat } from "./negotiation.ts";

/** Headers of every unversioned public read: shared caching, and readable from any origin. */
export function publicHeaders(c: Context<AppEnv>): void {
  c.header("Cache-Control", PUBLIC_CACHE);
  c.header("Access-Control-Allow-Origin", "*");
}

/** Responds with an artifact's stored bytes, or 304 when the client already has them. */
export function serveArtifact(
  c: Context<AppEnv>,
  artifact: Artifact,
  options: { headers: Record<string, string>; wrap?: Wrap },
): Promise<Response> {
  return respondWithArtifact(c.req.raw, c.var.services, { artifact, ...options });
}

/**
 * Responds with one artifact of the latest public publication of `slug` (404 for an
 * unknown or private project), under the unversioned reads' shared caching.
 */
export async function serveLatestArtifact(
  c: Context<AppEnv>,
  slug: string,
  options: {
    pick: (publication: Publication) => Artifact;
    type: string;
    headers?: Record<string, string>;
  },
): Promise<Response> {
  const { publication } = await publicPublication(c.var.services, slug);
  return await serveArtifact(c, options.pick(publication), {
    headers: { "content-type": options.type, ...options.headers, "cache-control": PUBLIC_CACHE },
  });
}

/**
 * The latest profile in the negotiated format: HTML for browsers, Markdown
 * for agents (`Accept: text/markdown`), the JSON envelope otherwise. The HTML and Markdown
 * pages carry the live block (src/serve/live_sections.ts) after the published page.
 */
export async function serveLatestProfile(
  c: Context<AppEnv>,
  latest: { project: Project; publication: Publication },
  format: "json" | "html" | "md" | undefined,
): Promise<Response> {
  const { publication } = latest;
  const chosen = format ?? negotiatedFormat(c);
  const base = { "cache-control": PUBLIC_CACHE, vary: "Accept" };
  const { services } = c.var;
  if (chosen === "json") {
    return await serveArtifact(c, publication.artifacts.trustJson, {
      headers: { ...base, "content-type": JSON_TYPE },
      wrap: await profileWrap(services, latest.project),
    });
  }
  const { bytes, etag, csp } = await latestPageWithLiveBlock({ ...services, ...latest }, chosen);
  return await respondWithBytes(c.req.raw, services, {
    bytes,
    etag,
    headers: {
      ...base,
      ...(chosen === "html" ? trustPageHeaders(csp) : { "content-type": MARKDOWN_TYPE }),
    },
  });
}
