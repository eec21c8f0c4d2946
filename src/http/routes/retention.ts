/**
 * Evidence retention and storage usage (docs/lifecycle.md): the retention setting of a
 * project and of an organization (members read, owners change), pruning a project now
 * (owners), and the usage report of an organization's projects (members).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import type { Project } from "../../domain/workspace.ts";
import {
  PruneResponse,
  type RetentionPolicy,
  RetentionResponse,
  RetentionSetting,
  UsageResponse,
} from "../../domain/retention.ts";
import { effectiveRetention, pruneProject } from "../../lifecycle/retention.ts";
import { schedulePruning } from "../../lifecycle/prune_job.ts";
import { organizationUsage } from "../../lifecycle/usage.ts";
import {
  getOrganizationRetention,
  getProjectRetention,
  setOrganizationRetention,
  setProjectRetention,
} from "../../store/retention.ts";
import { requireHuman, requireMembership, requireProjectAccess } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const retentionRoutes = createRouter();

const tags = ["Retention"];
const ProjectParams = z.object({ id: uuidParam("id") });
const OrgParams = z.object({ organizationId: uuidParam("organizationId") });

const RULE = "Always kept: the latest record of each evidence type (the 10 newest VEX " +
  "documents) and every record a published version cites. Otherwise a record is kept while " +
  "it was observed within `days`, or is among the newest `recordsPerType` of its type, " +
  "whichever keeps more. A null value inherits: project → organization → the service's " +
  "EVIDENCE_RETENTION_DAYS and EVIDENCE_RETENTION_RECORDS.";

/** The policy an organization's projects inherit (no project setting). */
function organizationPolicy(
  services: { kv: Deno.Kv; config: Parameters<typeof effectiveRetention>[1] },
  organizationId: string,
): Promise<RetentionPolicy> {
  return effectiveRetention(services.kv, services.config, { id: "", organizationId });
}

retentionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/retention",
    operationId: "getProjectRetention",
    tags,
    summary: "A project's evidence retention: its setting and the policy in effect (members)",
    description: RULE,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: { 200: json(RetentionResponse, "The setting and policy"), ...errors(401, 403) },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const { kv, config } = c.var.services;
    const [setting, effective] = await Promise.all([
      getProjectRetention(kv, project.id),
      effectiveRetention(kv, config, project),
    ]);
    return c.json({ retention: { setting, effective } }, 200);
  },
);

retentionRoutes.openapi(
  createRoute({
    method: "put",
    path: "/projects/{id}/retention",
    operationId: "setProjectRetention",
    tags,
    summary: "Set a project's evidence retention (owners)",
    description: RULE,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, body: jsonBody(RetentionSetting) },
    responses: {
      200: json(RetentionResponse, "The new setting and policy"),
      ...errors(400, 401, 403, 413, 415),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    await requireMembership(c, project.organizationId, "owner");
    const { kv, config } = c.var.services;
    const setting = c.req.valid("json");
    await setProjectRetention(kv, project.id, setting);
    const effective = await effectiveRetention(kv, config, project);
    return c.json({ retention: { setting, effective } }, 200);
  },
);

retentionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/retention",
    operationId: "getOrganizationRetention",
    tags,
    summary: "An organization's default evidence retention (members)",
    description: `The default of its projects. ${RULE}`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: { 200: json(RetentionResponse, "The setting and policy"), ...errors(401, 403) },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    const { kv } = c.var.services;
    const setting = await getOrganizationRetention(kv, organizationId);
    const effective = await organizationPolicy(c.var.services, organizationId);
    return c.json({ retention: { setting, effective } }, 200);
  },
);

retentionRoutes.openapi(
  createRoute({
    method: "put",
    path: "/organizations/{organizationId}/retention",
    operationId: "setOrganizationRetention",
    tags,
    summary: "Set an organization's default evidence retention (owners)",
    description: `The default of its projects. ${RULE}`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: jsonBody(RetentionSetting) },
    responses: {
      200: json(RetentionResponse, "The new setting and policy"),
      ...errors(400, 401, 403, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId, "owner");
    const { kv } = c.var.services;
    const setting = c.req.valid("json");
    await setOrganizationRetention(kv, organizationId, setting);
    const effective = await organizationPolicy(c.var.services, organizationId);
    return c.json({ retention: { setting, effective } }, 200);
  },
);

retentionRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{id}/retention/prune",
    operationId: "pruneProjectEvidence",
    tags,
    summary: "Prune a project's evidence now (owners)",
    description:
      "Removes up to 1,000 records the retention no longer keeps in this request; when more remain (`complete: false`) the pruning job goes on with them at once. The payloads go with the blob collector's next cycle. Pruning also runs daily by itself.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: { 200: json(PruneResponse, "What this run removed"), ...errors(401, 403) },
  }),
  async (c) => {
    const project: Project = await requireProjectAccess(c, c.req.valid("param").id);
    await requireMembership(c, project.organizationId, "owner");
    const { services } = c.var;
    const result = await pruneProject(services, project);
    if (!result.complete) {
      const now = services.clock.now();
      await schedulePruning(services.kv, project, { now, dueAt: now.getTime() });
    }
    return c.json(result, 200);
  },
);

retentionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/usage",
    operationId: "getOrganizationUsage",
    tags,
    summary: "Storage per project: records, blob bytes, KV bytes and the next prune (members)",
    description:
      "Measured when asked: it reads every evidence record and published version of the organization's projects. `kvBytes` is an estimate (the V8-serialized size of keys and values, as Deno KV measures values); `blobBytes` counts each distinct blob a project names once (a blob shared between projects counts in each). `nextPrune` is what pruning would remove now.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: { 200: json(UsageResponse, "The report"), ...errors(401, 403) },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    return c.json(await organizationUsage(c.var.services, organizationId), 200);
  },
);
