/**
 * The publication log's contract: the canonical bytes of a log entry, and
 * the JSON shapes of its public API (GET /log/…).
 *
 * A log entry is UTF-8 text, five lines each ending in LF (0x0A):
 *
 * ```
 * trust-profile-publication/v1
 * <project slug at publication>
 * <version, decimal>
 * sha256:<hex digest of the version's trust.json bytes>
 * <publishedAt, as in trust.json>
 * ```
 *
 * No field can hold a newline (slugs are [a-z0-9-], the digest is hex, the
 * timestamp ISO 8601), so the form is unambiguous, and a reader rebuilds it
 * from a trust.json alone: every field but the digest is inside it.
 */
import { z } from "@hono/zod-openapi";

/** The first line of every log entry: names the entry format. */
export const LOG_ENTRY_HEADER = "trust-profile-publication/v1";

/** The checkpoint origin of a log served at `baseUrl`: the URL without its scheme, then `/log`. */
export function logOriginOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.host}${url.pathname.replace(/(?<!\/)\/+$/, "")}/log`;
}

/** What a log entry commits to. */
export interface LogEntryFields {
  slug: string;
  version: number;
  digest: string;
  publishedAt: string;
}

/** The canonical text of a log entry (see the module comment). */
export function encodeLogEntry(fields: LogEntryFields): string {
  const { slug, version, digest, publishedAt } = fields;
  for (const value of [slug, digest, publishedAt]) {
    if (/[\n\r]/.test(value)) throw new Error("A log entry field cannot hold a line break");
  }
  if (!Number.isSafeInteger(version) || version < 1) throw new Error("Versions start at 1");
  return `${LOG_ENTRY_HEADER}\n${slug}\n${version}\n${digest}\n${publishedAt}\n`;
}

/**
 * The first line of the entry that records a change of publisher under a project slug: a slug
 * a deleted project left, released by the operator (`deno task names release`) and taken by a
 * new project. Seven LF-terminated lines:
 *
 * ```
 * trust-profile-publisher-change/v1
 * <project slug>
 * <the log's size when the previous holder left the slug: its entries are below it, or "unknown">
 * <the new project's id>
 * <the new project's organization slug>
 * <the new project's organization id>
 * <when the slug was taken, ISO 8601>
 * ```
 *
 * It is appended when the new project is created, so it precedes every version of the new
 * holder: a buyer's verifier kit reports "a different publisher since entry N" across it.
 */
export const PUBLISHER_CHANGE_HEADER = "trust-profile-publisher-change/v1";

/**
 * The same record for the other names a deletion reserves, released by the operator and taken
 * by another tenant: an organization slug (taken by a new organization) and a verified custom
 * domain (taken by another project). The same seven lines under their own first line, the
 * second being the name; an organization slug's fourth line (the new project's id) is "-",
 * since an organization is no project. Appended in the commit that takes the name.
 */
export const NAME_CHANGE_HEADERS = {
  project: PUBLISHER_CHANGE_HEADER,
  organization: "trust-profile-organization-publisher-change/v1",
  domain: "trust-profile-domain-publisher-change/v1",
} as const;

/** What kind of name a change-of-publisher entry records the new holder of. */
export type NameChangeKind = keyof typeof NAME_CHANGE_HEADERS;

/** What a change-of-publisher entry commits to. */
export interface PublisherChangeFields {
  /** The kind of name (default "project": a project slug). */
  kind?: NameChangeKind;
  /** The name taken: a project's or organization's slug, or a custom domain. */
  slug: string;
  previousLogSize: number | null;
  /** The new project's id; null for an organization slug (written "-"). */
  projectId: string | null;
  organizationSlug: string;
  organizationId: string;
  takenAt: string;
}

/** The canonical text of a change-of-publisher entry (see PUBLISHER_CHANGE_HEADER). */
export function encodePublisherChange(fields: PublisherChangeFields): string {
  const { slug, previousLogSize, organizationSlug, organizationId, takenAt } = fields;
  const kind = fields.kind ?? "project";
  if ((fields.projectId === null) !== (kind === "organization")) {
    throw new Error("Only an organization slug's change names no project");
  }
  const projectId = fields.projectId ?? "-";
  for (const value of [slug, projectId, organizationSlug, organizationId, takenAt]) {
    if (/[\n\r]/.test(value)) throw new Error("A log entry field cannot hold a line break");
  }
  const previous = previousLogSize === null ? "unknown" : String(previousLogSize);
  return `${NAME_CHANGE_HEADERS[kind]}\n${slug}\n${previous}\n${projectId}\n` +
    `${organizationSlug}\n${organizationId}\n${takenAt}\n`;
}

const Base64Hash = z.string().max(44).openapi({
  description: "A SHA-256 hash, base64 (standard alphabet, padded)",
  example: "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
});

export const LogTreeSize = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

export const LogInfo = z.object({
  origin: z.string().openapi({ description: "The checkpoint origin line: names this log" }),
  verifierKey: z.string().openapi({
    description:
      "C2SP signed-note verifier key (name+keyhash+base64(0x01 || Ed25519 public key)) that signs checkpoints",
  }),
  treeSize: LogTreeSize,
  hashing: z.literal("RFC 6962 SHA-256"),
  entryFormat: z.string(),
  inclusionProofRelation: z.string().openapi({
    description: "The Link relation with which trust.json responses point at their inclusion proof",
  }),
  checkpoint: z.string().openapi({ description: "URL of the latest signed checkpoint" }),
}).openapi("LogInfo");

export const LogEntryResponse = z.object({
  index: LogTreeSize,
  leafHash: Base64Hash,
  entry: z.string().nullable().openapi({
    description:
      "The entry's canonical text; null while its project is private, and for ever once it was deleted (the leaf hash still commits to it)",
  }),
}).openapi("LogEntry");

export const LogInclusionProof = z.object({
  leafIndex: LogTreeSize,
  treeSize: LogTreeSize,
  leafHash: Base64Hash,
  entry: z.string().nullable(),
  rootHash: Base64Hash,
  proof: z.array(Base64Hash).openapi({
    description: "RFC 9162 §2.1.3 inclusion path, closest sibling first",
  }),
  checkpoint: z.string().openapi({ description: "The signed checkpoint of treeSize" }),
}).openapi("LogInclusionProof");

export const LogConsistencyProof = z.object({
  fromSize: LogTreeSize,
  toSize: LogTreeSize,
  fromRootHash: Base64Hash,
  toRootHash: Base64Hash,
  proof: z.array(Base64Hash).openapi({ description: "RFC 9162 §2.1.4 consistency proof" }),
  checkpoint: z.string().openapi({ description: "The signed checkpoint of toSize" }),
}).openapi("LogConsistencyProof");

export const LogProjectEntry = z.object({
  version: z.int().min(1),
  leafIndex: LogTreeSize,
  leafHash: Base64Hash,
  entry: z.string().openapi({ description: "The entry's canonical text" }),
}).openapi("LogProjectEntry");

export const LogPublisherChange = z.object({
  leafIndex: LogTreeSize,
  leafHash: Base64Hash,
  entry: z.string().openapi({
    description: `The entry's canonical text, starting "${PUBLISHER_CHANGE_HEADER}"`,
  }),
}).openapi("LogPublisherChange");

