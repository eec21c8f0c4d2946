/**
 * Published versions and publish jobs. A version is immutable once written;
 * the latest-version pointer moves in the same atomic that writes it. A
 * version with many controls keeps its `states` and `changes` in parts
 * beside it (written in the same atomic), so no value outgrows KV's 64 KiB.
 */
import type { TrustEvent } from "../domain/events.ts";
import { stageEvents } from "./event_jobs.ts";
import type { ControlState } from "../domain/control.ts";
import type { Publication } from "../domain/publication.ts";
import type { PublishedVersion, PublishJob } from "../domain/publish.ts";
import { CHUNK_BYTES, getManyChunked, serializedSize, splitBySize } from "./_chunks.ts";
import { addLogAppend } from "./log.ts";
import type { DeletionKind } from "../domain/deletion.ts";
import {
  deletionKey,
  latestPublicationKey,
  projectKey,
  publicationKey,
  publicationPartKey,
  publicationsOfProjectPrefix,
  publishJobKey,
} from "./keys.ts";
import { citedOf, stageCitations } from "./retention.ts";
import { addToSearchIndex } from "./search_index.ts";
import type { Project } from "../domain/workspace.ts";

/** Kept for the public-read modules that still import the record types from here. */

export async function getLatestPublicationEntry(
  kv: Deno.Kv,
  projectId: string,
): Promise<Deno.KvEntryMaybe<number>> {
  return await kv.get<number>(latestPublicationKey(projectId));
}

/** How a publication is stored: with `parts`, its states and changes live in part entries. */
type StoredPublication = Publication & { parts?: number };
type Part = { states: Array<[string, ControlState]> } | { changes: PublishedVersion["changes"] };

/** The stored form of `publication`, and the parts it needs when it is too large for one value. */
function toStored(publication: Publication): { record: StoredPublication; parts: Part[] } {
  if (serializedSize(publication) <= CHUNK_BYTES) return { record: publication, parts: [] };
  const parts: Part[] = [
    ...splitBySize(Object.entries(publication.states)).map((states) => ({ states })),
    ...splitBySize(publication.changes).map((changes) => ({ changes })),
  ];
  return { record: { ...publication, states: {}, changes: [], parts: parts.length }, parts };
}

async function fromStored(kv: Deno.Kv, record: StoredPublication): Promise<Publication> {
  if (!record.parts) return record;
  const { parts: count, ...publication } = record;
  const keys = Array.from(
    { length: count },
    (_, i) => publicationPartKey(record.projectId, record.version, i),
  );
  const parts = await getManyChunked<Part>(kv, keys);
  for (const part of parts) {
    if (part.value === null) {
      throw new Error(`Version ${record.version} of project "${record.projectId}" misses a part`);
    }
    if ("states" in part.value) {
      Object.assign(publication.states, Object.fromEntries(part.value.states));
    } else publication.changes.push(...part.value.changes);
  }
  return publication;
}

export async function getPublication(
  kv: Deno.Kv,
  projectId: string,
  version: number,
): Promise<Publication | null> {
  const record = (await kv.get<StoredPublication>(publicationKey(projectId, version))).value;
  return record ? await fromStored(kv, record) : null;
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
  const out: StoredPublication[] = [];
  const iterator = kv.list<StoredPublication>({ prefix: publicationsOfProjectPrefix(projectId) }, {
    reverse: true,
    limit,
  });
  for await (const entry of iterator) out.push(entry.value);
  return await Promise.all(out.map((record) => fromStored(kv, record)));
}

/**
 * A page of versions, newest first: at most `limit` versions older than `before` (all when
 * it is absent), and whether older ones remain. Reads `limit + 1` index entries, whatever
 * the length of the history.
 */
