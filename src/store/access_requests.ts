/**
 * Access requests for restricted documents, the links granted on approval and the log of
 * downloads through them. A request is stored pending; approval then commits the decided
 * request, its link and the link's token index in one atomic operation, so a request is
 * approved at most once and never without its link. A link's token is kept only as its
 * SHA-256.
 */
import {
  type AccessLink,
  type AccessRequest,
  type DownloadLogEntry,
  MAX_LISTED,
} from "../domain/access_requests.ts";
import { conflict, notFound } from "../domain/errors.ts";
import { stageOwnerNotices } from "./owner_notices.ts";
import {
  accessLinkByTokenKey,
  accessLinkKey,
  accessLinksPrefix,
  accessRequestAttemptsKey,
  accessRequestKey,
  accessRequestsPrefix,
  documentDownloadKey,
  documentDownloadsPrefix,
} from "./keys.ts";

interface AttemptCounter {
  count: number;
  windowStart: number;
}

async function listNewest<T>(kv: Deno.Kv, prefix: Deno.KvKey): Promise<T[]> {
  const list: T[] = [];
  for await (const entry of kv.list<T>({ prefix }, { reverse: true, limit: MAX_LISTED })) {
    list.push(entry.value);
  }
  return list;
}

/**
 * Counts one access request against the client address and the email, each allowed `max`
 * per window. Resolves with 0 when counted, or the milliseconds until the fuller counter's
 * window ends (then nothing is counted).
 */
export async function countAccessRequestAttempt(
  kv: Deno.Kv,
  subjects: { ip: string; email: string },
  options: { now: Date; windowMs: number; max: { ip: number; email: number } },
): Promise<number> {
  const at = options.now.getTime();
  const keys = [
    accessRequestAttemptsKey("ip", subjects.ip),
    accessRequestAttemptsKey("email", subjects.email),
  ];
  const limits = [options.max.ip, options.max.email];
  for (let attempt = 0; attempt < 10; attempt++) {
    const entries = await kv.getMany<AttemptCounter[]>(keys);
    const op = kv.atomic();
    let wait = 0;
    entries.forEach((entry, i) => {
      op.check(entry);
      const live = entry.value && at - entry.value.windowStart < options.windowMs
        ? entry.value
        : null;
      if (live && live.count >= limits[i]) {
        wait = Math.max(wait, live.windowStart + options.windowMs - at);
      }
      const next = live ? { ...live, count: live.count + 1 } : { count: 1, windowStart: at };
      op.set(entry.key, next, { expireIn: options.windowMs });
    });
    if (wait > 0) return wait;
    if ((await op.commit()).ok) return 0;
  }
  throw conflict("Too many requests at once; please retry");
}

/**
 * Stores a new (pending) access request, with an email to each of `notify` (the owners'
 * user ids) staged in the same commit.
 */
export async function addAccessRequest(
  kv: Deno.Kv,
  organizationId: string,
  options: { request: AccessRequest; notify?: readonly string[]; now?: Date },
): Promise<void> {
  const key = accessRequestKey(organizationId, options.request.id);
  const op = kv.atomic().check({ key, versionstamp: null }).set(key, options.request);
  if (options.notify && options.notify.length > 0) {
    stageOwnerNotices(op, {
      organizationId,
      requestId: options.request.id,
      userIds: options.notify,
      now: options.now ?? new Date(options.request.createdAt),
    });
  }
  if (!(await op.commit()).ok) throw conflict("An access request with that id already exists");
}

function stageLink(
  op: Deno.AtomicOperation,
  organizationId: string,
  link: { value: AccessLink; tokenHash: string },
) {
  const key = accessLinkKey(organizationId, link.value.id);
  const byToken = accessLinkByTokenKey(link.tokenHash);
  return op.check({ key, versionstamp: null }, { key: byToken, versionstamp: null })
    .set(key, link.value)
    .set(byToken, { organizationId, linkId: link.value.id });
}

/** A stored request with the fields added since it was stored. */
function current(request: AccessRequest): AccessRequest {
  return { ...request, autoApproval: request.autoApproval ?? null };
}

/** The organization's access requests, newest first. */
export async function listAccessRequests(
  kv: Deno.Kv,
  organizationId: string,
): Promise<AccessRequest[]> {
  return (await listNewest<AccessRequest>(kv, accessRequestsPrefix(organizationId))).map(current);
}

/** One access request, or null. */
export async function getAccessRequest(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<AccessRequest | null> {
  const entry = await kv.get<AccessRequest>(accessRequestKey(organizationId, id));
  return entry.value && current(entry.value);
}

/**
 * Changes a pending request: decides it (`approved` with its new link, or `denied`), or
 * notes why its auto-approval failed. A request that is no longer pending is a 409; one
 * that does not exist a 404.
 */
export async function decideAccessRequest(
  kv: Deno.Kv,
  organizationId: string,
  options: {
    id: string;
    decide: (request: AccessRequest) => {
      next: AccessRequest;
      link?: { value: AccessLink; tokenHash: string };
    };
  },
): Promise<AccessRequest> {
  const key = accessRequestKey(organizationId, options.id);
  const entry = await kv.get<AccessRequest>(key);
  if (!entry.value) throw notFound("No access request with that id in this organization");
  if (entry.value.status !== "pending") {
    throw conflict(`The access request was already ${entry.value.status}`);
  }
  const { next, link } = options.decide(current(entry.value));
  const op = kv.atomic().check(entry).set(key, next);
  if (link) stageLink(op, organizationId, link);
  if (!(await op.commit()).ok) throw conflict("The access request was decided meanwhile");
  return next;
}

/** The link whose token hashes to `tokenHash`, with its organization, or null. */
export async function getAccessLinkByToken(
  kv: Deno.Kv,
  tokenHash: string,
): Promise<{ organizationId: string; link: AccessLink } | null> {
  const index = await kv.get<{ organizationId: string; linkId: string }>(
    accessLinkByTokenKey(tokenHash),
  );
  if (!index.value) return null;
  const { organizationId, linkId } = index.value;
  const link = await kv.get<AccessLink>(accessLinkKey(organizationId, linkId));
  return link.value ? { organizationId, link: link.value } : null;
}

/** The organization's access links, newest first. */
export function listAccessLinks(kv: Deno.Kv, organizationId: string): Promise<AccessLink[]> {
  return listNewest(kv, accessLinksPrefix(organizationId));
}

/** Revokes a link (idempotent: a revoked link keeps its first revocation time). */
export async function revokeAccessLink(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; now: Date },
): Promise<AccessLink> {
  const key = accessLinkKey(organizationId, options.id);
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await kv.get<AccessLink>(key);
    if (!entry.value) throw notFound("No access link with that id in this organization");
    if (entry.value.revokedAt) return entry.value;
    const next = { ...entry.value, revokedAt: options.now.toISOString() };
    if ((await kv.atomic().check(entry).set(key, next).commit()).ok) return next;
  }
  throw conflict("The link kept changing while it was being revoked; please retry");
}

/** Records one download through a link. */
export async function logDownload(
  kv: Deno.Kv,
  organizationId: string,
  entry: DownloadLogEntry,
): Promise<void> {
  await kv.set(documentDownloadKey(organizationId, entry.id), entry);
}

/** The organization's download log, newest first. */
export function listDownloads(kv: Deno.Kv, organizationId: string): Promise<DownloadLogEntry[]> {
  return listNewest(kv, documentDownloadsPrefix(organizationId));
}