/**
 * The change of holder recorded for an organization slug or a custom domain (the entry, as
 * LogPublisherChange, with when the operator released the name and a sentence saying so).
 */
export const NameChange = z.object({
  leafIndex: LogTreeSize,
  leafHash: Base64Hash,
  entry: z.string().openapi({ description: "The entry's canonical text" }),
  kind: z.enum(["organization", "domain"]),
  name: z.string(),
  releasedAt: z.string().nullable().openapi({
    description: "When the service's operator released the name (null if not recorded)",
  }),
  notice: z.string().openapi({
    description:
      "What a buyer should know: the name was released and is held by another publisher since the entry",
  }),
}).openapi("NameChange", {
  description:
    `The log entry that recorded this name passing to another publisher after its earlier holder was deleted and the operator released it; its text starts "${NAME_CHANGE_HEADERS.organization}" or "${NAME_CHANGE_HEADERS.domain}"`,
});
export type NameChange = z.infer<typeof NameChange>;

export const LogProjectEntries = z.object({
  projectSlug: z.string(),
  publisherChange: LogPublisherChange.nullable().openapi({
    description:
      "The entry that recorded this project taking a slug a deleted project had left (released by the operator): a different publisher since that entry. Null when the slug had no earlier holder, or the entry is beyond treeSize",
  }),
  treeSize: LogTreeSize.openapi({
    description: "Only entries with a leaf index below it are listed",
  }),
  entries: z.array(LogProjectEntry).openapi({
    description: "The project's entries in version (and log) order, oldest first",
  }),
  nextCursor: z.string().nullable().openapi({
    description: "Pass as `cursor` to read the next entries; null on the last page",
  }),
}).openapi("LogProjectEntries");

/** Query of /log/publications/{projectSlug}: a page of a project's entries, oldest first. */
export const LogProjectEntriesQuery = z.object({
  treeSize: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().openapi({
    param: { name: "treeSize", in: "query" },
    description: "List the entries in the tree of this size (default: the log's current size)",
    example: 12,
  }),
  cursor: z.string().max(15).regex(/^[1-9][0-9]{0,14}$/).optional().openapi({
    description: "nextCursor of the previous page: lists the versions after it",
    example: "100",
  }),
  limit: z.coerce.number().int().min(1).max(1000).optional().openapi({
    description: "Entries per page, 1 to 1000 (default 100)",
    example: 100,
  }),
});
