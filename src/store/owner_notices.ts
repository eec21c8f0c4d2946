/**
 * Emails to an organization's owners about access requests. Each is a record written in the
 * same atomic operation as the change that calls for it, with the "owner-mail" job that
 * sends it (an outbox), and a check that it did not exist, so a request tells each owner
 * once. The job records each attempt here, and schedules the next one in the same commit.
 */
import type { OwnerNotice } from "../domain/access_requests.ts";
import type { JobMessage } from "../domain/jobs.ts";
import { stageJob } from "./jobs.ts";
import { ownerNoticeKey } from "./keys.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Notice records are kept this long (what an operator can look back on). */
const NOTICE_TTL_MS = 30 * DAY_MS;

/** The job that sends one owner notice. */
export interface OwnerMailMessage extends JobMessage {
  kind: "owner-mail";
  organizationId: string;
  noticeId: string;
}

/** Adds to `op` one notice per owner about `requestId`, each with its job. */
export function stageOwnerNotices(
  op: Deno.AtomicOperation,
  options: { organizationId: string; requestId: string; userIds: readonly string[]; now: Date },
): void {
  for (const userId of new Set(options.userIds)) {
    const notice: OwnerNotice = {
      id: `${options.requestId}.${userId}`,
      organizationId: options.organizationId,
      requestId: options.requestId,
      userId,
      status: "queued",
      attempts: 0,
      createdAt: options.now.toISOString(),
      sentAt: null,
      reason: null,
      sendingSince: null,
    };
    const key = ownerNoticeKey(notice.id);
    op.check({ key, versionstamp: null }).set(key, notice, { expireIn: NOTICE_TTL_MS });
    const message: OwnerMailMessage = {
      kind: "owner-mail",
      organizationId: options.organizationId,
      noticeId: notice.id,
    };
    stageJob(op, message, { now: options.now });
  }
}

/** One notice as stored, with its versionstamp. */
export function getOwnerNotice(kv: Deno.Kv, id: string): Promise<Deno.KvEntryMaybe<OwnerNotice>> {
  return kv.get<OwnerNotice>(ownerNoticeKey(id));
}

/**
 * Records an attempt's outcome (or the claim to make one); with `retryInMs`, schedules the
 * next attempt in the same commit. The entry as stored, or null when the notice changed
 * meanwhile (another attempt got there first).
 */
export async function recordOwnerNotice(
  kv: Deno.Kv,
  entry: Deno.KvEntry<OwnerNotice>,
  options: { next: OwnerNotice; now: Date; retryInMs?: number },
): Promise<Deno.KvEntry<OwnerNotice> | null> {
  const op = kv.atomic().check(entry).set(entry.key, options.next, { expireIn: NOTICE_TTL_MS });
  if (options.retryInMs !== undefined) {
    const message: OwnerMailMessage = {
      kind: "owner-mail",
      organizationId: options.next.organizationId,
      noticeId: options.next.id,
    };
    stageJob(op, message, { now: options.now, dueAt: options.now.getTime() + options.retryInMs });
  }
  const result = await op.commit();
  return result.ok
    ? { key: entry.key, value: options.next, versionstamp: result.versionstamp }
    : null;
}
