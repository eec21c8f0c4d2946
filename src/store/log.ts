/**
 * The publication log in KV: one append-only RFC 6962 Merkle tree over every
 * publication of every project. Stored as its head (size and frontier), the
 * hash of every complete subtree (`log_nodes`, level 0 being the leaf
 * hashes) and each entry's text. An append is a set of writes added to the
 * publication's own atomic, checked against the head it extends, so the log
 * and the versions can never disagree, whatever runs concurrently. Roots and
 * proofs of any size up to the current one read O(log n) nodes.
 */
import {
  encodeLogEntry,
  encodePublisherChange,
  type LogEntryFields,
  type NameChangeKind,
  type PublisherChangeFields,
} from "../domain/log.ts";
import {
  appendLeaf,
  hashRange,
  leafHash,
  type NodeId,
  nodesOfRange,
  type Range,
} from "../lib/merkle.ts";
import { getManyChunked } from "./_chunks.ts";
import {
  logEntriesOfProjectPrefix,
  logEntryByPublicationKey,
  logEntryKey,
  logHeadKey,
  logNameChangeKey,
  logNodeKey,
} from "./keys.ts";

/** The stored head: how many entries, and the hashes of the frontier's subtrees. */
interface LogHead {
  size: number;
  frontier: Uint8Array[];
}

/**
 * A stored entry: its canonical text and the publication it records (version 0: the entry
 * that recorded the project taking a slug a deleted project had left).
 */
interface StoredLogEntry {
  entry: string;
  /** Null on the entry recording that an organization took a released organization slug. */
  projectId: string | null;
  version: number;
  /** The organization of that entry (of a released name's new holder). */
  organizationId?: string;
}

const EMPTY: LogHead = { size: 0, frontier: [] };
const encoder = new TextEncoder();

/** How many entries the log holds. */
export async function getLogSize(kv: Deno.Kv): Promise<number> {
  return (await kv.get<LogHead>(logHeadKey())).value?.size ?? 0;
}

/**
 * Reads the head and adds to `op` the writes that append the entry for
 * `fields` (a publication of `projectId`), checked against that head.
 * Returns the leaf index the entry gets if `op` commits.
 */
export async function addLogAppend(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  publication: LogEntryFields & { projectId: string },
): Promise<number> {
  return await appendEntry(kv, op, {
    entry: encodeLogEntry(publication),
    projectId: publication.projectId,
    version: publication.version,
  });
}

/**
 * The "version" under which a project's change-of-publisher entry is indexed with its
 * versions (`log_entries_by_publication`): before version 1, so the project's deletion erases
 * it with them, and lists of versions start after it.
 */
const PUBLISHER_CHANGE_VERSION = 0;

/**
 * Reads the head and adds to `op` the writes that append the entry recording that the new
 * project `change.projectId` took a slug a deleted project had left (src/domain/log.ts,
 * PUBLISHER_CHANGE_HEADER), checked against that head. Made in the project's creating commit.
 */
export async function addPublisherChangeAppend(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  change: PublisherChangeFields,
): Promise<number> {
  return await appendEntry(kv, op, {
    entry: encodePublisherChange(change),
    projectId: change.projectId,
    version: PUBLISHER_CHANGE_VERSION,
  });
}

/** Where the entry recording a released name's new holder is found (`log_name_changes`). */
export interface NameChangeIndex {
  index: number;
  /** The project that took a custom domain; null for an organization slug. */
  projectId: string | null;
  /** When the operator released the name (from its tombstone). */
  releasedAt: string | null;
}

/**
 * The same as `addPublisherChangeAppend` for an organization slug (taken by a new
 * organization) or a custom domain (taken by a project): the entry is appended in the commit
 * that takes the name, and indexed under the new holder's organization
 * (`["log_name_changes", organizationId, kind, name]`), so its deletion erases it, and so
 * the trust center and the domain's profile can show it.
 */
