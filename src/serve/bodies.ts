/**
 * Bodies of public reads, built here once so the HTTP routes and the MCP
 * tools answer the same document for the same question.
 */
import type { TrustSignalDetection } from "../domain/collector.ts";
import type { Publication } from "../domain/publication.ts";
import type { z } from "@hono/zod-openapi";
import type { PublishedTrustControlsResponse } from "../domain/publish.ts";
import { getLatestSignals } from "../store/signals.ts";
import type { Wrap } from "./artifacts.ts";
import { publicProject, publicPublication, type PublicReads } from "./public_read.ts";

/** The `{"profile":…}` envelope of /trust/{projectSlug}, around the stored trust.json bytes. */
export const PROFILE_ENVELOPE: Wrap = { prefix: '{"profile":', suffix: "}", tag: "envelope" };

/** The profile envelope around the text of a trust.json. */
export function profileEnvelope(trustJson: string): string {
  return `${PROFILE_ENVELOPE.prefix}${trustJson}${PROFILE_ENVELOPE.suffix}`;
}

type TrustControls = z.infer<typeof PublishedTrustControlsResponse>;

/** The controls body: a trust.json (as this service published it) without its schemaVersion. */
export function controlsOf(trustJson: string): TrustControls {
  const { schemaVersion: _version, ...controls } = JSON.parse(trustJson);
  return controls;
}

async function trustJsonOf(reads: PublicReads, publication: Publication): Promise<string> {
  const bytes = await reads.artifacts.bytes(reads.blobs, publication.artifacts.trustJson);
  return new TextDecoder().decode(bytes);
}

/** The exact text of the latest trust.json of a public project (404 otherwise). */
export async function latestTrustJson(reads: PublicReads, slug: string): Promise<string> {
  const { publication } = await publicPublication(reads, slug);
  return await trustJsonOf(reads, publication);
}

/** The controls body of a public project's latest version, with the ETag that names it. */
export async function latestControls(
  reads: PublicReads,
  slug: string,
): Promise<{ controls: TrustControls; etag: string }> {
  const { publication } = await publicPublication(reads, slug);
  const controls = controlsOf(await trustJsonOf(reads, publication));
  return { controls, etag: `"${publication.artifacts.trustJson.digest}.controls"` };
}

/** The latest signal detection of a public project, null when it never sent one (404 if not public). */
export async function latestSignals(
  reads: PublicReads,
  slug: string,
): Promise<TrustSignalDetection | null> {
  const project = await publicProject(reads, slug);
  return await getLatestSignals(reads.kv, project.id);
}
