/**
 * Public reads of the publication log: its description (origin and verifier
 * key), signed checkpoints, entries, inclusion proofs (by leaf index or by a
 * public project's version) and consistency proofs. Checkpoints are signed
 * when read: Ed25519 is deterministic, so every instance gives the same
 * bytes for the same tree size and key. Entries of projects that are private
 * now, or withdrawn (their or their organization's deletion scheduled), show only their leaf
 * hash, so the log never names a private project nor one its owner is deleting (the entry
 * stays verifiable: its leaf hash and inclusion proofs are served as ever);
 * the list of one project's entries (what the verifier kit compares with the
 * versions it verified) answers for public projects only.
 */
import type { SigningKey } from "../auth/keys.ts";
import type { Config } from "../config.ts";
import { notFound, validationFailed } from "../domain/errors.ts";
import {
  LOG_ENTRY_HEADER,
  logOriginOf,
  NAME_CHANGE_HEADERS,
  type NameChange,
  PUBLISHER_CHANGE_HEADER,
} from "../domain/log.ts";
import { deletionDueText } from "../domain/deletion.ts";
import { decodeBase64Url, encodeBase64 } from "../lib/encoding.ts";
import { consistencyRanges, EMPTY_ROOT, inclusionRanges, type Range } from "../lib/merkle.ts";
import { checkpointText, type NoteSigner, noteVerifierKey, signNote } from "../lib/signed_note.ts";
import {
  getLogEntry,
  getLogIndexOfPublication,
  getLogRangeHashes,
  getLogSize,
  getNameChange,
  getPublisherChange,
  listProjectLogEntries,
} from "../store/log.ts";
import { pendingDeletionOf } from "../store/deletions.ts";
import { getOrganization } from "../store/organizations.ts";
import { getProject } from "../store/projects.ts";
import { inclusionRelation } from "./headers.ts";
import { isWithdrawn, publicProject, type PublicReads } from "./public_read.ts";

/** What the log's reads use. */
export interface LogReads extends PublicReads {
  config: Config;
  keys: { log: SigningKey };
}

/** Cache policy of the latest checkpoint and of proofs against it: they move with each publish. */
export const LOG_CACHE = "public, max-age=10";

/** The checkpoint origin of this service's log: BASE_URL without its scheme, then `/log`. */
export function logOrigin(config: Config): string {
  return logOriginOf(config.baseUrl);
}

function signer(reads: LogReads): NoteSigner {
  return {
    name: logOrigin(reads.config),
    publicKey: decodeBase64Url(reads.keys.log.publicJwk.x),
    privateKey: reads.keys.log.privateKey,
  };
}

/** The log's description: origin, verifier key, size and entry format. */
export async function logInfo(reads: LogReads) {
  const { config } = reads;
  const key = signer(reads);
  return {
    origin: key.name,
    verifierKey: noteVerifierKey(key.name, key.publicKey),
    treeSize: await getLogSize(reads.kv),
    hashing: "RFC 6962 SHA-256" as const,
    entryFormat:
      `UTF-8 text of five LF-terminated lines: "${LOG_ENTRY_HEADER}", the project slug, the version (decimal), "sha256:" and the hex SHA-256 of the version's trust.json bytes, and its publishedAt. ` +
      `An entry recording a change of publisher under a slug (a deleted project's slug released by the operator and taken by a new project) has seven: "${PUBLISHER_CHANGE_HEADER}", the slug, the log's size when the previous holder left it (or "unknown"), the new project's id, its organization's slug and id, and when it was taken. ` +
      `A released organization slug or custom domain taken by another tenant is recorded by the same seven lines under "${NAME_CHANGE_HEADERS.organization}" or "${NAME_CHANGE_HEADERS.domain}", the name second, and "-" for the project of an organization slug`,
    inclusionProofRelation: inclusionRelation(config),
    checkpoint: `${config.baseUrl}/log/checkpoint`,
  };
}

/** Reads the log's size and fails with 404 when `size` is beyond it. */
async function sizeAtLeast(reads: LogReads, size: number | undefined): Promise<number> {
  const current = await getLogSize(reads.kv);
  if (size !== undefined && size > current) {
    throw notFound(`The log has ${current} entries; tree size ${size} does not exist yet`);
  }
  return size ?? current;
}

/** The hashes of `ranges` and the root of a tree of `size`, in one batch of reads. */
async function withRoot(reads: LogReads, size: number, ranges: Range[]) {
  if (size === 0) return { root: EMPTY_ROOT, hashes: [] };
  const hashes = await getLogRangeHashes(reads.kv, [...ranges, [0, size]]);
  return { root: hashes[hashes.length - 1], hashes: hashes.slice(0, -1) };
}

async function checkpoint(reads: LogReads, size: number, root: Uint8Array): Promise<string> {
  const key = signer(reads);
  return await signNote(checkpointText(key.name, size, root), key);
}

/** The signed checkpoint of the log as it is now. */
export async function latestCheckpoint(reads: LogReads): Promise<string> {
  const size = await getLogSize(reads.kv);
  const { root } = await withRoot(reads, size, []);
  return await checkpoint(reads, size, root);
}

/**
 * The entry at `index`, or 404. Its text is withheld (null; the leaf hash stays) while its
 * project is private or withdrawn by a scheduled deletion, and once the project is deleted.
 */
