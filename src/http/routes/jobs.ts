/**
 * The live layer for operators: the readiness route (public, for load balancers and Deno
 * Deploy's health check) and an organization's dead-lettered jobs, which its members can see
 * and run again.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import { notFound } from "../../domain/errors.ts";
import { JobListResponse, JobResponse, LiveStatus } from "../../domain/jobs.ts";
import { deadJobsOf, jobConcerns, jobView, liveStatus } from "../../live/jobs_view.ts";
import { getJob, retryDeadJob } from "../../store/jobs.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json } from "../openapi.ts";

export const jobRoutes = createRouter();

const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
const JobParams = OrgParams.extend({
  jobId: z.string().max(60).regex(/^(recompute\.)?[0-9a-f-]{36}$/, "Not a job id").openapi({
    param: { name: "jobId", in: "path" },
  }),
});
const tags = ["Live work"];

jobRoutes.openapi(
  createRoute({
    method: "get",
    path: "/health/ready",
    operationId: "readiness",
    tags: ["Service"],
    summary: "Readiness probe: whether live work (recomputes, publishing, push) runs",
    description:
      "200 when a job worker runs on this instance (its loop, or Deno.cron), no due job has waited too long (120 s with the loop, 180 s with cron only) and, on Deno Deploy, the KV is not an unproven per-isolate memory (`storage`, docs/deploy.md); 503 otherwise, with the problems in words. Outbound work (webhook attempts, emails) and organizations with a backlog wait their turn and are reported apart (`outbound`, `backlog`): they make it 503 only when no job was started here for as long. `/health` only says the process answers.",
    responses: {
      200: json(LiveStatus, "Live work runs"),
      503: json(LiveStatus, "Live work is not running, or is behind"),
    },
  }),
  async (c) => {
    const status = await liveStatus(c.var.services);
    const storage = await c.var.services.storage?.check();
    if (storage) {
      status.storage = { state: storage.state, writable: storage.writable, action: storage.action };
      if (!storage.writable && storage.action) {
        status.problems.push(storage.action);
        status.ready = false;
      }
    }
    c.header("Cache-Control", "no-store");
    return status.ready ? c.json(status, 200) : c.json(status, 503);
  },
);

jobRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/jobs",
    operationId: "listDeadJobs",
    tags,
    summary: "Dead-lettered jobs of the organization (members)",
    description:
      "Jobs (recomputes, trust events, webhook deliveries, emails) of this organization's projects that failed every attempt, newest first, with their last errors.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: { 200: json(JobListResponse, "Dead jobs"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    return c.json({ jobs: await deadJobsOf(c.var.services.kv, organizationId) }, 200);
  },
);

jobRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/jobs/{jobId}/retry",
    operationId: "retryDeadJob",
    tags,
    summary: "Run a dead-lettered job again (members)",
    description:
      "The job is scheduled now with a fresh count of attempts; its earlier errors are kept. Jobs are idempotent, so running one again never repeats what it already did.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: JobParams },
    responses: { 200: json(JobResponse, "The job, scheduled"), ...errors(400, 401, 403, 404) },
  }),
  async (c) => {
    const { organizationId, jobId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    const { kv, clock } = c.var.services;
    const job = await getJob(kv, jobId);
    if (!job || job.state !== "dead" || !(await jobConcerns(kv, job, organizationId))) {
      throw notFound("No dead-lettered job with that id in this organization");
    }
    const retried = await retryDeadJob(kv, jobId, clock.now());
    if (!retried) throw notFound("No dead-lettered job with that id in this organization");
    return c.json({ job: jobView(retried, null) }, 200);
  },
);
