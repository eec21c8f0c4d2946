/**
 * Bodies of public reads, built here once so the HTTP routes and the MCP
 * tools answer the same document for the same question.
 */
import type { TrustSignalDetection } from "../domain/collector.ts";
import type { Config } from "../config.ts";
import type { Project } from "../domain/workspace.ts";
import type { Clock } from "../lib/clock.ts";
import { sha256HexSync } from "../lib/hash.ts";
import { getOrganization } from "../store/organizations.ts";
import { publicCertificationsOf } from "./certifications.ts";
import { openPublicUpdates } from "./updates.ts";
import type { Publication } from "../domain/publication.ts";
import type { z } from "@hono/zod-openapi";
import type { PublishedTrustControlsResponse } from "../domain/publish.ts";
import { getLatestSignals } from "../store/signals.ts";
import type { Wrap } from "./artifacts.ts";
import { publicProject, publicPublication, type PublicReads } from "./public_read.ts";

/** The `{"profile":…}` envelope of /trust/{projectSlug}, around the stored trust.json bytes. */
export const PROFILE_ENVELOPE: Wrap = { prefix: '{"profile":', suffix: "}", tag: "envelope" };

/** The profile envelope around the text of a trust.json (with `wrap`'s live parts, if given). */
export function profileEnvelope(trustJson: string, wrap: Wrap = PROFILE_ENVELOPE): string {
  return `${wrap.prefix}${trustJson}${wrap.suffix}`;
}

/**
 * What the profile envelope shows beside the signed trust.json, as of now (not signed): the
 * incidents and advisories still open, and the certifications the vendor declares.
 */
async function liveParts(
  deps: { kv: Deno.Kv; config: Config; clock: Clock },
  project: Project,
): Promise<Record<string, unknown>> {
  const organization = await getOrganization(deps.kv, project.organizationId);
  const certifications = organization
    ? await publicCertificationsOf(deps.kv, {
      config: deps.config,
      organization,
      scope: { projectId: project.id },
      now: deps.clock.now(),
    })
    : [];
  const openUpdates = await openPublicUpdates(deps.kv, deps.config, project);
  return { openUpdates, certifications };
}

/**
 * The envelope of a project's latest profile: the stored trust.json bytes, then what the
 * vendor shows now beside them (open updates, certifications with their current status). The tag
 * names the live parts, so the ETag changes with them.
 */
export async function profileWrap(
  deps: { kv: Deno.Kv; config: Config; clock: Clock },
  project: Project,
): Promise<Wrap> {
  const parts = await liveParts(deps, project);
  const suffix = `${
    Object.entries(parts).map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`)
      .join("")
  }}`;
  return {
    prefix: PROFILE_ENVELOPE.prefix,
    suffix,
    tag: `envelope-${sha256HexSync(suffix).slice(0, 16)}`,
  };
}

/** The text of a public project's latest profile envelope (the body of /trust/{slug}). */
export async function latestProfileEnvelope(
  reads: PublicReads & { config: Config; clock: Clock },
  slug: string,
): Promise<string> {
  const { project, publication } = await publicPublication(reads, slug);
  const [trustJson, wrap] = await Promise.all([
    trustJsonOf(reads, publication),
    profileWrap(reads, project),
  ]);
  return profileEnvelope(trustJson, wrap);
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
