/**
 * Custom domains: add (with DNS TXT instructions), list, verify, delete.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import { notFound, validationFailed } from "../../domain/errors.ts";
import {
  CreateProjectDomainRequest,
  type ProjectDomain,
  ProjectDomainListResponse,
  ProjectDomainResponse,
} from "../../domain/publish.ts";
import { randomToken } from "../../lib/encoding.ts";
import { checkTxtVerification, DnsLookupError } from "../../publish/dns.ts";
import {
  normalizeDomain,
  verificationRecordName,
  verificationRecordValue,
} from "../../publish/domain_name.ts";
import {
  createDomain,
  deleteDomain,
  getDomainEntry,
  listDomainsByProject,
  updateDomain,
} from "../../store/domains.ts";
import { requireHuman, requireProjectAccess } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const domainRoutes = createRouter();

const tags = ["Custom domains"];
const ProjectParams = z.object({ id: uuidParam("id") });
const DomainParams = z.object({
  projectId: uuidParam("projectId"),
  domainId: uuidParam("domainId"),
});

/** A domain with the DNS record that proves control of it. */
export function summarize(domain: ProjectDomain) {
  return {
    domain,
    instructions: {
      method: "dns_txt" as const,
      recordName: verificationRecordName(domain.domain),
      recordType: "TXT" as const,
      recordValue: verificationRecordValue(domain.verificationToken),
    },
  };
}

domainRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/domains",
    operationId: "listProjectDomains",
    tags,
    summary: "Custom domains of a project, with verification instructions",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: json(ProjectDomainListResponse, "The project and its domains"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const domains = await listDomainsByProject(c.var.services.kv, project.id);
    return c.json({ project, domains: domains.map(summarize) }, 200);
  },
);

domainRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{id}/domains",
    operationId: "addProjectDomain",
    tags,
    summary: "Add a custom domain; publish the TXT record it returns, then verify",
    description:
      "The name is normalized (case, trailing dot, IDNA). A domain belongs to at most one project: 409 when it is taken.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, body: jsonBody(CreateProjectDomainRequest) },
    responses: {
      201: json(ProjectDomainResponse, "The pending domain and its DNS instructions"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    let name: string;
    try {
      name = normalizeDomain(c.req.valid("json").domain);
    } catch (error) {
      throw validationFailed(`Field "domain": ${(error as Error).message}`);
    }
    const { kv, clock } = c.var.services;
    const at = clock.now().toISOString();
    const domain = await createDomain(kv, {
      id: crypto.randomUUID(),
      projectId: project.id,
      domain: name,
      verificationStatus: "pending",
      verificationMethod: "dns_txt",
      verificationToken: randomToken(24),
      verifiedAt: null,
      lastCheckedAt: null,
      createdAt: at,
      updatedAt: at,
    });
    return c.json({ project, domain: summarize(domain) }, 201);
  },
);

domainRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{projectId}/domains/{domainId}/verify",
    operationId: "verifyProjectDomain",
    tags,
    summary: "Check the domain's TXT record now",
    description:
      "Looks up TXT at _service.<domain> (multi-part strings joined). A match verifies the domain; otherwise it stays pending, lastCheckedAt is set, and `check` shows what DNS answered.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: DomainParams },
    responses: {
      200: json(ProjectDomainResponse, "The domain after the check"),
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { projectId, domainId } = c.req.valid("param");
    const project = await requireProjectAccess(c, projectId);
    const { kv, clock, resolver } = c.var.services;
    const entry = await getDomainEntry(kv, domainId);
    if (!entry.value || entry.value.projectId !== project.id) throw notFound("No such domain");
    const current = entry.value;
    let check: { verified: boolean; found: string[]; expected: string; error?: string };
    try {
      check = await checkTxtVerification(resolver, current.domain, current.verificationToken);
    } catch (error) {
      if (!(error instanceof DnsLookupError)) throw error;
      check = {
        verified: false,
        found: [],
        expected: verificationRecordValue(current.verificationToken),
        error: error.message,
      };
    }
    const at = clock.now().toISOString();
    const next: ProjectDomain = check.verified
      ? {
        ...current,
        verificationStatus: "verified",
        verifiedAt: current.verifiedAt ?? at,
        lastCheckedAt: at,
        updatedAt: at,
      }
      : { ...current, lastCheckedAt: at, updatedAt: at };
    await updateDomain(kv, entry as Deno.KvEntry<ProjectDomain>, next);
    const body = { project, domain: summarize(next) };
    if (check.verified) return c.json(body, 200);
    const { found, expected, error } = check;
    return c.json({ ...body, check: { found, expected, ...(error ? { error } : {}) } }, 200);
  },
);

domainRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/projects/{projectId}/domains/{domainId}",
    operationId: "deleteProjectDomain",
    tags,
    summary: "Remove a custom domain; /trust/{projectSlug} keeps serving",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: DomainParams },
    responses: {
      204: { description: "Removed" },
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { projectId, domainId } = c.req.valid("param");
    const project = await requireProjectAccess(c, projectId);
    const { kv } = c.var.services;
    const domain = (await getDomainEntry(kv, domainId)).value;
    if (!domain || domain.projectId !== project.id) throw notFound("No such domain");
    await deleteDomain(kv, domain);
    return c.body(null, 204);
  },
);
