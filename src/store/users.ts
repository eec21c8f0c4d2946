/**
 * Users, created on first sight of an identity-provider subject.
 */
import { getManyChunked } from "./_chunks.ts";
import type { User } from "../domain/workspace.ts";
import { userByIdpSubKey, userKey } from "./keys.ts";

export async function getUser(kv: Deno.Kv, id: string): Promise<User | null> {
  return (await kv.get<User>(userKey(id))).value;
}

/** The users of `ids`, in order (null for one that is gone), read ten keys at a time. */
export async function getUsers(kv: Deno.Kv, ids: readonly string[]): Promise<(User | null)[]> {
  const entries = await getManyChunked<User>(kv, ids.map((id) => userKey(id)));
  return entries.map((entry) => entry.value);
}

export async function getUserByIdpSub(kv: Deno.Kv, sub: string): Promise<User | null> {
  const index = await kv.get<string>(userByIdpSubKey(sub));
  return index.value ? await getUser(kv, index.value) : null;
}

/**
 * Returns the user for `idpSub`, creating it on first sight and refreshing
 * email and name when the identity provider reports new values. Safe under
 * concurrency: the subject index is created with a `versionstamp: null` check.
 * `beforeCreate` runs before a user would be created (it may refuse by throwing).
 */
export async function upsertUser(
  kv: Deno.Kv,
  profile: { idpSub: string; email: string; name: string },
  now: Date,
  options: { beforeCreate?: () => Promise<void> } = {},
): Promise<User> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await getUserByIdpSub(kv, profile.idpSub);
    if (existing) {
      if (existing.email === profile.email && existing.name === profile.name) return existing;
      const updated = { ...existing, ...profile, updatedAt: now.toISOString() };
      const current = await kv.get<User>(userKey(existing.id));
      const res = await kv.atomic().check(current).set(userKey(existing.id), updated).commit();
      if (res.ok) return updated;
      continue;
    }
    await options.beforeCreate?.();
    const at = now.toISOString();
    const user: User = { id: crypto.randomUUID(), ...profile, createdAt: at, updatedAt: at };
    const res = await kv.atomic()
      .check({ key: userByIdpSubKey(user.idpSub), versionstamp: null })
      .set(userKey(user.id), user)
      .set(userByIdpSubKey(user.idpSub), user.id)
      .commit();
    if (res.ok) return user;
  }
  throw new Error("Could not record the user after repeated concurrent updates");
}
