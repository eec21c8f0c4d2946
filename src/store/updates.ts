/**
 * A project's updates. Each is stored by id, with an index by posting time (newest-first
 * pages) and, while it is an unresolved incident or advisory, an entry in the open index the
 * trust page reads first (its banner). A write commits the record and its index entries in one atomic
 * operation; posting one also stages its `update.posted` trust event there (outbox).
 */
import { conflict, notFound, validationFailed } from "../domain/errors.ts";
import type { TrustEvent } from "../domain/events.ts";
import {
  type CreateUpdateRequest,
  DEFAULT_UPDATES_LIMIT,
  type EditUpdateRequest,
  MAX_UPDATES_LIMIT,
  MAX_UPDATES_PER_PROJECT,
  type TrustUpdate,
} from "../domain/updates.ts";
import { getManyChunked } from "./_chunks.ts";
import {
  openIncidentKey,
  openIncidentsPrefix,
  updateByPostedKey,
  updateKey,
  updatesByPostedPrefix,
  updatesPrefix,
} from "./keys.ts";
import { stageEvents } from "./event_jobs.ts";

const MAX_ATTEMPTS = 10;

/** Who made a change. */
export interface UpdateActor {
  userId: string;
  email: string | null;
}

/** One page of updates, newest first, and the cursor of the next (older) page. */
export interface UpdatePage {
  updates: TrustUpdate[];
  nextCursor: string | null;
}

/**
 * Whether an update is open: an incident or advisory not yet resolved (a change is never
 * open). Open updates are indexed; an advisory posted before advisories were indexed joins
 * the index at its next edit.
 */
const isOpen = (u: TrustUpdate) => u.kind !== "change" && u.resolvedAt === null;

function encodeCursor(update: TrustUpdate): string {
  return btoa(`${update.postedAt}|${update.id}`).replace(/(?<!=)=+$/, "");
}

/** The position a cursor names; anything this service did not hand out is validation_failed. */
function decodeCursor(cursor: string): [string, string] {
  let text: string;
  try {
    text = atob(cursor);
  } catch {
    throw validationFailed("cursor is not one this service handed out");
  }
  const match = text.match(/^(\d{4}-\d\d-\d\dT[\d:.]+Z)\|([0-9a-f-]{36})$/);
  if (!match) throw validationFailed("cursor is not one this service handed out");
  return [match[1], match[2]];
}

async function byIds(kv: Deno.Kv, projectId: string, ids: string[]): Promise<TrustUpdate[]> {
  const entries = await getManyChunked<TrustUpdate>(kv, ids.map((id) => updateKey(projectId, id)));
  return entries.map((e) => e.value).filter((u): u is TrustUpdate => u !== null);
}

/** A page of the project's updates, newest first. */
export async function listUpdates(
  kv: Deno.Kv,
  projectId: string,
  options: { limit?: number; cursor?: string } = {},
): Promise<UpdatePage> {
  const limit = Math.min(options.limit ?? DEFAULT_UPDATES_LIMIT, MAX_UPDATES_LIMIT);
  const prefix = updatesByPostedPrefix(projectId);
  const selector = options.cursor
    ? { prefix, end: updateByPostedKey(projectId, ...decodeCursor(options.cursor)) }
    : { prefix };
  const ids: string[] = [];
  for await (const entry of kv.list<string>(selector, { reverse: true, limit: limit + 1 })) {
    ids.push(entry.value);
  }
  const updates = await byIds(kv, projectId, ids.slice(0, limit));
  const more = ids.length > limit && updates.length > 0;
  return { updates, nextCursor: more ? encodeCursor(updates[updates.length - 1]) : null };
}

/** The project's unresolved incidents and advisories, newest first. */
export async function listOpenUpdates(kv: Deno.Kv, projectId: string): Promise<TrustUpdate[]> {
  const ids: string[] = [];
  const iter = kv.list<string>({ prefix: openIncidentsPrefix(projectId) }, {
    reverse: true,
    limit: MAX_UPDATES_PER_PROJECT,
  });
  for await (const entry of iter) ids.push(entry.value);
  return (await byIds(kv, projectId, ids)).filter(isOpen);
}

/** The project's unresolved incidents, newest first. */
export async function listOpenIncidents(kv: Deno.Kv, projectId: string): Promise<TrustUpdate[]> {
  return (await listOpenUpdates(kv, projectId)).filter((u) => u.kind === "incident");
}

