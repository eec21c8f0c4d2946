/**
 * What the MCP server may read: published data of public projects, through
 * the same functions the public HTTP routes use, so a tool result and the
 * route body come from the same lookups and the same stored bytes.
 */
import type { Context } from "hono";
import type { TrustSignalDetection } from "../domain/collector.ts";
import { artifactBytes } from "../http/artifacts.ts";
import type { AppEnv } from "../http/env.ts";
import { publicProject, publicPublication } from "../http/routes/public_trust.ts";
import type { Logger } from "../lib/log.ts";
import { getLatestSignals } from "../store/signals.ts";

/** Reads of published trust data; each throws the HTTP layer's 404 for unknown or private slugs. */
export interface TrustReader {
  /** The exact text of the latest trust.json of a public project. */
  trustJson(projectSlug: string): Promise<string>;
  /** The latest signal detection of a public project, or null when there is none. */
  signals(projectSlug: string): Promise<TrustSignalDetection | null>;
  log: Logger;
}

/**
 * A reader bound to one request's services. It takes the Hono context only
 * because `publicProject`/`publicPublication` do: sharing them is what keeps
 * "private" and "unknown" answered identically on both surfaces.
 */
export function createTrustReader(c: Context<AppEnv>): TrustReader {
  const { blobs, kv, log } = c.var.services;
  return {
    async trustJson(projectSlug) {
      const { publication } = await publicPublication(c, projectSlug);
      const bytes = await artifactBytes(blobs, publication.artifacts.trustJson);
      return new TextDecoder().decode(bytes);
    },
    async signals(projectSlug) {
      const project = await publicProject(c, projectSlug);
      return await getLatestSignals(kv, project.id);
    },
    log,
  };
}
