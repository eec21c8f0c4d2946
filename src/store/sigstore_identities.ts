/**
 * The Sigstore signer identities a project expects on its signed evidence, kept beside
 * the project (not in it) so projects stored before they existed need no migration.
 */
import {
  NO_SUBJECT_RULE,
  type ProvenanceSubjects,
  type SigstoreIdentity,
} from "../domain/sigstore.ts";
import { provenanceSubjectsKey, sigstoreIdentitiesKey } from "./keys.ts";

/** The identities `projectId` expects; none until an operator sets them. */
export async function getSigstoreIdentities(
  kv: Deno.Kv,
  projectId: string,
): Promise<SigstoreIdentity[]> {
  return (await kv.get<SigstoreIdentity[]>(sigstoreIdentitiesKey(projectId))).value ?? [];
}

/** Replaces the identities `projectId` expects (an empty list removes them all). */
export async function setSigstoreIdentities(
  kv: Deno.Kv,
  projectId: string,
  identities: readonly SigstoreIdentity[],
): Promise<SigstoreIdentity[]> {
  const key = sigstoreIdentitiesKey(projectId);
  if (identities.length === 0) await kv.delete(key);
  else await kv.set(key, identities);
  return [...identities];
}

/** How `projectId`'s build provenance subjects must match its artifacts; default: not at all. */
export async function getProvenanceSubjects(
  kv: Deno.Kv,
  projectId: string,
): Promise<ProvenanceSubjects> {
  return (await kv.get<ProvenanceSubjects>(provenanceSubjectsKey(projectId))).value ??
    NO_SUBJECT_RULE;
}

/** Replaces `projectId`'s provenance subject setting (the default one removes it). */
export async function setProvenanceSubjects(
  kv: Deno.Kv,
  projectId: string,
  setting: ProvenanceSubjects,
): Promise<ProvenanceSubjects> {
  const key = provenanceSubjectsKey(projectId);
  const stored: ProvenanceSubjects = {
    requireMatch: setting.requireMatch,
    digestsFrom: [...setting.digestsFrom],
    artifactNames: [...setting.artifactNames],
  };
  const isDefault = !stored.requireMatch && stored.digestsFrom.length === 0 &&
    stored.artifactNames.length === 0;
  if (isDefault) await kv.delete(key);
  else await kv.set(key, stored);
  return stored;
}
