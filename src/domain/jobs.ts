/**
 * Jobs: the live layer's units of work (a recompute at a due time, a trust event's fan-out,
 * one webhook delivery attempt, one email), kept in Deno KV so they work on every Deno KV
 * (local SQLite, Deno Deploy, KV Connect), none of which needs a queue.
 */
import { z } from "@hono/zod-openapi";

/** What a job does: `kind` picks the handler, the other fields are its arguments. */
export interface JobMessage {
  kind: string;
  [field: string]: unknown;
}

/** One failed run of a job, kept for operators. */
export interface JobError {
  attempt: number;
  at: string;
  error: string;
}

/**
 * A job record. `scheduled` jobs wait for `dueAt`; a `running` job is held by a lease until
 * `dueAt` (its lease end), after which another worker may take it; `dead` jobs ran out of
 * attempts and wait for an operator.
 */
export interface Job {
  id: string;
  kind: string;
  message: JobMessage;
  state: "scheduled" | "running" | "dead";
  /** Epoch ms: when a scheduled job is due, or when a running job's lease ends. */
  dueAt: number;
  /** Runs started so far (a run that crashed counts). */
  attempt: number;
  maxAttempts: number;
  /** The newest failures, oldest first. */
  errors: JobError[];
  createdAt: string;
  /** Who holds a running job, and the token that proves it. */
  lease: { token: string; owner: string } | null;
  /** A unique job asked for again while running: run once more at this time (epoch ms). */
  rerunAt: number | null;
  deadAt: string | null;
  /**
   * Whose work it is, as its due entries were written (absent on jobs stored before tenants
   * were kept: their one due entry is the time index's alone).
   */
  tag?: JobTag;
}

/**
 * What fairness needs to know of a job before claiming it, kept on its due entries:
 * `tenant`, the organization it is for ("" when its message names none); `cls`, `outbound`
 * for work that waits on a third party (webhook attempts, emails), else `core`; `lane`, jobs
 * that one worker runs one at a time (an endpoint's attempts, an organization's renders);
 * `group`, jobs of which one worker runs a few at a time (the attempts to the endpoints of one
 * subscriber); `destination`, the origin an outbound job connects to.
 */
export interface JobTag {
  tenant: string;
  cls: JobClass;
  lane: string | null;
  group?: string | null;
  /**
   * Where an outbound job connects (a webhook URL's origin): one worker runs a few jobs to
   * one destination at a time, and a destination that keeps timing out is left alone.
   */
  destination?: string | null;
}
export type JobClass = "core" | "outbound";

/** Kinds whose handler waits on a third party's server. */
const OUTBOUND_KINDS = new Set(["webhook-delivery", "mail", "owner-mail", "sign-in-link"]);

/** The organization a message is for, as its fields say ("" when none does). */
export function tenantOf(message: JobMessage): string {
  const m = message as Record<string, unknown>;
  if (typeof m.organizationId === "string") return m.organizationId;
  const event = m.event as { organizationId?: unknown } | undefined;
  if (typeof event?.organizationId === "string") return event.organizationId;
  return "";
}

/** The fairness tag of a message. */
export function tagOf(message: JobMessage): JobTag {
  const m = message as Record<string, unknown>;
  const tenant = tenantOf(message);
  const lane = message.kind === "webhook-delivery" && typeof m.webhookId === "string"
    ? `webhook:${m.webhookId}`
    : message.kind === "edge.render" && tenant
    ? `render:${tenant}`
    : null;
  const group = message.kind === "webhook-delivery" && typeof m.subscriberId === "string"
    ? `subscriber:${m.subscriberId}`
    : null;
  const destination = message.kind === "webhook-delivery" && typeof m.destination === "string"
    ? m.destination
    : null;
  return {
    tenant,
    cls: OUTBOUND_KINDS.has(message.kind) ? "outbound" : "core",
    lane,
    group,
    ...(destination ? { destination } : {}),
  };
}

/**
 * Thrown by a handler that should not run now and is not failing: the job is due again at
 * `untilMs` without counting the run (an endpoint left alone after failures, or busy).
 */
export class JobDeferred extends Error {
  constructor(readonly untilMs: number, message: string) {
    super(message);
    this.name = "JobDeferred";
  }
}

/** Runs of a job before it is dead-lettered. */
export const DEFAULT_MAX_ATTEMPTS = 8;

/** Waits before the 2nd, 3rd, … run of a failing job; the last one repeats. */
export const JOB_BACKOFF_MS = [1_000, 5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000];

