/**
 * Certifications and attestations of an organization: members read them, owners record,
 * change and remove them; the built-in frameworks and each organization's public list are
 * readable by anyone (the list is also the MCP tool get_certifications).
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  CERTIFICATION_FRAMEWORKS,
  CertificationFrameworkList,
  CertificationListResponse,
  CertificationResponse,
  CreateCertificationRequest,
  presentCertification,
  PublicCertifications,
  type StoredCertification,
  UpdateCertificationRequest,
} from "../../domain/certifications.ts";
import { uuidParam } from "../../domain/common.ts";
import { forbidden } from "../../domain/errors.ts";
import { OrgSlugParams } from "../../domain/subprocessors.ts";
import {
  changeCertification,
  createCertification,
  deleteCertification,
  publicCertifications,
} from "../../serve/certifications.ts";
import { listCertifications } from "../../store/certifications.ts";
import { listDocuments } from "../../store/documents.ts";
import { getOrganization } from "../../store/organizations.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";
import { publicHeaders } from "../public_responses.ts";
import type { Context } from "hono";

/** The operator API, mounted at the root. */
export const certificationRoutes = createRouter();
/** The public list of an organization, mounted at /public/trust. */
export const publicCertificationRoutes = createRouter();
/** The built-in frameworks, mounted at /public. */
export const certificationFrameworkRoutes = createRouter();

const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
const ItemParams = OrgParams.extend({ certificationId: uuidParam("certificationId") });
const tags = ["Certifications"];

/** Certifications as members see them, each saying whether the document it links is gone. */
async function present(
  kv: Deno.Kv,
  organizationId: string,
  list: readonly StoredCertification[],
  now: Date,
) {
  const linked = list.some((c) => c.documentId !== null);
  const existing = new Set(
    linked ? (await listDocuments(kv, organizationId)).map((d) => d.id) : [],
  );
  return list.map((c) =>
    presentCertification(c, now, {
      documentMissing: c.documentId !== null && !existing.has(c.documentId),
    })
  );
}

/** The caller as an owner of an existing organization; who the record names. */
async function owner(c: Context<AppEnv>, organizationId: string) {
  await requireMembership(c, organizationId, "owner");
  if (!(await getOrganization(c.var.services.kv, organizationId))) throw forbidden();
  return { userId: c.var.user.id, email: c.var.user.email ?? null };
}

certificationFrameworkRoutes.openapi(
  createRoute({
    method: "get",
    path: "/certification-frameworks",
    operationId: "listCertificationFrameworks",
    tags,
    summary: "The built-in frameworks a certification can name",
    description:
      "Each with its stable id (what `framework` takes), its name and how it is met. `other` takes a frameworkName.",
    responses: { 200: json(CertificationFrameworkList, "The frameworks, in display order") },
  }),
  (c) => {
    publicHeaders(c);
    return c.json({ frameworks: CERTIFICATION_FRAMEWORKS.map((f) => ({ ...f })) }, 200);
  },
);

certificationRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/certifications",
    operationId: "listCertifications",
    tags,
    summary: "The organization's certifications and attestations (members)",
    description:
      "Every one, private projects' included, with its status as of now: an achieved one past its expiry is expired.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: {
      200: json(CertificationListResponse, "The certifications"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    const { kv, clock } = c.var.services;
    const now = clock.now();
    const certifications = await present(
      kv,
      organizationId,
      await listCertifications(kv, organizationId),
      now,
    );
    return c.json({ certifications }, 200);
  },
);

certificationRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/certifications",
    operationId: "createCertification",
    tags,
    summary: "Record a certification or attestation (owners)",
    description:
      "A framework from GET /public/certification-frameworks (`other` with a frameworkName), in_progress or achieved, and optionally the auditor, dates (in order), scope, a document of the organization (the report) and an https registry URL. Shown at once on the trust pages as declared by the vendor, and signed into each version published after.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: jsonBody(CreateCertificationRequest) },
    responses: {
      201: json(CertificationResponse, "The certification as stored"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const actor = await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const now = clock.now();
    const stored = await createCertification(kv, {
      organizationId,
      request: c.req.valid("json"),
      actor,
      now,
    });
    return c.json({ certification: presentCertification(stored, now) }, 201);
  },
);

certificationRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/organizations/{organizationId}/certifications/{certificationId}",
    operationId: "updateCertification",
    tags,
    summary: "Change a certification (owners)",
    description:
      "Fields left out are kept; null clears one. The result must be consistent as a whole. Giving an expired one a later expiresAt makes it achieved again.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams, body: jsonBody(UpdateCertificationRequest) },
    responses: {
      200: json(CertificationResponse, "The certification as stored"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId, certificationId } = c.req.valid("param");
    const actor = await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const now = clock.now();
    const stored = await changeCertification(kv, {
      organizationId,
      id: certificationId,
      change: c.req.valid("json"),
      actor,
      now,
    });
    return c.json({ certification: presentCertification(stored, now) }, 200);
  },
);

certificationRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/organizations/{organizationId}/certifications/{certificationId}",
    operationId: "deleteCertification",
    tags,
    summary: "Remove a certification (owners)",
    description:
      "It leaves the trust pages at once; versions published while it was declared keep it in their trust.json.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams },
    responses: {
      200: json(CertificationResponse, "The certification that was removed"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, certificationId } = c.req.valid("param");
    await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const now = clock.now();
    const removed = await deleteCertification(kv, { organizationId, id: certificationId, now });
    const [certification] = await present(kv, organizationId, [removed], now);
    return c.json({ certification }, 200);
  },
);

publicCertificationRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/certifications",
    operationId: "getOrganizationCertifications",
    tags: ["Public trust"],
    summary: "An organization's certifications and attestations, as the vendor declares them",
    description:
      "The organization's own and its public projects', with the status as of now (an achieved one past its expiry is expired), the auditor, dates, scope, registry URL and the linked report (its digest, and a download or access-request link). Declared by the vendor, not verified by this service. The same body as the MCP tool get_certifications.",
    request: { params: OrgSlugParams },
    responses: {
      200: json(PublicCertifications, "The certifications"),
      ...errors(404),
    },
  }),
  async (c) => {
    const { kv, config, clock } = c.var.services;
    const body = await publicCertifications(kv, c.req.valid("param").orgSlug, {
      config,
      now: clock.now(),
    });
    publicHeaders(c);
    return c.json(body, 200);
  },
);
