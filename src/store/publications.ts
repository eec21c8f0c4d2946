/**
 * Published versions and publish jobs. A version is immutable once written;
 * the latest-version pointer moves in the same atomic that writes it.
 */
import type { ControlState } from "../domain/control.ts";
import type { PublishedTrustSummary, PublishedVersion, PublishJob } from "../domain/publish.ts";
import {
  latestPublicationKey,
  publicationKey,
  publicationsOfProjectPrefix,
  publishJobKey,
} from "./keys.ts";

/** A stored artifact: its blob key and the strong validator of its bytes. */
export interface Artifact {
  key: string;
  digest: string;
}

/** Everything about one published version; the artifacts are immutable blobs. */
export interface Publication extends PublishedVersion {
  id: string;
  projectId: string;
  summary: PublishedTrustSummary;
  /**
   * The Content-Security-Policy of this version's HTML: its inline stylesheet's hash as
   * rendered then, so a later stylesheet change cannot unstyle an immutable page.
   */
  htmlCsp?: string;
  /** State of every published control, by key, to describe the next version's changes. */
  states: Record<string, ControlState>;
  artifacts: {
    trustJson: Artifact;
    jws: Artifact;
    html: Artifact;
    markdown: Artifact;
    feed: Artifact;
    badgeSvg: Artifact;
    badgeJson: Artifact;
  };
}

export async function getLatestPublicationEntry(
  kv: Deno.Kv,
  projectId: string,
): Promise<Deno.KvEntryMaybe<number>> {
  return await kv.get<number>(latestPublicationKey(projectId));
}

export async function getPublication(
  kv: Deno.Kv,
  projectId: string,
  version: number,
): Promise<Publication | null> {
  return (await kv.get<Publication>(publicationKey(projectId, version))).value;
}

export async function getLatestPublication(
  kv: Deno.Kv,
  projectId: string,
): Promise<Publication | null> {
  const latest = await getLatestPublicationEntry(kv, projectId);
  return latest.value ? await getPublication(kv, projectId, latest.value) : null;
}

/** The newest `limit` versions, newest first. */
export async function listPublications(
  kv: Deno.Kv,
  projectId: string,
  limit = 100,
): Promise<Publication[]> {
  const out: Publication[] = [];
  const iterator = kv.list<Publication>({ prefix: publicationsOfProjectPrefix(projectId) }, {
    reverse: true,
    limit,
  });
  for await (const entry of iterator) out.push(entry.value);
  return out;
}

export async function saveJob(kv: Deno.Kv, job: PublishJob): Promise<void> {
  await kv.set(publishJobKey(job.projectId, job.id), job);
}

/**
 * Writes version `publication.version` if the latest pointer is still what
 * was read (`latest`), moving the pointer and completing the job in the
 * same atomic. Returns false when another publish got there first.
 */
export async function commitPublication(
  kv: Deno.Kv,
  latest: Deno.KvEntryMaybe<number>,
  publication: Publication,
  job: PublishJob,
): Promise<boolean> {
  const key = publicationKey(publication.projectId, publication.version);
  const res = await kv.atomic()
    .check(latest)
    .check({ key, versionstamp: null })
    .set(key, publication)
    .set(latestPublicationKey(publication.projectId), publication.version)
    .set(publishJobKey(job.projectId, job.id), job)
    .commit();
  return res.ok;
}
