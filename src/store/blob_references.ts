/**
 * Every kind of record that holds a blob key, as the blob collector's mark phase reads them
 * (src/lifecycle/blob_gc.ts): each source names a KV prefix and the blob keys an entry under
 * it references. A blob that no entry of any source names (and that is older than the grace)
 * is removed, so a new kind of record that keeps a blob must be listed here;
 * tests/lifecycle/blob_gc_test.ts fails for a `blobs.put` in a module it does not know.
 */
import type { EvidenceRecordSummary } from "../domain/collector.ts";
import type { Publication } from "../domain/publication.ts";
import type { TrustDocument } from "../domain/documents.ts";
import type { DocumentStamp } from "./documents.ts";
import type { StoredPage } from "./edge_pages.ts";

/** One kind of record that references blobs. */
export interface BlobReferenceSource {
  name: string;
  prefix: Deno.KvKey;
  /** The blob keys an entry under `prefix` references (possibly none). */
  keysOf(entry: Deno.KvEntry<unknown>): string[];
}

/**
 * The blob keys of a publication's artifacts, their stored encodings, and the parts of those
 * stored in parts (the feed's head, entries and tail, most of them shared with other versions).
 */
function publicationKeys(publication: Publication): string[] {
  const keys: string[] = [];
  for (const artifact of Object.values(publication.artifacts ?? {})) {
    if (!artifact) continue;
    keys.push(artifact.key, ...Object.values(artifact.encodings ?? {}) as string[]);
    keys.push(...artifact.parts ?? []);
  }
  return keys;
}

/** Every source of blob references the service has. */
export const BLOB_REFERENCE_SOURCES: readonly BlobReferenceSource[] = [
  {
    name: "evidence payloads",
    prefix: ["evidence"],
    keysOf: (entry) => [(entry.value as EvidenceRecordSummary).payloadS3Key],
  },
  {
    name: "publication artifacts",
    prefix: ["publications"],
    keysOf: (entry) => publicationKeys(entry.value as Publication),
  },
  {
    name: "documents",
    prefix: ["documents"],
    keysOf: (entry) => [`document/${(entry.value as TrustDocument).sha256}`],
  },
  {
    name: "stamped copies of documents",
    prefix: ["document_stamps"],
    keysOf: (entry) => {
      const stamped = (entry.value as DocumentStamp).stampedSha256;
      return stamped ? [`document/${stamped}`] : [];
    },
  },
  {
    name: "questionnaire files",
    prefix: ["questionnaires"],
    keysOf: (entry) => [`document/${(entry.value as { sha256: string }).sha256}`],
  },
  {
    name: "logos",
    prefix: ["logos"],
    keysOf: (entry) => [`logo/${entry.key[1] as string}`],
  },
  {
    name: "organization profiles' logos",
    prefix: ["organization_profiles"],
    keysOf: (entry) => {
      const logo = (entry.value as { logo?: { sha256?: string } | null }).logo;
      return logo?.sha256 ? [`logo/${logo.sha256}`] : [];
    },
  },
  {
    name: "stored public pages",
    prefix: ["edge_page"],
    keysOf: (entry) => {
      const blob = (entry.value as StoredPage).blob;
      return blob ? [blob] : [];
    },
  },
];
