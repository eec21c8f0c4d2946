/**
 * The one-time upgrade from the Deno KV queue of earlier releases, which ran the live layer
 * on `enqueue`/`listenQueue`. A local SQLite database may still hold their messages; at the
 * first start of this release they become jobs:
 *
 * 1. a second handle on the same file listens to the old queue for a short window and turns
 *    each message that arrives (everything not delayed) into the equivalent job;
 * 2. what delayed messages stood for is rebuilt from the records themselves: a recompute job
 *    for every project, a job for every webhook delivery still pending (at its next attempt
 *    time) and for every email still queued, unless step 1 made one already.
 *
 * Then a marker records the upgrade as done. This is the only module that touches a KV
 * queue, and only where one exists: on Deno Deploy and over KV Connect there is nothing to
 * drain (`listenQueue` fails there) and only the marker is written.
 */
import { isJobMessage, type JobMessage } from "../domain/jobs.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { insertJob } from "../store/jobs.ts";
import { upgradeKey } from "../store/keys.ts";
import { scanProjects } from "../store/projects.ts";
import { scanQueuedDeliveries } from "../store/subscriptions.ts";
import { messageOf, scanPendingDeliveries } from "../store/webhook_deliveries.ts";
import { ACTIVITY_DEBOUNCE_MS, type Scheduler } from "./scheduler.ts";

const UPGRADE = "jobs-from-kv-queue";
/** The window ends once no message came for this long, or after `MAX_WINDOW_MS` in all. */
const QUIET_MS = 1_000;
const MAX_WINDOW_MS = 10_000;

export interface UpgradeReport {
  /** Whether this start did the upgrade (false: done before, or nothing to do). */
  ran: boolean;
  /** Messages taken from the old queue and turned into jobs. */
  messages: number;
  /** Jobs rebuilt from pending webhook deliveries and queued emails. */
  rebuilt: number;
  /** Projects given a recompute job. */
  projects: number;
}

/** Whether `path` names a local database file (the only kind with an old queue). */
function isLocalFile(path: string | undefined): path is string {
  return !!path && path !== ":memory:" && !/^https?:\/\//.test(path);
}

/** Turns the old queue's messages into jobs; returns their count and the ids covered. */
async function drainOldQueue(
  path: string,
  deps: { kv: Deno.Kv; clock: Clock; log: Logger; scheduler: Scheduler },
  covered: Set<string>,
): Promise<number> {
  let old: Deno.Kv;
  try {
    old = await Deno.openKv(path);
  } catch {
    return 0;
  }
  let count = 0;
  let last = Date.now();
  const handled: Promise<void>[] = [];
  const convert = async (message: unknown) => {
    last = Date.now();
    if (!isJobMessage(message)) return;
    count++;
    await convertMessage(message, deps, covered);
  };
  let listening: Promise<void> | null = null;
  try {
    listening = old.listenQueue((message) => {
      const done = convert(message);
      handled.push(done);
      return done;
    });
  } catch {
    // This KV has no queue (Deno Deploy, KV Connect): nothing to drain.
  }
  if (listening) {
    const started = Date.now();
    while (Date.now() - last < QUIET_MS && Date.now() - started < MAX_WINDOW_MS) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await Promise.allSettled(handled);
  }
  old.close();
  await listening?.catch(() => {});
  return count;
}

/** The job an old queue message stood for. */
async function convertMessage(
  message: JobMessage,
  deps: { kv: Deno.Kv; clock: Clock; log: Logger; scheduler: Scheduler },
  covered: Set<string>,
): Promise<void> {
  const now = deps.clock.now();
  if (message.kind === "recompute" && typeof message.projectId === "string") {
    await deps.scheduler.schedule(message.projectId, now.getTime());
    return;
  }
  if (message.kind === "event" || message.kind === "mail" || message.kind === "webhook-delivery") {
    if (typeof message.deliveryId === "string") covered.add(message.deliveryId);
    await insertJob(deps.kv, message, { now });
    return;
  }
  deps.log.warn("A message of the old KV queue had an unknown kind and was dropped", {
    kind: message.kind,
  });
}

/**
 * Runs the upgrade once per database (see the module's description). Safe to run on every
 * start: after the first, it reads one marker.
 */
export async function upgradeFromKvQueue(
  kvPath: string | undefined,
  deps: { kv: Deno.Kv; clock: Clock; log: Logger; scheduler: Scheduler },
): Promise<UpgradeReport> {
  const report: UpgradeReport = { ran: false, messages: 0, rebuilt: 0, projects: 0 };
  const marker = await deps.kv.get(upgradeKey(UPGRADE));
  if (marker.value !== null) return report;
  // A database without projects has nothing an old queue could have been doing.
  const projects = scanProjects(deps.kv);
  const hasProjects = !(await projects.next()).done;
  await projects.return(undefined);
  if (isLocalFile(kvPath) && hasProjects) {
    const covered = new Set<string>();
    report.messages = await drainOldQueue(kvPath, deps, covered);
    const now = deps.clock.now();
    for await (const delivery of scanPendingDeliveries(deps.kv)) {
      if (covered.has(delivery.id)) continue;
      const dueAt = Math.max(now.getTime(), Date.parse(delivery.nextAttemptAt ?? "") || 0);
      await insertJob(deps.kv, messageOf(delivery), { now, dueAt });
      report.rebuilt++;
    }
    for await (const delivery of scanQueuedDeliveries(deps.kv)) {
      if (covered.has(delivery.id)) continue;
      await insertJob(deps.kv, { kind: "mail", deliveryId: delivery.id }, { now });
      report.rebuilt++;
    }
    for await (const project of scanProjects(deps.kv)) {
      await deps.scheduler.schedule(project.id, now.getTime() + ACTIVITY_DEBOUNCE_MS);
      report.projects++;
    }
    report.ran = true;
  }
  await deps.kv.set(upgradeKey(UPGRADE), { at: deps.clock.now().toISOString(), ...report });
  return report;
}
