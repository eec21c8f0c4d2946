/**
 * An organization's subprocessors and their history. Each write commits the record and
 * its history entry in one atomic operation, so the history never misses or invents a
 * change; the count check rides on the same operation through a per-organization marker.
 * The same operation stages the `subprocessor.changed` trust event (the public entry,
 * without who made it).
 */
import { conflict, notFound } from "../domain/errors.ts";
import {
  type CreateSubprocessorRequest,
  MAX_SUBPROCESSOR_EVENTS,
  MAX_SUBPROCESSORS,
  type Subprocessor,
  type SubprocessorChange,
  type UpdateSubprocessorRequest,
} from "../domain/subprocessors.ts";
import { type TrustEvent, trustEvent } from "../domain/events.ts";
import { stageEvents } from "./event_jobs.ts";
import {
  subprocessorEventKey,
  subprocessorEventsPrefix,
  subprocessorKey,
  subprocessorsPrefix,
} from "./keys.ts";
import { compareCodePoints } from "../lib/order.ts";

const MAX_ATTEMPTS = 10;

/** Who made a change. */
export interface SubprocessorActor {
  userId: string;
  email: string | null;
}

/** The trust event of a history entry: what subscribers and webhooks are told. */
function changedEvent(organizationId: string, change: SubprocessorChange): TrustEvent {
  const { actor: _actor, ...entry } = change;
  return trustEvent({
    type: "subprocessor.changed",
    timestamp: change.at,
    organizationId,
    projectId: null,
    data: entry,
  });
}

function fields(s: Subprocessor) {
  return { name: s.name, purpose: s.purpose, location: s.location, website: s.website };
}

/** The organization's current subprocessors, by name. */
export async function listSubprocessors(
  kv: Deno.Kv,
  organizationId: string,
): Promise<Subprocessor[]> {
  const list: Subprocessor[] = [];
  for await (
    const entry of kv.list<Subprocessor>({ prefix: subprocessorsPrefix(organizationId) })
  ) {
    list.push(entry.value);
  }
  return list.sort((a, b) => a.name.localeCompare(b.name, "en") || compareCodePoints(a.id, b.id));
}

/** The history of the organization's subprocessors, newest first. */
export async function listSubprocessorHistory(
  kv: Deno.Kv,
  organizationId: string,
  options: { limit?: number } = {},
): Promise<SubprocessorChange[]> {
  const events: SubprocessorChange[] = [];
  const iter = kv.list<SubprocessorChange>(
    { prefix: subprocessorEventsPrefix(organizationId) },
    {
      reverse: true,
      limit: Math.min(options.limit ?? MAX_SUBPROCESSOR_EVENTS, MAX_SUBPROCESSOR_EVENTS),
    },
  );
  for await (const entry of iter) events.push(entry.value);
  return events;
}

async function countOf(kv: Deno.Kv, organizationId: string): Promise<number> {
  let count = 0;
  const iter = kv.list({ prefix: subprocessorsPrefix(organizationId) }, {
    limit: MAX_SUBPROCESSORS,
  });
  for await (const _ of iter) count++;
  return count;
}

/**
 * The key the next history entry takes: one past the newest. Committing it with a check
 * that it is still free orders the history by commit, even when the clock stands still.
 */
async function nextEventKey(kv: Deno.Kv, organizationId: string) {
  const iter = kv.list<SubprocessorChange>(
    { prefix: subprocessorEventsPrefix(organizationId) },
    { reverse: true, limit: 1 },
  );
  let last = 0;
  for await (const entry of iter) last = entry.key[2] as number;
  return subprocessorEventKey(organizationId, last + 1);
}

/** Adds a subprocessor and its "added" history entry. */
export async function addSubprocessor(
  kv: Deno.Kv,
  organizationId: string,
  options: { request: CreateSubprocessorRequest; actor: SubprocessorActor; now: Date },
): Promise<Subprocessor> {
  if ((await countOf(kv, organizationId)) >= MAX_SUBPROCESSORS) {
    throw conflict(`An organization lists at most ${MAX_SUBPROCESSORS} subprocessors`);
  }
  const at = options.now.toISOString();
  const subprocessor: Subprocessor = {
    id: crypto.randomUUID(),
    ...options.request,
    addedAt: at,
    updatedAt: at,
  };
  const event: SubprocessorChange = {
    at,
    action: "added",
    subprocessorId: subprocessor.id,
    name: subprocessor.name,
    before: null,
    after: fields(subprocessor),
    actor: options.actor,
  };
  const key = subprocessorKey(organizationId, subprocessor.id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const eventKey = await nextEventKey(kv, organizationId);
    const op = kv.atomic()
      .check({ key, versionstamp: null }, { key: eventKey, versionstamp: null })
      .set(key, subprocessor)
      .set(eventKey, event);
    stageEvents(op, [changedEvent(organizationId, event)]);
    if ((await op.commit()).ok) return subprocessor;
  }
  throw conflict("The subprocessors kept changing while this one was being saved; please retry");
}

async function modify(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
  apply: (current: Subprocessor) => { next: Subprocessor | null; event: SubprocessorChange | null },
): Promise<Subprocessor> {
  const key = subprocessorKey(organizationId, id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<Subprocessor>(key);
    if (!entry.value) throw notFound("No subprocessor with that id in this organization");
    const { next, event } = apply(entry.value);
    if (!event) return entry.value;
    const eventKey = await nextEventKey(kv, organizationId);
    const op = kv.atomic().check(entry, { key: eventKey, versionstamp: null }).set(eventKey, event);
    stageEvents(op, [changedEvent(organizationId, event)]);
    if (next) op.set(key, next);
    else op.delete(key);
    if ((await op.commit()).ok) return next ?? entry.value;
  }
  throw conflict("The subprocessor kept changing while it was being saved; please retry");
}

/** Changes the given fields; a change that changes nothing records no history. */
export function updateSubprocessor(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; change: UpdateSubprocessorRequest; actor: SubprocessorActor; now: Date },
): Promise<Subprocessor> {
  return modify(kv, organizationId, options.id, (current) => {
    const merged = { ...fields(current), ...options.change };
    const before = fields(current);
    if (JSON.stringify(merged) === JSON.stringify(before)) return { next: current, event: null };
    const at = options.now.toISOString();
    const next: Subprocessor = { ...current, ...merged, updatedAt: at };
    return {
      next,
      event: {
        at,
        action: "changed",
        subprocessorId: current.id,
        name: next.name,
        before,
        after: merged,
        actor: options.actor,
      },
    };
  });
}

/** Removes a subprocessor, keeping a "removed" history entry; returns what was removed. */
export function removeSubprocessor(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; actor: SubprocessorActor; now: Date },
): Promise<Subprocessor> {
  return modify(kv, organizationId, options.id, (current) => ({
    next: null,
    event: {
      at: options.now.toISOString(),
      action: "removed",
      subprocessorId: current.id,
      name: current.name,
      before: fields(current),
      after: null,
      actor: options.actor,
    },
  }));
}
