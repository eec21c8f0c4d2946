/**
 * Which due jobs a worker claims next, so that one tenant (organization) cannot delay another,
 * nor one person through many organizations or accounts: round robin across tenants, the
 * tenant with the fewest jobs running here first, then the job whose parties (its tenant, the
 * account that registered its endpoint, its destination) used the least slot time lately
 * (`Usage`); a tenant may hold `tenantShare` slots, and more only while `spare` slots (and
 * `outboundSpare` of the outbound ones) stay free for others; jobs that wait on a third party
 * (webhook attempts, emails) hold at most `outbound` slots, and the last `outboundSpare` of them
 * is kept for parties that used less than `heavyMs` of slot time lately; jobs of one lane (an
 * endpoint's attempts, an organization's renders) run one at a time; jobs of one group (the
 * attempts to one subscriber's endpoints) at most `perGroup` at a time, and those to one
 * destination (a URL's origin) at most `perDestination`.
 *
 * The bound this gives: a tenant with fewer than `tenantShare` jobs running here has its due
 * job started at the worker's next look while any slot is free, and at least `spare` slots are
 * free unless several tenants are busy at once; an outbound job whose parties are light finds
 * the spare outbound slot free unless other light parties hold it; when all are taken, it gets
 * the next slot to free (its parties used less than those waiting with it), which is within
 * the longest run of one job (a webhook attempt's timeout). However many tenants and accounts
 * one person makes, their attempts are heavy after one timeout each. Pure, so the order is
 * tested on its own.
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
  /** Outbound jobs to one destination (a webhook URL's origin) at once. */
  perDestination: number;
  /**
   * Slot time (ms, decayed) above which a party is heavy: its jobs leave the last
   * `outboundSpare` outbound slots to others.
   */
  heavyMs: number;
}

export const DEFAULT_LIMITS: FairnessLimits = {
  slots: 8,
  tenantShare: 2,
  spare: 2,
  outbound: 4,
  outboundSpare: 1,
  perGroup: MAX_IN_FLIGHT_PER_SUBSCRIBER,
  perDestination: 2,
  heavyMs: 5_000,
};

/** Recent slot time (ms) of the parties of a job of `tag`, the most of any of them. */
export type Usage = (tag: JobTag) => number;

/** No usage known: the order is by jobs running and due time alone. */
export const NO_USAGE: Usage = () => 0;

/** What runs on this worker now. */
export interface Running {
  total: number;
  byTenant: Map<string, number>;
  outbound: number;
  lanes: Set<string>;
  groups: Map<string, number>;
  destinations: Map<string, number>;
}

/** Counts one more job of `tag` as running. */
function add(running: Running, tag: JobTag): void {
  running.total++;
  running.byTenant.set(tag.tenant, (running.byTenant.get(tag.tenant) ?? 0) + 1);
  if (tag.cls === "outbound") running.outbound++;
  if (tag.lane) running.lanes.add(tag.lane);
  if (tag.group) running.groups.set(tag.group, (running.groups.get(tag.group) ?? 0) + 1);
  if (tag.destination) {
    running.destinations.set(tag.destination, (running.destinations.get(tag.destination) ?? 0) + 1);
  }
}

/** What runs, from the tags of the jobs running (`total` also counts jobs without a tag). */
export function runningOf(tags: Iterable<JobTag>, total: number): Running {
  const running: Running = {
    total: 0,
    byTenant: new Map(),
    outbound: 0,
    lanes: new Set(),
    groups: new Map(),
    destinations: new Map(),
  };
  for (const tag of tags) add(running, tag);
  running.total = Math.max(running.total, total);
  return running;
}

/** An entry of the earlier format is taken as the shared tenant's, of the core class. */
export const LEGACY_TAG: JobTag = { tenant: "", cls: "core", lane: null };

export const tagOfRef = (ref: DueRef): JobTag => ref.tag ?? LEGACY_TAG;

/** Whether a job of `tag` may start now, given what runs and its parties' recent usage. */
function allowed(tag: JobTag, running: Running, limits: FairnessLimits, usage: Usage): boolean {
  const free = limits.slots - running.total;
  if (free <= 0) return false;
  if (tag.cls === "outbound" && running.outbound >= limits.outbound) return false;
  if (tag.lane && running.lanes.has(tag.lane)) return false;
  if (tag.group && (running.groups.get(tag.group) ?? 0) >= limits.perGroup) return false;
  if (
    tag.destination &&
    (running.destinations.get(tag.destination) ?? 0) >= limits.perDestination
  ) return false;
  const outboundFree = limits.outbound - running.outbound;
  // The last outbound slots are for parties that have not held slots for long lately.
  if (
    tag.cls === "outbound" && outboundFree - 1 < limits.outboundSpare &&
    usage(tag) >= limits.heavyMs
  ) return false;
  const held = running.byTenant.get(tag.tenant) ?? 0;
  if (held < limits.tenantShare) return true;
  // Borrowing: only while others still find free slots, outbound ones included.
  return free - 1 >= limits.spare &&
    (tag.cls !== "outbound" || outboundFree - 1 >= limits.outboundSpare);
}

/**
 * The due jobs to claim, in order, from `candidates` (any order; an entry listed twice counts
 * once). `running` is not changed. `usage` tells the recent slot time of a job's parties.
 */
