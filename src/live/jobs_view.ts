/**
 * What operators see of the live layer: its readiness (the readiness route, the start-up
 * banner, the dashboard) and the dead-lettered jobs of an organization, with a retry.
 */
import type { Job, JobView, LiveStatus } from "../domain/jobs.ts";
import type { Clock } from "../lib/clock.ts";
import { countDeadJobs, listDeadJobs } from "../store/jobs.ts";
import { dueWaits } from "../store/job_index.ts";
import type { EdgeConfig } from "../config.ts";
import { listPurgeFailures } from "../store/edge_pages.ts";
import { getProject } from "../store/projects.ts";
import { getDelivery, getSubscription } from "../store/subscriptions.ts";
import type { JobWorker } from "./worker.ts";

/** A due job that waited longer than this means live work is stuck (the loop looks often). */
export const LOOP_STALL_SECONDS = 120;
/** Where only Deno.cron drains (every minute), a job may wait up to a minute by design. */
export const CRON_STALL_SECONDS = 180;
/** Dead jobs read when listing an organization's (the newest first). */
const DEAD_READ = 500;

/** The live layer's status as seen from this instance. */
export async function liveStatus(
  deps: { kv: Deno.Kv; clock: Clock; jobs: JobWorker; config: { edge: EdgeConfig } },
): Promise<LiveStatus> {
  const now = deps.clock.now().getTime();
  const worker = deps.jobs.status();
  const waits = await dueWaits(deps.kv, now);
  const seconds = (at: number | null) =>
    at === null ? null : Math.max(0, Math.round((now - at) / 1000));
  const oldestDueSeconds = seconds(waits.oldestDueAt);
  const backlogSeconds = seconds(waits.backlog.oldestDueAt);
  const outboundSeconds = seconds(waits.outbound.oldestDueAt);
  const problems: string[] = [];
  if (worker.mode === "off") {
    problems.push("No job worker runs here: start the service with its job loop or Deno.cron");
  }
  const limit = worker.mode === "cron" ? CRON_STALL_SECONDS : LOOP_STALL_SECONDS;
  if (oldestDueSeconds !== null && oldestDueSeconds > limit) {
    problems.push(`The oldest due job has waited ${oldestDueSeconds} s (more than ${limit} s)`);
  }
  // A backlog waits by design while jobs are claimed; with none claimed here for as long, the
  // worker is not working through it.
  const lastClaim = worker.lastClaimAt === null ? null : Date.parse(worker.lastClaimAt);
  const claimedLately = worker.busy > 0 || (lastClaim !== null && now - lastClaim <= limit * 1000);
  if (backlogSeconds !== null && backlogSeconds > limit && !claimedLately) {
    problems.push(
      `A backlog of ${waits.backlog.tenants} organization(s) has waited ${backlogSeconds} s and no job was started here for ${limit} s`,
    );
  }
  // Webhook attempts and emails wait on other hosts (and their pauses): a flood of them to hosts
  // that never answer is reported, and is a problem only when nothing is being started here.
  if (outboundSeconds !== null && outboundSeconds > limit && !claimedLately) {
    problems.push(
      `A webhook attempt or email has waited ${outboundSeconds} s and no job was started here for ${limit} s`,
    );
  }
  const failingPurges = await listPurgeFailures(deps.kv, 20);
  if (failingPurges.length > 0) {
    problems.push(
      `The edge did not acknowledge the purge of ${failingPurges.length} organization(s): ` +
        `${failingPurges[0].error} (retried with backoff)`,
    );
  }
  return {
    ready: problems.length === 0,
    worker: { mode: worker.mode, running: worker.running, lastCheckAt: worker.lastCheckAt },
    oldestDueSeconds,
    outbound: { oldestDueSeconds: outboundSeconds },
    backlog: { tenants: waits.backlog.tenants, oldestDueSeconds: backlogSeconds },
    deadJobs: await countDeadJobs(deps.kv, 1000),
    edge: { purge: deps.config.edge.purge, failingPurges },
    problems,
  };
}

/** The organization and project a job concerns, read from its message. */
async function subjectOf(
  kv: Deno.Kv,
  job: Job,
): Promise<{ organizationId: string | null; projectId: string | null }> {
  const m = job.message as Record<string, unknown>;
  if (job.kind === "event") {
    const event = m.event as { organizationId?: string; projectId?: string | null } | undefined;
    return { organizationId: event?.organizationId ?? null, projectId: event?.projectId ?? null };
  }
  if (typeof m.projectId === "string") {
    const project = await getProject(kv, m.projectId);
    return { organizationId: project?.organizationId ?? null, projectId: m.projectId };
  }
  if (typeof m.organizationId === "string") {
    return { organizationId: m.organizationId, projectId: null };
  }
  if (job.kind === "mail" && typeof m.deliveryId === "string") {
    const delivery = (await getDelivery(kv, m.deliveryId)).value;
    const subscription = delivery ? await getSubscription(kv, delivery.subscriptionId) : null;
    return {
      organizationId: subscription?.organizationId ?? null,
      projectId: subscription?.projectId ?? null,
    };
  }
  return { organizationId: null, projectId: null };
}

function summaryOf(job: Job): string {
  const m = job.message as Record<string, unknown>;
  switch (job.kind) {
    case "recompute":
      return "Recompute the project's control states (and publish a change automatically)";
    case "event":
      return `Hand the trust event "${
        (m.event as { type?: string })?.type ?? "?"
      }" to webhooks and email`;
    case "webhook-delivery":
      return "Deliver a webhook";
    case "mail":
      return "Send an email to a subscriber";
    case "owner-mail":
      return "Email an owner about an access request";
    case "certification":
      return "Record a certification's expiry (and publish the change automatically)";
    case "retention.prune":
      return "Remove the project's evidence its retention no longer keeps";
    case "blob-gc":
      return "Remove stored payloads and files no record names any more";
    default:
      return `A job of kind "${job.kind}"`;
  }
}

/** A job as operators see it. */
export function jobView(job: Job, projectId: string | null): JobView {
  return {
    id: job.id,
    kind: job.kind,
    state: job.state,
    summary: summaryOf(job),
    projectId,
    attempt: job.attempt,
    maxAttempts: job.maxAttempts,
    errors: job.errors,
    createdAt: job.createdAt,
    dueAt: new Date(job.dueAt).toISOString(),
    deadAt: job.deadAt,
  };
}

/** The dead-lettered jobs that concern an organization, newest first. */
export async function deadJobsOf(kv: Deno.Kv, organizationId: string): Promise<JobView[]> {
  const views: JobView[] = [];
  for (const job of await listDeadJobs(kv, DEAD_READ)) {
    const subject = await subjectOf(kv, job);
    if (subject.organizationId === organizationId) views.push(jobView(job, subject.projectId));
  }
  return views;
}

/** Whether a job concerns an organization (what lets its members retry it). */
export async function jobConcerns(kv: Deno.Kv, job: Job, organizationId: string) {
  return (await subjectOf(kv, job)).organizationId === organizationId;
}
