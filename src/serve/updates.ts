/**
 * Public reads of a project's updates (the updates pages, the trust page's live section,
 * the Atom feed and the MCP tool get_trust_updates), and the `update.posted` trust event a
 * new update raises. Read per request, so an update shows at once; unknown and private
 * projects answer the trust pages' one 404.
 */
import type { Config } from "../config.ts";
import { notFound } from "../domain/errors.ts";
import { type TrustEvent, trustEvent } from "../domain/events.ts";
import type {
  PublicTrustUpdate,
  PublicTrustUpdateResponse,
  PublicTrustUpdates,
  TrustUpdate,
  UpdatePageQuery,
  UpdatePostedData,
} from "../domain/updates.ts";
import type { Project } from "../domain/workspace.ts";
import { loadMarkdown } from "../lib/load_markdown.ts";
import { publicUrls } from "../publish/urls.ts";
import { getUpdate, listOpenUpdates, listUpdates } from "../store/updates.ts";
import { publicProject, type PublicReads } from "./public_read.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * An update as the public sees it: no authors, the body rendered to safe HTML and, as Markdown,
 * rewritten as safely (raw HTML as text, only http(s) and mailto links), since the Markdown pages,
 * the JSON and the MCP tool carry it to readers that may render it with HTML on.
 */
export async function publicUpdate(
  config: Pick<Config, "baseUrl">,
  project: Pick<Project, "slug">,
  update: TrustUpdate,
): Promise<PublicTrustUpdate> {
  const { neutralizeMarkdown, renderSafeMarkdown } = await loadMarkdown();
  return {
    id: update.id,
    kind: update.kind,
    title: update.title,
    body: neutralizeMarkdown(update.body),
    bodyHtml: renderSafeMarkdown(update.body),
    postedAt: update.postedAt,
    updatedAt: update.updatedAt,
    resolvedAt: update.resolvedAt,
    url: publicUrls(config, project.slug).update(update.id),
  };
}

/** A project's open incidents and advisories as the public sees them, newest first. */
export async function openPublicUpdates(
  kv: Deno.Kv,
  config: Pick<Config, "baseUrl">,
  project: Pick<Project, "id" | "slug">,
): Promise<PublicTrustUpdate[]> {
  const open = await listOpenUpdates(kv, project.id);
  return await Promise.all(open.map((u) => publicUpdate(config, project, u)));
}

/** A page of a public project's updates, newest first. */
export async function publicUpdates(
  reads: PublicReads & { config: Pick<Config, "baseUrl"> },
  slug: string,
  query: UpdatePageQuery,
): Promise<PublicTrustUpdates> {
  const project = await publicProject(reads, slug);
  const page = await listUpdates(reads.kv, project.id, query);
  return {
    project: { slug: project.slug, name: project.name },
    updates: await Promise.all(page.updates.map((u) => publicUpdate(reads.config, project, u))),
    nextCursor: page.nextCursor,
    url: publicUrls(reads.config, project.slug).updates,
  };
}

/** One update of a public project, or 404 (also for an id that is not a UUID). */
export async function publicUpdateById(
  reads: PublicReads & { config: Pick<Config, "baseUrl"> },
  slug: string,
  id: string,
): Promise<PublicTrustUpdateResponse> {
  const project = await publicProject(reads, slug);
  const update = UUID.test(id) ? await getUpdate(reads.kv, project.id, id) : null;
  if (!update) throw notFound("No update with that id on this trust page");
  return {
    project: { slug: project.slug, name: project.name },
    update: await publicUpdate(reads.config, project, update),
  };
}

/** The `update.posted` event of a new update: what subscribers and webhooks are told. */
export function updatePostedEvent(
  config: Pick<Config, "baseUrl">,
  project: Project,
  update: TrustUpdate,
): TrustEvent {
  const data: UpdatePostedData = {
    project: { id: project.id, slug: project.slug, name: project.name },
    update: {
      id: update.id,
      kind: update.kind,
      title: update.title,
      url: publicUrls(config, project.slug).update(update.id),
      postedAt: update.postedAt,
      resolvedAt: update.resolvedAt,
    },
  };
  return trustEvent({
    type: "update.posted",
    timestamp: update.postedAt,
    organizationId: project.organizationId,
    projectId: project.id,
    data,
  });
}
