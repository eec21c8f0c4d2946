/**
 * The trust events a new version raises, committed with it: `version.published`, then
 * `control.regressed` when controls went from pass to fail, stale or degraded, and
 * `control.recovered` when such controls pass again; each lists its controls (at most
 * {@linkcode MAX_LISTED_CONTROLS}, with the full count). They compare published versions, so
 * what is pushed is exactly what a reader of the trust page can see changed, and a version
 * raises at most three events however many controls changed.
 */
import type { Config } from "../config.ts";
import { isRecovery, isRegression, type TrustEvent, trustEvent } from "../domain/events.ts";
import type { Publication } from "../domain/publication.ts";
import type { Project } from "../domain/workspace.ts";
import { publicUrls } from "./urls.ts";

/** Controls listed in one event: keeps an event job well under Deno KV's 64 KiB. */
export const MAX_LISTED_CONTROLS = 50;

export function publicationEvents(
  config: Config,
  project: Project,
  publication: Publication,
): TrustEvent[] {
  const urls = publicUrls(config, project.slug);
  const base = {
    timestamp: publication.publishedAt,
    organizationId: project.organizationId,
    projectId: project.id,
  };
  const about = {
    project: { id: project.id, slug: project.slug, name: project.name },
    version: publication.version,
    pageUrl: urls.page,
  };
  const events = [trustEvent({
    ...base,
    type: "version.published",
    data: {
      ...about,
      digest: publication.digest,
      overallState: publication.overallState,
      trustJsonUrl: urls.trustJson,
      changes: publication.changes.length,
    },
  })];
  const kinds = [
    ["control.regressed", isRegression],
    ["control.recovered", isRecovery],
  ] as const;
  for (const [type, matches] of kinds) {
    const controls = publication.changes.filter((c) => matches(c.from, c.to));
    if (controls.length === 0) continue;
    events.push(trustEvent({
      ...base,
      type,
      data: { ...about, count: controls.length, controls: controls.slice(0, MAX_LISTED_CONTROLS) },
    }));
  }
  return events;
}
