/**
 * The Atom feed of a project as served: the feed published with its latest version (one
 * entry per version) with the project's recent updates merged in per request, so a posted
 * or resolved update reaches feed readers at once without publishing a version. Incidents
 * and advisories still open are always in it, however many updates came after them, until
 * they are resolved. Its ETag is the published feed's digest and a hash of the update entries.
 */
import { sha256HexSync } from "../lib/hash.ts";
import { updateFeedEntry, withFeedEntries } from "../publish/render/feed.ts";
import { publicUrls } from "../publish/urls.ts";
import { listOpenUpdates, listUpdates } from "../store/updates.ts";
import type { Config } from "../config.ts";
import type { BlobStore } from "../blobs/mod.ts";
import type { ArtifactCache } from "./artifacts.ts";
import { publicPublication, type PublicReads } from "./public_read.ts";
import { publicUpdate } from "./updates.ts";

/** Most updates the feed carries, newest first. */
export const FEED_UPDATES = 50;

/** The latest feed of public project `slug` with its updates: bytes and ETag. */
export async function latestFeed(
  deps: PublicReads & { config: Config; blobs: BlobStore; artifacts: ArtifactCache },
  slug: string,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; etag: string }> {
  const { project, publication } = await publicPublication(deps, slug);
  const artifact = publication.artifacts.feed;
  const [published, page, open] = await Promise.all([
    deps.artifacts.bytes(deps.blobs, artifact),
    listUpdates(deps.kv, project.id, { limit: FEED_UPDATES }),
    listOpenUpdates(deps.kv, project.id),
  ]);
  const pageUrl = publicUrls(deps.config, project.slug).page;
  const listed = new Set(page.updates.map((u) => u.id));
  const updates = [...page.updates, ...open.filter((u) => !listed.has(u.id))];
  const entries = await Promise.all(
    updates.map(async (u) =>
      updateFeedEntry({ pageUrl, slug: project.slug }, await publicUpdate(deps.config, project, u))
    ),
  );
  const feed = withFeedEntries(new TextDecoder().decode(published), entries);
  const tag = entries.length === 0
    ? ""
    : `.u-${sha256HexSync(entries.map((e) => e.xml).join("\n")).slice(0, 16)}`;
  return { bytes: new TextEncoder().encode(feed), etag: `"${artifact.digest}${tag}"` };
}