export async function listPublicationsPage(
  kv: Deno.Kv,
  projectId: string,
  options: { before?: number; limit: number },
): Promise<{ publications: Publication[]; more: boolean }> {
  const prefix = publicationsOfProjectPrefix(projectId);
  const selector = options.before === undefined
    ? { prefix }
    : { prefix, end: publicationKey(projectId, options.before) };
  const out: StoredPublication[] = [];
  const iterator = kv.list<StoredPublication>(selector, {
    reverse: true,
    limit: options.limit + 1,
  });
  for await (const entry of iterator) out.push(entry.value);
  const more = out.length > options.limit;
  const page = out.slice(0, options.limit);
  return { publications: await Promise.all(page.map((r) => fromStored(kv, r))), more };
}

export async function saveJob(kv: Deno.Kv, job: PublishJob): Promise<void> {
  await kv.set(publishJobKey(job.projectId, job.id), job);
}

/**
 * Adds to the commit of a project's first version its search entries when it is public
 * (checking the project, so a concurrent visibility change or rename makes the commit retry).
 */
async function indexFirstPublish(kv: Deno.Kv, op: Deno.AtomicOperation, projectId: string) {
  const project = await kv.get<Project>(projectKey(projectId));
  op.check(project);
  if (project.value?.visibility === "public") await addToSearchIndex(kv, op, project.value);
}

/** Appends to the log that the publication log head moved under are retried this often. */
const LOG_ATTEMPTS = 50;

/**
 * Writes version `publication.version` if the latest pointer is still what
 * was read (`latest`), moving the pointer, completing the job and appending
 * the version to the publication log (as published under `slug`) in the same
 * atomic. Returns false when another publish of the project got there first.
 * A commit that lost only the log head to another project's publish is sent
 * again on the new head, so versions and log entries always agree.
 *
 * The same atomic checks that neither the project's nor its organization's deletion is
 * scheduled (their keys absent): a publish racing the scheduling either commits first or adds
 * nothing, so no public log entry names a project after its deletion was scheduled. Returns
 * which deletion stopped it.
 */
export async function commitPublication(
  kv: Deno.Kv,
  latest: Deno.KvEntryMaybe<number>,
  publication: Publication,
  job: PublishJob,
  { slug, organizationId, events = [], citations = [] }: {
    slug: string;
    /** The project's organization, whose deletion key is checked too. */
    organizationId: string;
    events?: readonly TrustEvent[];
    /** The payload digests the version cites (kept by retention from this commit on). */
    citations?: readonly string[];
  },
): Promise<boolean | DeletionKind> {
  const { projectId, version } = publication;
  const key = publicationKey(projectId, version);
  const deletions = [
    deletionKey("project", projectId),
    deletionKey("organization", organizationId),
  ];
  for (let attempt = 1; attempt <= LOG_ATTEMPTS; attempt++) {
    const op = kv.atomic()
      .check(latest)
      .check({ key, versionstamp: null });
    for (const deletion of deletions) op.check({ key: deletion, versionstamp: null });
    const logIndex = await addLogAppend(kv, op, { ...publication, slug });
    const { record, parts } = toStored({ ...publication, logIndex });
    op.set(key, record)
      .set(latestPublicationKey(projectId), version)
      .set(publishJobKey(job.projectId, job.id), job);
    parts.forEach((part, i) => op.set(publicationPartKey(projectId, version, i), part));
    stageEvents(op, events);
    if (citations.length > 0) {
      const cited = await citedOf(kv, projectId, citations);
      stageCitations(op, projectId, citations.filter((c) => !cited.has(c)), version);
    }
    if (latest.value === null) await indexFirstPublish(kv, op, projectId);
    if ((await op.commit()).ok) return true;
    const [now, ...scheduled] = await kv.getMany([latestPublicationKey(projectId), ...deletions]);
    const by = scheduled.findIndex((entry) => entry.versionstamp !== null);
    if (by >= 0) return by === 0 ? "project" : "organization";
    if (now.versionstamp !== latest.versionstamp) return false;
    // Another project's publish moved the log head: wait a little, then append after it.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
  }
  throw new Error("The publication log was too busy to append to");
}
