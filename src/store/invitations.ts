/**
 * Organization invitations. The token travels only in the accept URL shown
 * once; the store keeps its SHA-256.
 */
import type { Invitation, OrganizationMember, StoredInvitation } from "../domain/workspace.ts";
import { invitationKey } from "./keys.ts";
import { addMembership } from "./organizations.ts";

/** Stores a new invitation under its token's hash; it expires with the invitation. */
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

/** The invitation stored under `tokenHash` with its version (for acceptance), or null. */
export async function getInvitation(
  kv: Deno.Kv,
  tokenHash: string,
): Promise<Deno.KvEntry<StoredInvitation> | null> {
  const entry = await kv.get<StoredInvitation>(invitationKey(tokenHash));
  return entry.versionstamp === null ? null : entry;
}

/**
 * Accepts an invitation: marks it used and adds `membership`, atomically.
 * Returns false when the invitation changed since `entry` was read (accepted
 * concurrently) or the membership already exists.
 */
export async function acceptInvitation(
  kv: Deno.Kv,
  entry: Deno.KvEntry<StoredInvitation>,
  options: { membership: OrganizationMember; now: Date },
): Promise<boolean> {
  const op = kv.atomic().check(entry).set(entry.key, {
    ...entry.value,
    acceptedAt: options.now.toISOString(),
  });
  return (await addMembership(op, options.membership).commit()).ok;
}