export async function logEntry(reads: LogReads, index: number) {
  const stored = await getLogEntry(reads.kv, index);
  if (!stored) throw notFound(`The log has no entry ${index}`);
  let shown = false;
  if (!stored.erased && stored.projectId !== null) {
    const project = await getProject(reads.kv, stored.projectId);
    shown = project?.visibility === "public" && !(await isWithdrawn(reads.kv, project));
  } else if (!stored.erased && stored.organizationId) {
    // An organization's taking of a released organization slug: shown while it is there.
    const organizationId = stored.organizationId;
    shown = await getOrganization(reads.kv, organizationId) !== null &&
      await pendingDeletionOf(reads.kv, { organizationId }) === null;
  }
  return {
    index,
    leafHash: encodeBase64(stored.leafHash),
    entry: shown ? stored.entry : null,
  };
}

/** The inclusion proof of leaf `index` in the tree of `treeSize` (default: the current size). */
export async function inclusionProof(reads: LogReads, index: number, treeSize?: number) {
  const size = await sizeAtLeast(reads, treeSize);
  if (index >= size) {
    throw treeSize === undefined
      ? notFound(`The log has no entry ${index}`)
      : validationFailed(`Entry ${index} is not in a tree of ${size} entries`);
  }
  const [entry, { root, hashes }] = await Promise.all([
    logEntry(reads, index),
    withRoot(reads, size, inclusionRanges(index, size)),
  ]);
  return {
    leafIndex: index,
    treeSize: size,
    leafHash: entry.leafHash,
    entry: entry.entry,
    rootHash: encodeBase64(root),
    proof: hashes.map(encodeBase64),
    checkpoint: await checkpoint(reads, size, root),
  };
}

/** The inclusion proof of a public project's version, or 404 (private, unknown, not logged). */
export async function publicationInclusionProof(
  reads: LogReads,
  options: { slug: string; version: number; treeSize?: number },
) {
  const project = await publicProject(reads, options.slug);
  const index = await getLogIndexOfPublication(reads.kv, project.id, options.version);
  if (index === null) {
    throw notFound(`Version ${options.version} of "${options.slug}" is not in the log`);
  }
  return await inclusionProof(reads, index, options.treeSize);
}

/** Entries per page of a project's log entries when the request names no limit. */
export const PROJECT_ENTRIES_LIMIT = 100;

/**
 * One page of a public project's entries in the tree of `treeSize` (default: the current
 * size), oldest first, or 404 (private, unknown, or a tree size beyond the log).
 */
export async function projectLogEntries(
  reads: LogReads,
  options: { slug: string; treeSize?: number; cursor?: string; limit?: number },
) {
  const project = await publicProject(reads, options.slug);
  const size = await sizeAtLeast(reads, options.treeSize);
  const [{ entries, more }, change] = await Promise.all([
    listProjectLogEntries(reads.kv, project.id, {
      after: options.cursor === undefined ? undefined : Number(options.cursor),
      limit: options.limit ?? PROJECT_ENTRIES_LIMIT,
      treeSize: size,
    }),
    getPublisherChange(reads.kv, project.id, size),
  ]);
  const last = entries.at(-1);
  return {
    projectSlug: project.slug,
    publisherChange: change
      ? { leafIndex: change.index, leafHash: encodeBase64(change.leafHash), entry: change.entry }
      : null,
    treeSize: size,
    entries: entries.map((e) => ({
      version: e.version,
      leafIndex: e.index,
      leafHash: encodeBase64(e.leafHash),
      entry: e.entry,
    })),
    nextCursor: more && last ? String(last.version) : null,
  };
}

/** The consistency proof from the tree of `from` entries to the tree of `to` (default: now). */
export async function consistencyProof(reads: LogReads, from: number, to?: number) {
  const size = await sizeAtLeast(reads, to);
  if (from > size) {
    throw validationFailed(`Tree size ${from} is larger than tree size ${size}`);
  }
  const ranges = consistencyRanges(from, size);
  const withFrom: Range[] = from > 0 ? [...ranges, [0, from]] : ranges;
  const { root, hashes } = await withRoot(reads, size, withFrom);
  const fromRoot = from > 0 ? hashes[hashes.length - 1] : EMPTY_ROOT;
  return {
    fromSize: from,
    toSize: size,
    fromRootHash: encodeBase64(fromRoot),
    toRootHash: encodeBase64(root),
    proof: hashes.slice(0, ranges.length).map(encodeBase64),
    checkpoint: await checkpoint(reads, size, root),
  };
}

/**
 * The change of holder the log recorded for an organization slug or a custom domain that
 * `organizationId` (or one of its projects) took after the operator released it, as the
 * trust center's and the domain's JSON show it: the entry (verifiable as any other: its leaf
 * hash, and its inclusion proof at /log/entries/{leafIndex}/inclusion), when the name was
 * released, and a sentence saying so. Null when the name had no earlier holder.
 */
export async function nameChangeOf(
  kv: Deno.Kv,
  organizationId: string,
  kind: "organization" | "domain",
  name: string,
): Promise<NameChange | null> {
  const change = await getNameChange(kv, organizationId, kind, name);
  if (!change) return null;
  const lines = change.entry.split("\n");
  const [holderSlug, holderId] = [lines[4], lines[5]];
  const what = kind === "organization"
    ? `The organization slug "${name}" belonged to a deleted organization`
    : `The custom domain "${name}" belonged to a deleted project`;
  const released = change.releasedAt
    ? `was released by the service's operator on ${deletionDueText(change.releasedAt)}`
    : "was released by the service's operator";
  return {
    kind,
    name,
    leafIndex: change.index,
    leafHash: encodeBase64(change.leafHash),
    entry: change.entry,
    releasedAt: change.releasedAt,
    notice: `${what}; it ${released} and is now held by another publisher since entry ` +
      `${change.index} of the publication log (organization "${holderSlug}", ${holderId}). ` +
      "What was published under this name before that entry was another publisher's.",
  };
}