export async function addNameChangeAppend(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  change: PublisherChangeFields & { kind: Exclude<NameChangeKind, "project"> },
  releasedAt: string | null,
): Promise<number> {
  const index = await appendEntry(kv, op, {
    entry: encodePublisherChange(change),
    projectId: change.projectId,
    version: PUBLISHER_CHANGE_VERSION,
    organizationId: change.organizationId,
  }, { indexed: false });
  op.set(
    logNameChangeKey(change.organizationId, change.kind, change.slug),
    {
      index,
      projectId: change.projectId,
      releasedAt,
    } satisfies NameChangeIndex,
  );
  return index;
}

/**
 * The entry that recorded `organizationId` (or one of its projects) taking the released name,
 * with its leaf index and hash and when the name was released, or null (no such change).
 */
export async function getNameChange(
  kv: Deno.Kv,
  organizationId: string,
  kind: Exclude<NameChangeKind, "project">,
  name: string,
): Promise<
  { index: number; entry: string; leafHash: Uint8Array; releasedAt: string | null } | null
> {
  const found = (await kv.get<NameChangeIndex>(logNameChangeKey(organizationId, kind, name)))
    .value;
  if (!found) return null;
  const [entry, leaf] = await kv.getMany<[StoredLogEntry, Uint8Array]>([
    logEntryKey(found.index),
    logNodeKey(0, found.index),
  ]);
  if (!entry.value || !leaf.value) throw new Error(`The log misses entry ${found.index}`);
  return {
    index: found.index,
    entry: entry.value.entry,
    leafHash: leaf.value,
    releasedAt: found.releasedAt,
  };
}

/** The head an atomic operation's staged appends leave, by operation. */
const stagedHeads = new WeakMap<Deno.AtomicOperation, LogHead>();

/** Adds to `op` the append of `stored`, checked against the head read here; its index. */
async function appendEntry(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  stored: StoredLogEntry,
  options: { indexed: boolean } = { indexed: true },
): Promise<number> {
  // A second append to the same commit (a workspace taking a released organization slug and
  // a released project slug) extends the head the first staged, already checked.
  let head = stagedHeads.get(op);
  if (!head) {
    const headEntry = await kv.get<LogHead>(logHeadKey());
    op.check(headEntry);
    head = headEntry.value ?? EMPTY;
  }
  const appended = appendLeaf(head.size, head.frontier, leafHash(encoder.encode(stored.entry)));
  const index = head.size;
  const next: LogHead = { size: index + 1, frontier: appended.frontier };
  stagedHeads.set(op, next);
  op.set(logHeadKey(), next)
    .set(logEntryKey(index), stored);
  if (options.indexed && stored.projectId !== null) {
    op.set(logEntryByPublicationKey(stored.projectId, stored.version), index);
  }
  for (const node of appended.nodes) op.set(logNodeKey(node.level, node.index), node.hash);
  return index;
}

/**
 * The entry that recorded `projectId` taking a slug a deleted project had left, with its leaf
 * index and hash, or null (the slug had no earlier holder, or the entry is not below
 * `treeSize`).
 */
export async function getPublisherChange(
  kv: Deno.Kv,
  projectId: string,
  treeSize: number,
): Promise<{ index: number; entry: string; leafHash: Uint8Array } | null> {
  const index = (await kv.get<number>(
    logEntryByPublicationKey(projectId, PUBLISHER_CHANGE_VERSION),
  )).value;
  if (index === null || index >= treeSize) return null;
  const [entry, leaf] = await kv.getMany<[StoredLogEntry, Uint8Array]>([
    logEntryKey(index),
    logNodeKey(0, index),
  ]);
  if (!entry.value || !leaf.value) throw new Error(`The log misses entry ${index}`);
  return { index, entry: entry.value.entry, leafHash: leaf.value };
}

/**
 * The RFC 6962 hashes of `ranges` of leaves, all within the log's first entries, read in
 * batches: the nodes of every range are fetched together.
 */
export async function getLogRangeHashes(
  kv: Deno.Kv,
  ranges: readonly Range[],
): Promise<Uint8Array[]> {
  const wanted = new Map<string, NodeId>();
  for (const range of ranges) {
    for (const node of nodesOfRange(range)) wanted.set(`${node.level}/${node.index}`, node);
  }
  const ids = [...wanted.values()];
  const entries = await getManyChunked<Uint8Array>(
    kv,
    ids.map((n) => logNodeKey(n.level, n.index)),
  );
  const hashes = new Map<string, Uint8Array>();
  entries.forEach((entry, i) => {
    if (entry.value) hashes.set(`${ids[i].level}/${ids[i].index}`, entry.value);
  });
  const source = (node: NodeId) => {
    const hash = hashes.get(`${node.level}/${node.index}`);
    if (!hash) throw new Error(`The log misses node ${node.level}/${node.index}`);
    return hash;
  };
  return ranges.map((range) => hashRange(range, source));
}

