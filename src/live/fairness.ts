/**
 * Which due jobs a worker claims next, so that one tenant (organization) cannot delay another:
 * round robin across tenants, the tenant with the fewest jobs running here first; a tenant may
 * hold `tenantShare` slots, and more only while `spare` slots (and `outboundSpare` of the
 * outbound ones) stay free for others; jobs that
 * wait on a third party (webhook attempts, emails) hold at most `outbound` slots; jobs of
 * one lane (an endpoint's attempts, an organization's renders) run one at a time; and jobs of
 * one group (the attempts to one subscriber's endpoints) at most `perGroup` at a time.
 *
 * The bound this gives: a tenant with fewer than `tenantShare` jobs running here has its due
 * job started at the worker's next look while any slot is free, and at least `spare` slots are
 * free unless several tenants are busy at once; when all are taken, it gets the next slot to
 * free (it runs fewer jobs than the tenants holding them), which is within the longest run of
 * one job (a webhook attempt's timeout). Pure, so the order is tested on its own.
 */
import type { JobTag } from "../domain/jobs.ts";
import { MAX_IN_FLIGHT_PER_SUBSCRIBER } from "../domain/webhooks.ts";
import type { DueRef } from "../store/job_index.ts";

export interface FairnessLimits {
  /** Jobs one worker runs at once. */
  slots: number;
  /** Slots a tenant may always hold. */
  tenantShare: number;
  /** Slots a tenant beyond its share must leave free for others. */
  spare: number;
  /** Slots jobs of the `outbound` class may hold together. */
  outbound: number;
  /** Of those, the ones a tenant beyond its share must leave free for others. */
  outboundSpare: number;
  /** Jobs of one group at once (MAX_IN_FLIGHT_PER_SUBSCRIBER for a subscriber's endpoints). */
  perGroup: number;
}

export const DEFAULT_LIMITS: FairnessLimits = {
  slots: 8,
  tenantShare: 2,
  spare: 2,
  outbound: 4,
  outboundSpare: 1,
  perGroup: MAX_IN_FLIGHT_PER_SUBSCRIBER,
};

/** What runs on this worker now. */
export interface Running {
  total: number;
  byTenant: Map<string, number>;
  outbound: number;
  lanes: Set<string>;
  groups: Map<string, number>;
}

/** Counts one more job of `tag` as running. */
function add(running: Running, tag: JobTag): void {
  running.total++;
  running.byTenant.set(tag.tenant, (running.byTenant.get(tag.tenant) ?? 0) + 1);
  if (tag.cls === "outbound") running.outbound++;
  if (tag.lane) running.lanes.add(tag.lane);
  if (tag.group) running.groups.set(tag.group, (running.groups.get(tag.group) ?? 0) + 1);
}

/** What runs, from the tags of the jobs running (`total` also counts jobs without a tag). */
export function runningOf(tags: Iterable<JobTag>, total: number): Running {
  const running: Running = {
    total: 0,
    byTenant: new Map(),
    outbound: 0,
    lanes: new Set(),
    groups: new Map(),
  };
  for (const tag of tags) add(running, tag);
  running.total = Math.max(running.total, total);
  return running;
}

/** An entry of the earlier format is taken as the shared tenant's, of the core class. */
export const LEGACY_TAG: JobTag = { tenant: "", cls: "core", lane: null };

export const tagOfRef = (ref: DueRef): JobTag => ref.tag ?? LEGACY_TAG;

/** Whether a job of `tag` may start now, given what runs. */
function allowed(tag: JobTag, running: Running, limits: FairnessLimits): boolean {
  const free = limits.slots - running.total;
  if (free <= 0) return false;
  if (tag.cls === "outbound" && running.outbound >= limits.outbound) return false;
  if (tag.lane && running.lanes.has(tag.lane)) return false;
  if (tag.group && (running.groups.get(tag.group) ?? 0) >= limits.perGroup) return false;
  const held = running.byTenant.get(tag.tenant) ?? 0;
  if (held < limits.tenantShare) return true;
  // Borrowing: only while others still find free slots, outbound ones included.
  const outboundFree = limits.outbound - running.outbound;
  return free - 1 >= limits.spare &&
    (tag.cls !== "outbound" || outboundFree - 1 >= limits.outboundSpare);
}

/**
 * The due jobs to claim, in order, from `candidates` (any order; an entry listed twice counts
 * once). `running` is not changed.
 */
export function planClaims(
  candidates: DueRef[],
  running: Running,
  limits: FairnessLimits = DEFAULT_LIMITS,
): DueRef[] {
  const state: Running = {
    total: running.total,
    byTenant: new Map(running.byTenant),
    outbound: running.outbound,
    lanes: new Set(running.lanes),
    groups: new Map(running.groups),
  };
  const queues = new Map<string, DueRef[]>();
  const seen = new Set<string>();
  for (const ref of [...candidates].sort((a, b) => a.dueAt - b.dueAt)) {
    const key = `${ref.dueAt}:${ref.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const tenant = tagOfRef(ref).tenant;
    queues.set(tenant, [...(queues.get(tenant) ?? []), ref]);
  }
  const picks: DueRef[] = [];
  while (state.total < limits.slots) {
    let best: { tenant: string; index: number; held: number; dueAt: number } | null = null;
    for (const [tenant, refs] of queues) {
      const index = refs.findIndex((ref) => allowed(tagOfRef(ref), state, limits));
      if (index < 0) continue;
      const held = state.byTenant.get(tenant) ?? 0;
      const dueAt = refs[index].dueAt;
      if (
        !best || held < best.held ||
        (held === best.held &&
          (dueAt < best.dueAt || (dueAt === best.dueAt && tenant < best.tenant)))
      ) best = { tenant, index, held, dueAt };
    }
    if (!best) break;
    const refs = queues.get(best.tenant)!;
    const [ref] = refs.splice(best.index, 1);
    picks.push(ref);
    add(state, tagOfRef(ref));
  }
  return picks;
}

/**
 * The entries of the time index's front to park: of each tenant's entries not picked, all
 * but the first `keep` (one), so the front keeps showing every tenant's next jobs however many one
 * tenant has due. Entries of the earlier format are never parked (they have no tenant entry).
 */
export function parkable(front: DueRef[], picks: DueRef[], keep = 1): DueRef[] {
  const picked = new Set(picks.map((ref) => `${ref.dueAt}:${ref.id}`));
  const kept = new Map<string, number>();
  const park: DueRef[] = [];
  for (const ref of front) {
    if (!ref.tag || picked.has(`${ref.dueAt}:${ref.id}`)) continue;
    const n = kept.get(ref.tag.tenant) ?? 0;
    if (n < keep) kept.set(ref.tag.tenant, n + 1);
    else park.push(ref);
  }
  return park;
}