export function planClaims(
  candidates: DueRef[],
  running: Running,
  limits: FairnessLimits = DEFAULT_LIMITS,
  usage: Usage = NO_USAGE,
): DueRef[] {
  const state: Running = {
    total: running.total,
    byTenant: new Map(running.byTenant),
    outbound: running.outbound,
    lanes: new Set(running.lanes),
    groups: new Map(running.groups),
    destinations: new Map(running.destinations),
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
    let best: { tenant: string; index: number; held: number; used: number; dueAt: number } | null =
      null;
    for (const [tenant, refs] of queues) {
      const index = refs.findIndex((ref) => allowed(tagOfRef(ref), state, limits, usage));
      if (index < 0) continue;
      const held = state.byTenant.get(tenant) ?? 0;
      const used = usage(tagOfRef(refs[index]));
      const dueAt = refs[index].dueAt;
      if (
        !best || held < best.held ||
        (held === best.held &&
          (used < best.used ||
            (used === best.used &&
              (dueAt < best.dueAt || (dueAt === best.dueAt && tenant < best.tenant)))))
      ) best = { tenant, index, held, used, dueAt };
    }
    if (!best) break;
    const refs = queues.get(best.tenant)!;
    const [ref] = refs.splice(best.index, 1);
    picks.push(ref);
    add(state, tagOfRef(ref));
  }
  return picks;
}

/** What runs once `picks` have started too. */
export function withPicks(running: Running, picks: DueRef[]): Running {
  const state: Running = {
    total: running.total,
    byTenant: new Map(running.byTenant),
    outbound: running.outbound,
    lanes: new Set(running.lanes),
    groups: new Map(running.groups),
    destinations: new Map(running.destinations),
  };
  for (const ref of picks) add(state, tagOfRef(ref));
  return state;
}

/**
 * Whether a due outbound job of light parties (under `heavyMs` of slot time lately) is left
 * waiting because every outbound slot is held, and would start were one of them free: the
 * worker then cuts short the attempt of a heavy party that has run `heavyMs` already
 * (src/live/worker.ts), so that such a job waits about `heavyMs`, not a whole attempt timeout,
 * behind attempts to hosts not yet known to be silent.
 */
export function lightOutboundWaiting(
  waiting: DueRef[],
  running: Running,
  limits: FairnessLimits = DEFAULT_LIMITS,
  usage: Usage = NO_USAGE,
): boolean {
  if (running.outbound < limits.outbound) return false;
  const relieved: Running = {
    ...running,
    total: running.total - 1,
    outbound: running.outbound - 1,
  };
  return waiting.some((ref) => {
    const tag = tagOfRef(ref);
    return tag.cls === "outbound" && usage(tag) < limits.heavyMs &&
      allowed(tag, relieved, limits, usage);
  });
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

/**
 * How fast recorded slot time is forgotten: it halves every this long, so one 10 s timeout
 * keeps its parties heavy (over 5 s) for five minutes, across the first pauses of its host.
 */
export const USAGE_HALF_LIFE_MS = 300_000;
/** Parties remembered at most (the lightest are forgotten first). */
const MAX_PARTIES = 10_000;

/**
 * The parties of a job, whose slot time it adds to: its tenant, the account behind its group
 * (a subscriber), its destination; each counted per class, so a tenant's own recomputes do not
 * make its deliveries wait.
 */
export function partiesOf(tag: JobTag): string[] {
  const parties = [`${tag.cls}:tenant:${tag.tenant}`];
  if (tag.group) parties.push(`${tag.cls}:${tag.group}`);
  if (tag.destination) parties.push(`${tag.cls}:destination:${tag.destination}`);
  return parties;
}

/**
 * The slot time each party's jobs held on this worker lately, decaying by half every
 * `halfLifeMs`: `record` adds a finished run, `usage` gives the `Usage` at `now` with the runs
 * still under way counted up to now.
 */
export function createUsageMeter(halfLifeMs = USAGE_HALF_LIFE_MS, maxParties = MAX_PARTIES) {
  const held = new Map<string, { ms: number; at: number }>();
  const decayed = (entry: { ms: number; at: number } | undefined, now: number) =>
    entry ? entry.ms * 2 ** (-Math.max(0, now - entry.at) / halfLifeMs) : 0;

  function forgetLightest(now: number): void {
    for (const [party, entry] of held) if (decayed(entry, now) < 1) held.delete(party);
    if (held.size < maxParties) return;
    const sorted = [...held].sort((a, b) => decayed(a[1], now) - decayed(b[1], now));
    for (const [party] of sorted.slice(0, held.size - maxParties / 2)) held.delete(party);
  }

  return {
    /** Adds `ms` of slot time, ended at `now`, to the parties of `tag`. */
    record(tag: JobTag, ms: number, now: number): void {
      for (const party of partiesOf(tag)) {
        held.set(party, { ms: decayed(held.get(party), now) + Math.max(0, ms), at: now });
      }
      if (held.size > maxParties) forgetLightest(now);
    },
    /** The usage at `now`, `running` (each run's tag and start) counted up to now. */
    usage(now: number, running: Iterable<{ tag: JobTag; startedAt: number }>): Usage {
      const under = new Map<string, number>();
      for (const run of running) {
        for (const party of partiesOf(run.tag)) {
          under.set(party, (under.get(party) ?? 0) + Math.max(0, now - run.startedAt));
        }
      }
      return (tag) =>
        Math.max(
          ...partiesOf(tag).map((party) => decayed(held.get(party), now) + (under.get(party) ?? 0)),
        );
    },
  };
}