export async function getUpdate(
  kv: Deno.Kv,
  projectId: string,
  id: string,
): Promise<TrustUpdate | null> {
  return (await kv.get<TrustUpdate>(updateKey(projectId, id))).value;
}

async function countOf(kv: Deno.Kv, projectId: string): Promise<number> {
  let count = 0;
  const iter = kv.list({ prefix: updatesPrefix(projectId) }, { limit: MAX_UPDATES_PER_PROJECT });
  for await (const _ of iter) count++;
  return count;
}

/** Posts an update, staging `event(update)` in the same commit. */
export async function postUpdate(
  kv: Deno.Kv,
  projectId: string,
  options: {
    request: CreateUpdateRequest;
    actor: UpdateActor;
    now: Date;
    event: (update: TrustUpdate) => TrustEvent;
  },
): Promise<TrustUpdate> {
  if ((await countOf(kv, projectId)) >= MAX_UPDATES_PER_PROJECT) {
    throw conflict(
      `A project keeps at most ${MAX_UPDATES_PER_PROJECT} updates; delete old ones first`,
    );
  }
  const at = options.now.toISOString();
  const { resolved, ...fields } = options.request;
  const update: TrustUpdate = {
    id: crypto.randomUUID(),
    projectId,
    ...fields,
    postedAt: at,
    postedBy: options.actor,
    updatedAt: at,
    updatedBy: options.actor,
    resolvedAt: resolved ? at : null,
  };
  const key = updateKey(projectId, update.id);
  const op = kv.atomic()
    .check({ key, versionstamp: null })
    .set(key, update)
    .set(updateByPostedKey(projectId, at, update.id), update.id);
  if (isOpen(update)) op.set(openIncidentKey(projectId, at, update.id), update.id);
  stageEvents(op, [options.event(update)]);
  if (!(await op.commit()).ok) throw conflict("The update could not be saved; please retry");
  return update;
}

/** The update after `change`; the same object when nothing changes. */
function applyEdit(
  current: TrustUpdate,
  change: EditUpdateRequest,
  by: { actor: UpdateActor; at: string },
): TrustUpdate {
  const { resolved, ...fields } = change;
  const resolvedAt = resolved === undefined
    ? current.resolvedAt
    : resolved
    ? current.resolvedAt ?? by.at
    : null;
  const merged = { ...current, ...fields, resolvedAt };
  const same = (Object.keys(fields) as (keyof typeof fields)[])
    .every((k) => fields[k] === current[k]) && resolvedAt === current.resolvedAt;
  if (same) return current;
  return { ...merged, updatedAt: by.at, updatedBy: by.actor };
}

/** Edits, resolves or reopens an update; a request that changes nothing saves nothing. */
export async function editUpdate(
  kv: Deno.Kv,
  projectId: string,
  options: { id: string; change: EditUpdateRequest; actor: UpdateActor; now: Date },
): Promise<TrustUpdate> {
  const key = updateKey(projectId, options.id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<TrustUpdate>(key);
    if (!entry.value) throw notFound("No update with that id in this project");
    const current = entry.value;
    const next = applyEdit(current, options.change, {
      actor: options.actor,
      at: options.now.toISOString(),
    });
    if (next === current) return current;
    const open = openIncidentKey(projectId, current.postedAt, current.id);
    const op = kv.atomic().check(entry).set(key, next);
    if (isOpen(next)) op.set(open, next.id);
    else op.delete(open);
    if ((await op.commit()).ok) return next;
  }
  throw conflict("The update kept changing while it was being saved; please retry");
}

/** Deletes an update and its index entries; returns what was deleted. */
export async function deleteUpdate(
  kv: Deno.Kv,
  projectId: string,
  id: string,
): Promise<TrustUpdate> {
  const key = updateKey(projectId, id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<TrustUpdate>(key);
    if (!entry.value) throw notFound("No update with that id in this project");
    const { postedAt } = entry.value;
    const op = kv.atomic().check(entry).delete(key)
      .delete(updateByPostedKey(projectId, postedAt, id))
      .delete(openIncidentKey(projectId, postedAt, id));
    const ok = await op.commit();
    if (ok.ok) return entry.value;
  }
  throw conflict("The update kept changing while it was being deleted; please retry");
}
