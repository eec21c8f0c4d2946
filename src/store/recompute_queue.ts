/**
 * The recompute queue: one pending marker per project (debounce) and the KV
 * queue messages that wake a recompute at a project's next check.
 */
import { pendingRecomputeKey } from "./keys.ts";

/** A queued recompute of one project, due at `dueAt` (epoch ms). */
export interface RecomputeMessage {
  kind: "recompute";
  projectId: string;
  dueAt: number;
}

/** Whether a queue message is a recompute message (the queue may hold older shapes). */
export function isRecomputeMessage(value: unknown): value is RecomputeMessage {
  const m = value as RecomputeMessage;
  return typeof m === "object" && m !== null && m.kind === "recompute" &&
    typeof m.projectId === "string" && typeof m.dueAt === "number";
}

/** The project's pending marker: when its queued recompute is due, or null. */
export async function getPendingRecompute(
  kv: Deno.Kv,
  projectId: string,
): Promise<Deno.KvEntryMaybe<{ dueAt: number }>> {
  return await kv.get<{ dueAt: number }>(pendingRecomputeKey(projectId));
}

/**
 * Enqueues a recompute due after `delayMs` and records it as the project's
 * pending one, if the marker is still `pending` (the entry read before).
 * Returns false when another writer changed the marker first.
 */
export async function enqueueRecompute(
  kv: Deno.Kv,
  pending: Deno.KvEntryMaybe<{ dueAt: number }>,
  options: { message: RecomputeMessage; delayMs: number },
): Promise<boolean> {
  const { message, delayMs } = options;
  const res = await kv.atomic().check(pending)
    .set(pendingRecomputeKey(message.projectId), { dueAt: message.dueAt })
    .enqueue(message, { delay: delayMs })
    .commit();
  return res.ok;
}

/** Clears the pending marker when it still names the recompute of `message`. */
export async function clearPendingRecompute(
  kv: Deno.Kv,
  message: RecomputeMessage,
): Promise<void> {
  const pending = await getPendingRecompute(kv, message.projectId);
  if (pending.value?.dueAt === message.dueAt) {
    await kv.atomic().check(pending).delete(pending.key).commit();
  }
}
