/**
 * An organization's trust center documents, its click-through NDA and its access settings:
 * members read, owners upload, change and remove. Uploads are the file's raw bytes, sniffed
 * (the declared type is not trusted). The public side is in public_documents.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  DocumentSettings,
  NdaResponse,
  PutDocumentSettingsRequest,
  PutNdaRequest,
} from "../../domain/access_requests.ts";
import { uuidParam } from "../../domain/common.ts";
import {
  DOCUMENT_TYPES,
  DocumentListResponse,
  DocumentResponse,
  MAX_DOCUMENT_BYTES,
  MAX_PDF_PAGES,
  UpdateDocumentRequest,
  UPLOADABLE_DOCUMENT_TYPES,
  UploadDocumentQuery,
} from "../../domain/documents.ts";
import { forbidden } from "../../domain/errors.ts";
import { sha256HexSync } from "../../lib/hash.ts";
import { checkProject, restrictedWithoutNda, storeDocument } from "../../serve/documents.ts";
import {
  addNdaVersion,
  getDocumentSettings,
  listDocuments,
  listNdaVersions,
  removeDocument,
  setDocumentSettings,
  updateDocument,
} from "../../store/documents.ts";
import { getOrganization } from "../../store/organizations.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const documentRoutes = createRouter();

const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
const ItemParams = OrgParams.extend({ documentId: uuidParam("documentId") });
const tags = ["Documents"];
const File = z.string().max(MAX_DOCUMENT_BYTES).openapi({ format: "binary" });
const UPLOAD_TYPES = [
  "application/octet-stream",
  ...UPLOADABLE_DOCUMENT_TYPES.map((t) => DOCUMENT_TYPES[t].contentType),
];

/** The caller as an owner of an existing organization. */
async function owner(c: Context<AppEnv>, organizationId: string) {
  await requireMembership(c, organizationId, "owner");
  if (!(await getOrganization(c.var.services.kv, organizationId))) throw forbidden();
  return { userId: c.var.user.id, email: c.var.user.email ?? null };
}

documentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/documents",
    operationId: "listDocuments",
    tags,
    summary: "The organization's documents (members)",
    description:
      "Public and restricted, by title. The public list is GET /public/trust/{orgSlug}/documents.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: { 200: json(DocumentListResponse, "The documents"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    return c.json({ documents: await listDocuments(c.var.services.kv, organizationId) }, 200);
  },
);

documentRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/documents",
    operationId: "uploadDocument",
    tags,
    summary: "Upload a document (owners)",
    description:
      `The file's raw bytes as the body, at most ${MAX_DOCUMENT_BYTES} bytes (20 MiB); title, visibility (default restricted), description and projectId in the query. The type is read from the bytes, not from Content-Type or a name: a whole PDF, DOCX, XLSX, PPTX, ODT, ODS or ODP file is accepted; legacy .doc/.xls/.ppt, macro-enabled Office files, executables, HTML and anything else are 415. A PDF of more than ${MAX_PDF_PAGES} pages is 413 (every page is stamped at each recipient's first download). Counting a PDF's pages shares the instance's PDF work limit with stamping: when that is full the answer is 503 with Retry-After.`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: {
      params: OrgParams,
      query: UploadDocumentQuery,
      body: {
        required: true,
        content: Object.fromEntries(UPLOAD_TYPES.map((type) => [type, { schema: File }])),
      },
    },
    responses: {
      201: json(DocumentResponse, "The document as stored"),
      ...errors(400, 401, 403, 409, 413, 415, 503),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const actor = await owner(c, organizationId);
    const { kv, blobs, clock, stamping } = c.var.services;
    const document = await storeDocument({ kv, blobs, stamping }, {
      organizationId,
      bytes: new Uint8Array(await c.req.arrayBuffer()),
      query: c.req.valid("query"),
      actor,
      now: clock.now(),
    });
    const warning = await restrictedWithoutNda(kv, organizationId, document);
    return c.json({ document, ...(warning ? { warning } : {}) }, 201);
  },
);

documentRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/organizations/{organizationId}/documents/{documentId}",
    operationId: "updateDocument",
    tags,
    summary: "Change a document's title, description, visibility or project (owners)",
    description:
      "Fields left out are kept. Making a document restricted stops its public download at once; links already granted keep working until they expire or are revoked.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams, body: jsonBody(UpdateDocumentRequest) },
    responses: {
      200: json(DocumentResponse, "The document as stored"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId, documentId } = c.req.valid("param");
    await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const change = c.req.valid("json");
    if (change.projectId !== undefined) await checkProject(kv, organizationId, change.projectId);
    const document = await updateDocument(kv, organizationId, {
      id: documentId,
      change,
      now: clock.now(),
    });
    const warning = await restrictedWithoutNda(kv, organizationId, document);
    return c.json({ document, ...(warning ? { warning } : {}) }, 200);
  },
);

documentRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/organizations/{organizationId}/documents/{documentId}",
    operationId: "removeDocument",
    tags,
    summary: "Remove a document (owners)",
    description:
      "It leaves the lists at once; links that granted it no longer serve it. 409, naming the certifications, while a certification links it as its report: link another document there or clear its documentId first.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams },
    responses: {
      200: json(DocumentResponse, "The document that was removed"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, documentId } = c.req.valid("param");
    await owner(c, organizationId);
    const document = await removeDocument(c.var.services.kv, organizationId, documentId);
    return c.json({ document }, 200);
  },
);

documentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/nda",
    operationId: "getNda",
    tags,
    summary: "The organization's click-through NDA and its versions (members)",
    description:
      "current is null until an owner sets the text; restricted documents cannot be requested before.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: { 200: json(NdaResponse, "The NDA"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    const versions = await listNdaVersions(c.var.services.kv, organizationId);
    return c.json({ current: versions[0] ?? null, versions }, 200);
  },
);

documentRoutes.openapi(
  createRoute({
    method: "put",
    path: "/organizations/{organizationId}/nda",
    operationId: "putNda",
    tags,
    summary: "Set the NDA text: a new version (owners)",
    description:
      "Each different text becomes the next version, with the SHA-256 of its exact UTF-8 text; older versions are kept, because requests record the version they accepted. The same text as the current version adds nothing.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: jsonBody(PutNdaRequest) },
    responses: { 200: json(NdaResponse, "The NDA"), ...errors(400, 401, 403, 409, 413, 415) },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const actor = await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const { text } = c.req.valid("json");
    await addNdaVersion(kv, organizationId, {
      text,
      sha256: sha256HexSync(text),
      createdAt: clock.now().toISOString(),
      createdBy: actor,
    });
    const versions = await listNdaVersions(kv, organizationId);
    return c.json({ current: versions[0] ?? null, versions }, 200);
  },
);

documentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/document-settings",
    operationId: "getDocumentSettings",
    tags,
    summary: "Document access settings (members)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: { 200: json(DocumentSettings, "The settings"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    return c.json(await getDocumentSettings(c.var.services.kv, organizationId), 200);
  },
);

documentRoutes.openapi(
  createRoute({
    method: "put",
    path: "/organizations/{organizationId}/document-settings",
    operationId: "putDocumentSettings",
    tags,
    summary: "Set the auto-approved email domains (owners)",
    description:
      "A request whose work email is at one of these domains (exactly; subdomains are not included) is approved at once and its link emailed. Needs SMTP: without it such requests wait for an owner.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: jsonBody(PutDocumentSettingsRequest) },
    responses: {
      200: json(DocumentSettings, "The settings as stored"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await owner(c, organizationId);
    const domains = [...new Set(c.req.valid("json").autoApproveDomains)].sort();
    const settings = await setDocumentSettings(c.var.services.kv, organizationId, {
      autoApproveDomains: domains,
    });
    return c.json(settings, 200);
  },
);
