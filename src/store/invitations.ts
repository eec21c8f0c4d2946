/**
 * Organization invitations. The token travels only in the accept URL shown
 * once; the store keeps its SHA-256.
 */
import type { Invitation } from "../domain/workspace.ts";
import { invitationKey } from "./keys.ts";

export interface StoredInvitation extends Invitation {
  acceptedAt: string | null;
}

export async function createInvitation(
  kv: Deno.Kv,
  tokenHash: string,
  invitation: Invitation,
): Promise<void> {
  const key = invitationKey(tokenHash);
  const expireIn = Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt);
  const res = await kv.atomic().check({ key, versionstamp: null })
    .set(key, { ...invitation, acceptedAt: null }, { expireIn: Math.max(expireIn, 1) })
    .commit();
  if (!res.ok) throw new Error("Invitation token collision");
}

export async function getInvitation(
  kv: Deno.Kv,
  tokenHash: string,
): Promise<Deno.KvEntryMaybe<StoredInvitation>> {
  return await kv.get<StoredInvitation>(invitationKey(tokenHash));
}

/** Marks an invitation used, in the same atomic as the caller's other writes. */
export function markInvitationAccepted(
  op: Deno.AtomicOperation,
  tokenHash: string,
  entry: Deno.KvEntry<StoredInvitation>,
  now: Date,
): Deno.AtomicOperation {
  return op.check(entry).set(invitationKey(tokenHash), {
    ...entry.value,
    acceptedAt: now.toISOString(),
  });
}