/** How long a claim holds a job without renewal; the holder renews every third of it. */
export const JOB_LEASE_MS = 60_000;

/** Failures kept on a job, and the longest error text kept of each. */
export const MAX_JOB_ERRORS = 5;
export const MAX_JOB_ERROR_CHARS = 500;

/** The wait before the run after `attempt` failed runs, with up to ±20 % jitter. */
export function backoffMs(attempt: number, random = Math.random): number {
  const base = JOB_BACKOFF_MS[Math.min(Math.max(attempt, 1) - 1, JOB_BACKOFF_MS.length - 1)];
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Whether a value read back (from KV or a legacy queue) is a job message. */
export function isJobMessage(value: unknown): value is JobMessage {
  return typeof value === "object" && value !== null &&
    typeof (value as JobMessage).kind === "string";
}

/** The live layer's health, as the readiness route, the banner and the dashboard tell it. */
export const LiveStatus = z.object({
  ready: z.boolean().openapi({
    description: "Whether live work runs: a worker runs here and no due job has waited too long",
  }),
  worker: z.object({
    mode: z.enum(["loop", "cron", "off"]).openapi({
      description:
        "`loop`: this instance runs the job loop; `cron`: only Deno.cron drains due jobs (every minute); `off`: nothing runs jobs here",
    }),
    running: z.boolean(),
    lastCheckAt: z.string().nullable().openapi({
      description: "When this instance last looked for due jobs",
    }),
  }),
  oldestDueSeconds: z.number().nullable().openapi({
    description:
      "How long the oldest due job has waited (null: none is due), not counting tenants with a backlog nor outbound work (below)",
  }),
  outbound: z.object({
    oldestDueSeconds: z.number().nullable().openapi({
      description:
        "How long the oldest due webhook attempt or email (of a tenant without a backlog) has waited: it waits on third parties, their hosts' pauses and its turn, so a backlog here does not make the instance unready unless no job was started for the limit",
    }),
  }),
  backlog: z.object({
    tenants: z.number().int().openapi({
      description:
        "Organizations with more jobs due than they may run at once: their jobs wait their turn, so no one organization delays the others",
    }),
    oldestDueSeconds: z.number().nullable().openapi({
      description: "How long the oldest of their due jobs has waited",
    }),
  }),
  deadJobs: z.number().int().openapi({
    description: "Jobs that ran out of attempts and wait for an operator (counted up to 1000)",
  }),
  edge: z.object({
    purge: z.enum(["deno", "xkey", "none"]).openapi({
      description:
        "How changed public pages leave the cache in front: `deno` (Deno Deploy's CDN), `xkey` (Varnish), `none`",
    }),
    failingPurges: z.array(z.object({
      organizationId: z.string(),
      error: z.string(),
      at: z.string(),
    })).openapi({
      description: "Organizations whose last purge was not acknowledged (retried with backoff)",
    }),
  }),
  problems: z.array(z.string()).openapi({ description: "Why it is not ready, in words" }),
  storage: z.object({
    state: z.enum(["local", "proven", "acknowledged", "unproven"]).openapi({
      description:
        "Whether the KV outlives this isolate (docs/deploy.md): `local` (not Deno Deploy's default database), `proven` (an isolate read another's marker), `acknowledged` (KV_PERSISTENCE=assigned, not yet proven), `unproven` (accounts and evidence refused: 503)",
    }),
    writable: z.boolean(),
    action: z.string().nullable().openapi({ description: "What to do (null: nothing)" }),
  }).optional(),
}).openapi("LiveStatus");
export type LiveStatus = z.infer<typeof LiveStatus>;

/** A job as operators see it (dashboard, API). */
export const JobView = z.object({
  id: z.string(),
  kind: z.string().openapi({ description: "recompute, event, webhook-delivery or mail" }),
  state: z.enum(["scheduled", "running", "dead"]),
  summary: z.string().openapi({ description: "What the job does, in words" }),
  projectId: z.string().nullable(),
  attempt: z.number().int(),
  maxAttempts: z.number().int(),
  errors: z.array(z.object({ attempt: z.number().int(), at: z.string(), error: z.string() })),
  createdAt: z.string(),
  dueAt: z.string(),
  deadAt: z.string().nullable(),
}).openapi("Job");
export type JobView = z.infer<typeof JobView>;

export const JobListResponse = z.object({ jobs: z.array(JobView) }).openapi("JobList");
export const JobResponse = z.object({ job: JobView }).openapi("JobResponse");
