/**
 * Custom domains: add (with DNS TXT instructions), list, verify, delete.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import { conflict, notFound, validationFailed } from "../../domain/errors.ts";
import {
  CreateProjectDomainRequest,
  domainClaimLapsesAt,
  isDomainClaimLapsed,
  PENDING_DOMAIN_DAYS,
  type ProjectDomain,
  ProjectDomainListResponse,
  ProjectDomainResponse,
} from "../../domain/publish.ts";
import { randomToken } from "../../lib/encoding.ts";
import { reservedNameConflict } from "../../store/deletions.ts";
import { checkTxtVerification, DnsLookupError } from "../../publish/dns.ts";
import {
  normalizeDomain,
  verificationRecordName,
  verificationRecordValue,
} from "../../publish/domain_name.ts";
import {
  createDomain,
  deleteDomain,
  getDomainByName,
  getDomainEntry,
  listDomainsPage,
  saveDomainCheck,
  saveVerifiedDomain,
} from "../../store/domains.ts";
import { requireHuman, requireProjectAccess } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";
import { LIST_PAGE_NOTE, listPageQuery } from "../../domain/list_page.ts";
import { linkNext, pageOf } from "../list_pages.ts";

export const domainRoutes = createRouter();

const tags = ["Custom domains"];
const ProjectParams = z.object({ id: uuidParam("id") });
const DomainParams = z.object({
  projectId: uuidParam("projectId"),
  domainId: uuidParam("domainId"),
});

/** A domain with the DNS record that proves control of it, and when a pending one lapses. */
export function summarize(domain: ProjectDomain) {
  return {
    domain,
    instructions: {
      method: "dns_txt" as const,
      recordName: verificationRecordName(domain.domain),
      recordType: "TXT" as const,
      recordValue: verificationRecordValue(domain.verificationToken),
    },
    expiresAt: domainClaimLapsesAt(domain),
  };
}

/** The message of a claim another project's verification beat. */
const takenMessage = (name: string) =>
  `Domain "${name}" has been verified by another project, whose TXT record was found first; this claim can no longer be verified`;

domainRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/domains",
    operationId: "listProjectDomains",
    tags,
    summary: "Custom domains of a project, with verification instructions",
    description: `Oldest first. ${LIST_PAGE_NOTE}`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, query: listPageQuery("Domains") },
    responses: {
      200: json(ProjectDomainListResponse, "The project and its domains"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const { kv, clock } = c.var.services;
    const page = pageOf("domains", c.req.valid("query"));
    const { values, nextCursor } = await listDomainsPage(kv, project.id, {
      now: clock.now(),
      ...page,
    });
    linkNext(c, nextCursor);
    return c.json({ project, domains: values.map(summarize), nextCursor }, 200);
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
      `The name is normalized (case, trailing dot, IDNA). The new domain is a pending claim: several projects may claim one name, and the first whose TXT record verifies gets it. 409 when the name is verified by a project (this one or another), already claimed by this project, or reserved: a deleted project's verified domain stays reserved until the operator releases it. A claim not verified within ${PENDING_DOMAIN_DAYS} days lapses (\`expiresAt\`).`,
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
      `Looks up TXT at _service.<domain> (multi-part strings joined). A match verifies the domain; otherwise it stays pending, lastCheckedAt is set, and \`check\` shows what DNS answered. 409 when another project verified the name first, or when a deleted project's verified domain left the name reserved (until the operator releases it); 404 also for a claim that lapsed (${PENDING_DOMAIN_DAYS} days unverified).`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: DomainParams },
    responses: {
      200: json(ProjectDomainResponse, "The domain after the check"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { projectId, domainId } = c.req.valid("param");
    const project = await requireProjectAccess(c, projectId);
    const { kv, clock, resolver } = c.var.services;
    const entry = await getDomainEntry(kv, domainId);
    if (!entry.value || entry.value.projectId !== project.id) throw notFound("No such domain");
    const current = entry.value;
    if (isDomainClaimLapsed(current, clock.now())) {
      throw notFound(
        `The claim on "${current.domain}" lapsed: it was not verified within ${PENDING_DOMAIN_DAYS} days; add the domain again`,
      );
    }
    const owner = await getDomainByName(kv, current.domain);
    if (owner && owner.id !== current.id) throw conflict(takenMessage(current.domain));
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
    const stored = entry as Deno.KvEntry<ProjectDomain>;
    const body = { project, domain: summarize(next) };
    if (check.verified) {
      const saved = await saveVerifiedDomain(kv, stored, next);
      if (saved === "taken") throw conflict(takenMessage(current.domain));
      if (saved === "reserved") throw reservedNameConflict("domain", current.domain);
      if (saved === "changed") {
        throw conflict(`Domain "${current.domain}" changed meanwhile; verify again`);
      }
      return c.json(body, 200);
    }
    // A concurrent check or verification that saved first wins; this one's result is still shown.
    await saveDomainCheck(kv, stored, next, clock.now());
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
    const { kv, clock } = c.var.services;
    const domain = (await getDomainEntry(kv, domainId)).value;
    if (!domain || domain.projectId !== project.id || isDomainClaimLapsed(domain, clock.now())) {
      throw notFound("No such domain");
    }
    await deleteDomain(kv, domain);
    return c.body(null, 204);
  },
);