/** What remains of an entry whose project was deleted: its leaf hash alone (in log_nodes). */
interface ErasedLogEntry {
  erased: true;
}

/**
 * Adds to `op` the erasure of the entry at `index` (a deleted project's): its text, slug and
 * project go, its leaf hash and every node above it stay, so the log keeps its size, its roots
 * and every other entry's proofs.
 */
export function eraseLogEntry(op: Deno.AtomicOperation, index: number): Deno.AtomicOperation {
  return op.set(logEntryKey(index), { erased: true } satisfies ErasedLogEntry);
}

/**
 * The entry at `index` with its leaf hash, or null beyond the log's end. An erased entry (its
 * project was deleted) has no text, project or version.
 */
export async function getLogEntry(
  kv: Deno.Kv,
  index: number,
): Promise<
  | (StoredLogEntry & { leafHash: Uint8Array; erased: false })
  | { entry: null; projectId: null; version: null; leafHash: Uint8Array; erased: true }
  | null
> {
  const [entry, leaf] = await kv.getMany<[StoredLogEntry | ErasedLogEntry, Uint8Array]>([
    logEntryKey(index),
    logNodeKey(0, index),
  ]);
  if (!entry.value || !leaf.value) return null;
  if ("erased" in entry.value) {
    return { entry: null, projectId: null, version: null, leafHash: leaf.value, erased: true };
  }
  return { ...entry.value, leafHash: leaf.value, erased: false };
}

/** The leaf index of version `version` of a project, or null when it is not in the log. */
export async function getLogIndexOfPublication(
  kv: Deno.Kv,
  projectId: string,
  version: number,
): Promise<number | null> {
  return (await kv.get<number>(logEntryByPublicationKey(projectId, version))).value;
}

/** A project's log entry: the version it records, its leaf index, text and leaf hash. */
export interface ProjectLogEntry {
  version: number;
  index: number;
  entry: string;
  leafHash: Uint8Array;
}

/**
 * One page of a project's entries in the log, oldest first: the versions after `after`
 * (from version 1 when not given) whose leaf index is below `treeSize`. A project's entries
 * are appended in version order, so their leaf indexes grow with the version and the page
 * ends at the first one outside the tree. Reads at most `limit + 1` index entries.
 */
export async function listProjectLogEntries(
  kv: Deno.Kv,
  projectId: string,
  options: { after?: number; limit: number; treeSize: number },
): Promise<{ entries: ProjectLogEntry[]; more: boolean }> {
  const prefix = logEntriesOfProjectPrefix(projectId);
  // Versions start at 1; the change-of-publisher entry indexed before them is not one.
  const selector = {
    prefix,
    start: logEntryByPublicationKey(projectId, (options.after ?? PUBLISHER_CHANGE_VERSION) + 1),
  };
  const found: Array<{ version: number; index: number }> = [];
  let more = false;
  for await (const item of kv.list<number>(selector, { limit: options.limit + 1 })) {
    if (item.value >= options.treeSize) break;
    if (found.length === options.limit) {
      more = true;
      break;
    }
    found.push({ version: item.key[2] as number, index: item.value });
  }
  const [entries, leaves] = await Promise.all([
    getManyChunked<StoredLogEntry>(kv, found.map((f) => logEntryKey(f.index))),
    getManyChunked<Uint8Array>(kv, found.map((f) => logNodeKey(0, f.index))),
  ]);
  return {
    entries: found.map((f, i) => {
      const entry = entries[i].value, leaf = leaves[i].value;
      if (!entry || !leaf) throw new Error(`The log misses entry ${f.index}`);
      return { version: f.version, index: f.index, entry: entry.entry, leafHash: leaf };
    }),
    more,
  };
}
