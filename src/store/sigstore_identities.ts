/**
 * The Sigstore signer identities a project expects on its signed evidence, kept beside
 * the project (not in it) so projects stored before they existed need no migration.
 */
import type { SigstoreIdentity } from "../domain/sigstore.ts";
import { sigstoreIdentitiesKey } from "./keys.ts";

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
