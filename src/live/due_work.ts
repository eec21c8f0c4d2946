/**
 * Where a worker finds due work fairly: each look reads the front of the time index and, in
 * turn, the parked backlogs (src/store/job_index.ts), picks what to claim with the fair plan
 * (src/live/fairness.ts), and parks what a tenant has on the front beyond its first entry, so
 * the next look's front shows other tenants' jobs. Entries of the earlier format are upgraded
 * as they come to the front.
 */
import {
  type Backlog,
  clearBacklog,
  type DueRef,
  listBacklogs,
  listDueJobs,
  listTenantDue,
  parkDue,
  upgradeLegacyRefs,
} from "../store/job_index.ts";
import {
  type FairnessLimits,
  lightOutboundWaiting,
  NO_USAGE,
  parkable,
  planClaims,
  type Running,
  type Usage,
  withPicks,
} from "./fairness.ts";

/** Entries of the time index's front read per look. */
const FRONT = 64;
/** Parked backlogs looked into per look (in turn when there are more), and entries of each. */
const BACKLOGS_PER_LOOK = 16;
const BACKLOG_ENTRIES = 16;
/** Backlog marks read at once (one per tenant and class with parked jobs). */
const MAX_BACKLOGS = 1000;

/** What one look found: the jobs to claim, how many entries it parked, whether any was left. */
export interface DueLook {
  picks: DueRef[];
  parked: number;
  /** Due jobs were left unpicked (for a limit of this worker, or no free slot). */
  left: boolean;
  /**
   * Due entries this look did not read may exist that it would have picked: its front was
   * full, backlogs waited for their turn, or a backlog's read was full and all of it picked.
   * Without that (and with nothing parked), a look right after this one, with its picks
   * running, finds nothing more to start: a plan only picks less when more runs.
   */
  unseen: boolean;
  /**
   * A due outbound job of light parties waits only for an outbound slot, all of them held
   * (with the picks started): the worker may cut a heavy party's attempt short.
   */
  lightWaiting: boolean;
}

/** The looks of one worker (it remembers whose backlog's turn is next). */
export function createDueWork(kv: Deno.Kv, limits: FairnessLimits) {
  let turn = 0;

  /** The backlogs whose turn it is, and whether others wait for theirs. */
  async function backlogsToLook(): Promise<{ backlogs: Backlog[]; waiting: boolean }> {
    const all = await listBacklogs(kv, MAX_BACKLOGS);
    if (all.length <= BACKLOGS_PER_LOOK) return { backlogs: all, waiting: false };
    const start = turn % all.length;
    turn = start + BACKLOGS_PER_LOOK;
    return { backlogs: [...all, ...all].slice(start, start + BACKLOGS_PER_LOOK), waiting: true };
  }

  return {
    /** Looks at what is due at `now`, given what runs on this worker and who used it lately. */
    async look(now: number, running: Running, usage: Usage = NO_USAGE): Promise<DueLook> {
      const front = await upgradeLegacyRefs(kv, await listDueJobs(kv, now, FRONT));
      const { backlogs, waiting } = await backlogsToLook();
      const reads: DueRef[][] = [];
      for (const backlog of backlogs) {
        const refs = await listTenantDue(kv, backlog, { now, limit: BACKLOG_ENTRIES });
        // Nothing of it is due any more: the mark goes, unless it was set again meanwhile.
        if (refs.length === 0) await clearBacklog(kv, backlog);
        reads.push(refs);
      }
      const candidates = [...front, ...reads.flat()];
      const picks = planClaims(candidates, running, limits, usage);
      const park = parkable(front, picks);
      if (park.length > 0) await parkDue(kv, park, now);
      const keyOf = (ref: DueRef) => `${ref.dueAt}:${ref.id}`;
      const picked = new Set(picks.map(keyOf));
      const unseen = front.length === FRONT || waiting ||
        reads.some((refs) =>
          refs.length === BACKLOG_ENTRIES && refs.every((ref) => picked.has(keyOf(ref)))
        );
      const unpicked = candidates.filter((ref) => !picked.has(keyOf(ref)));
      const lightWaiting = unpicked.length > 0 &&
        lightOutboundWaiting(unpicked, withPicks(running, picks), limits, usage);
      return {
        picks,
        parked: park.length,
        left: candidates.length > picks.length,
        unseen,
        lightWaiting,
      };
    },
  };
}
