/**
 * Rule groups (docs/ads.md): the access rule of one project's restricted documents, between a
 * document's own rule and the trust center's rule for every restricted document. Members list
 * them; owners set and remove them.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ProjectAccessRule, ProjectAccessRulesResponse } from "../../domain/access_rules.ts";
import { PutAccessRuleRequest, ruleSettings } from "../../domain/buyers.ts";
import { uuidParam } from "../../domain/common.ts";
import { notFound } from "../../domain/errors.ts";
import {
  deleteProjectAccessRule,
  getProjectAccessRule,
  listProjectAccessRules,
  setProjectAccessRule,
} from "../../store/project_access_rules.ts";
import { getProject, listProjectsByOrganization } from "../../store/projects.ts";
import { requireHuman } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";
import { orgFor, OrgParams, tags } from "../buyer_admin.ts";

export const projectAccessRuleRoutes = createRouter();

const ProjectParams = OrgParams.extend({ projectId: uuidParam("projectId") });

/** The organization's project `projectId`, or 404. */
async function projectOf(kv: Deno.Kv, orgId: string, projectId: string) {
  const project = await getProject(kv, projectId);
  if (!project || project.organizationId !== orgId) throw notFound("No such project");
  return project;
}

projectAccessRuleRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/project-access-rules",
    operationId: "listProjectAccessRules",
    tags,
    summary: "The access rules set for projects' restricted documents (members)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: { 200: json(ProjectAccessRulesResponse, "The rules"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const org = await orgFor(c, c.req.valid("param").organizationId);
    const { kv } = c.var.services;
    const names = new Map(
      (await listProjectsByOrganization(kv, org.id)).map((p) => [p.id, p.name]),
    );
    const rules = (await listProjectAccessRules(kv, org.id))
      .filter((r) => names.has(r.projectId))
      .map((r) => ({ ...r, projectName: names.get(r.projectId)! }))
      .sort((a, b) => a.projectName.localeCompare(b.projectName));
    return c.json({ rules }, 200);
  },
);

projectAccessRuleRoutes.openapi(
  createRoute({
    method: "put",
    path: "/organizations/{organizationId}/project-access-rules/{projectId}",
    operationId: "putProjectAccessRule",
    tags,
    summary: "Set the access rule of a project's restricted documents (owners)",
    description:
      "Applies to every restricted document of the project without a rule of its own, ahead of the trust center's rule for every restricted document (access settings' defaultRule): a document's own rule, then its project's, then the trust center's. Modes, deny list and expiresInDays as for a document's rule (PUT …/access-rules/{documentId}); the buyer's explanation names the project's rule when it decided.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, body: jsonBody(PutAccessRuleRequest) },
    responses: {
      200: json(z.object({ rule: ProjectAccessRule }), "The rule"),
      ...errors(400, 401, 403, 404, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId, projectId } = c.req.valid("param");
    const org = await orgFor(c, organizationId, "owner");
    const { kv, clock } = c.var.services;
    await projectOf(kv, org.id, projectId);
    const body = c.req.valid("json");
    const rule = { projectId, ...ruleSettings(body, clock.now()) };
    await setProjectAccessRule(kv, org.id, rule);
    return c.json({ rule }, 200);
  },
);

projectAccessRuleRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/organizations/{organizationId}/project-access-rules/{projectId}",
    operationId: "deleteProjectAccessRule",
    tags,
    summary:
      "Remove a project's access rule (owners): its documents follow the trust center's rule",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      204: { description: "Removed" },
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { organizationId, projectId } = c.req.valid("param");
    const org = await orgFor(c, organizationId, "owner");
    const { kv } = c.var.services;
    await projectOf(kv, org.id, projectId);
    if (!(await getProjectAccessRule(kv, org.id, projectId))) {
      throw notFound("This project has no access rule");
    }
    await deleteProjectAccessRule(kv, org.id, projectId);
    return c.body(null, 204);
  },
);
