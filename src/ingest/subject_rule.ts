/**
 * The provenance subject rule of a project as verification applies it: the operator's
 * setting and the digests of the artifacts the project reports, read from the latest
 * evidence of each source the setting names. Shared by ingest (for the record's reading)
 * and recompute.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { SubjectRule } from "../domain/sigstore.ts";
import { reportedDigests } from "../evaluate/artifacts.ts";
import { getLatestEvidence } from "../store/evidence.ts";
import { getProvenanceSubjects } from "../store/sigstore_identities.ts";

/**
 * `projectId`'s subject rule. Reads nothing beyond the setting unless it requires a match
 * against reported digests; then one index entry and one payload per source.
 */
export async function loadSubjectRule(
  kv: Deno.Kv,
  blobs: BlobStore,
  projectId: string,
): Promise<SubjectRule> {
  const setting = await getProvenanceSubjects(kv, projectId);
  const reported: SubjectRule["reported"] = {};
  if (!setting.requireMatch) return { setting, reported };
  await Promise.all(setting.digestsFrom.map(async (source) => {
    const record = await getLatestEvidence(kv, projectId, source);
    if (!record) {
      reported[source] = null;
      return;
    }
    const bytes = await blobs.get(record.payloadS3Key);
    let payload: unknown = undefined;
    try {
      payload = bytes ? JSON.parse(new TextDecoder().decode(bytes)) : undefined;
    } catch {
      payload = undefined;
    }
    reported[source] = reportedDigests(source, payload);
  }));
  return { setting, reported };
}
