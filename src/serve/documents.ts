/**
 * Trust center documents: accepting uploaded bytes (sniffed, size-limited, stored
 * content-addressed under the blob kind "document"), the public list and public downloads.
 * Restricted documents are never served here; only access links (access_requests.ts) serve
 * them.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { Config } from "../config.ts";
import {
  DOCUMENT_TYPES,
  MAX_DOCUMENT_BYTES,
  MAX_PDF_PAGES,
  type PublicDocument,
  type PublicDocuments,
  type PublicProjectDocuments,
  type TrustDocument,
  type UploadDocumentQuery,
} from "../domain/documents.ts";
import type { Organization, Project } from "../domain/workspace.ts";
import {
  AppError,
  badRequest,
  forbidden,
  notFound,
  unavailable,
  validationFailed,
} from "../domain/errors.ts";
import { sniffDocumentType } from "../lib/document_type.ts";
import { sha256Hex } from "../lib/hash.ts";
import type { Limiter } from "../lib/limiter.ts";
import { publicUrls, trustCenterUrl } from "../publish/urls.ts";
import {
  addDocument,
  checkDocumentRoom,
  currentNda,
  getDocument,
  listDocuments,
} from "../store/documents.ts";
import { wasDocumentDeleted, withdrawnProjectIds } from "../store/deletions.ts";
import { getOrganization, getOrganizationBySlug } from "../store/organizations.ts";
import { getProject } from "../store/projects.ts";
import {
  type GoneState,
  projectIdGoneState,
  publicProject,
  type PublicReads,
} from "./public_read.ts";
import { countPdfPages } from "./watermark.ts";

/** Seconds an upload turned away by the full PDF work limit is told to wait. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/** Whether a request path is a document upload, which may carry MAX_DOCUMENT_BYTES. */
export function isDocumentUploadPath(path: string): boolean {
  return /^\/organizations\/[^/]+\/documents$/.test(path);
}

/**
 * Checks uploaded bytes, stores them and the document's metadata. The type is read from
 * the bytes (the declared Content-Type and any file name are not trusted): an empty body is
 * 400, more than MAX_DOCUMENT_BYTES 413, anything but a whole PDF, OOXML or OpenDocument
 * file 415, a PDF of more than MAX_PDF_PAGES pages 413 (its pages are counted under the
 * instance's PDF work limiter: 503 when that is full). A `projectId` must name a project of
 * the organization; an organization holding MAX_DOCUMENTS already is 409. Nothing is stored
 * when refused.
 */
export async function storeDocument(
  deps: { kv: Deno.Kv; blobs: BlobStore; stamping: Limiter },
  options: {
    organizationId: string;
    bytes: Uint8Array;
    query: UploadDocumentQuery;
    actor: { userId: string; email: string | null };
    now: Date;
  },
): Promise<TrustDocument> {
  const { bytes, query, organizationId } = options;
  if (bytes.byteLength === 0) throw badRequest("The request body must be the document's bytes");
  if (bytes.byteLength > MAX_DOCUMENT_BYTES) {
    throw new AppError(
      "payload_too_large",
      `A document may be at most ${MAX_DOCUMENT_BYTES} bytes`,
    );
  }
  const sniffed = sniffDocumentType(bytes);
  if ("refused" in sniffed) {
    throw new AppError(
      "unsupported_media_type",
      `Document refused: ${sniffed.refused} (PDF, DOCX, XLSX, PPTX, ODT, ODS or ODP)`,
    );
  }
  if (sniffed.type === "pdf") await checkPageCount(deps.stamping, bytes);
  await checkProject(deps.kv, organizationId, query.projectId ?? null);
  // Refused early when full, before the bytes are stored; addDocument checks it atomically.
  await checkDocumentRoom(deps.kv, organizationId);
  const sha256 = await sha256Hex(bytes);
  await deps.blobs.put("document", bytes);
  const at = options.now.toISOString();
  return await addDocument(deps.kv, organizationId, {
    id: crypto.randomUUID(),
    projectId: query.projectId ?? null,
    title: query.title,
    description: query.description ?? "",
    type: sniffed.type,
    contentType: DOCUMENT_TYPES[sniffed.type].contentType,
    size: bytes.byteLength,
    sha256,
    visibility: query.visibility,
    createdAt: at,
    updatedAt: at,
    createdBy: options.actor,
  });
}

/**
 * What an owner is told after a restricted document is stored while no NDA is set: buyers
 * see it by title and cannot ask for it. Undefined otherwise.
 */
export async function restrictedWithoutNda(
  kv: Deno.Kv,
  organizationId: string,
  document: TrustDocument,
): Promise<string | undefined> {
  if (document.visibility !== "restricted" || await currentNda(kv, organizationId)) return;
  if (document.unlisted) {
    return `No NDA is set, so the buyer cannot request "${document.title}" yet (it is unlisted: ` +
      "no public page names it). Set the NDA (PUT /organizations/{id}/nda, or Documents in the " +
      "dashboard), then send the buyer requestAccessUrl.";
  }
  return `No NDA is set, so buyers cannot request "${document.title}": the trust center lists it ` +
    'by title only, marked "Available on request (requests are not open yet)". Set the NDA ' +
    "(PUT /organizations/{id}/nda, or Documents in the dashboard) to open requests.";
}

/** Throws a 413 for a PDF of more than MAX_PDF_PAGES pages, a 503 when the limiter is full. */
async function checkPageCount(stamping: Limiter, bytes: Uint8Array): Promise<void> {
  const counted = await stamping.run(() => countPdfPages(bytes, MAX_PDF_PAGES));
  if (!counted.ran) {
    throw unavailable(
      "Too many PDFs are being processed right now; retry in a few seconds",
      BUSY_RETRY_AFTER_SECONDS,
    );
  }
  if (counted.value > MAX_PDF_PAGES) {
    throw new AppError(
      "payload_too_large",
      `A PDF may have at most ${MAX_PDF_PAGES} pages; this one has ${counted.value}`,
    );
  }
}

/** Throws a 400 unless `projectId` is null or a project of the organization. */
export async function checkProject(
  kv: Deno.Kv,
  organizationId: string,
  projectId: string | null,
): Promise<void> {
  if (projectId === null) return;
  const project = await getProject(kv, projectId);
  if (!project || project.organizationId !== organizationId) {
    throw validationFailed("projectId must name a project of this organization");
  }
}

/** The URLs of a document on the trust center. */
export function documentUrls(config: Pick<Config, "baseUrl">, orgSlug: string, id: string) {
  const center = trustCenterUrl(config as Config, orgSlug);
  return {
    download: `${center}/documents/${id}/download`,
    requestAccess: `${center}/documents/request?document=${id}`,
  };
}

/**
 * Where a buyer asks for documents that may be unlisted: the request form with them chosen.
 * The only way to reach an unlisted document, so the owner sends it to the buyer.
 */
export function requestUrlFor(
  config: Pick<Config, "baseUrl">,
  orgSlug: string,
  ids: readonly string[],
): string {
  return `${trustCenterUrl(config as Config, orgSlug)}/documents/request?document=${ids.join(",")}`;
}

/** A file name for a download: the title, made safe, with the type's extension. */
export function downloadFileName(document: TrustDocument): string {
  const base = document.title.normalize("NFKD").replace(/[^\w.-]+/g, "-")
    .replace(/^-+|(?<!-)-+$/g, "").slice(0, 80);
  return `${base || "document"}.${DOCUMENT_TYPES[document.type].extension}`;
}

/**
 * The documents the public may see listed, with the project each belongs to. Unlisted
 * documents are never among them: every public surface (pages, Markdown, JSON, MCP, answers'
 * citations, the public knowledge base) lists through here.
 */
export async function listedDocuments(
  kv: Deno.Kv,
  organizationId: string,
  options: { projectId?: string } = {},
): Promise<{ document: TrustDocument; project: Project | null }[]> {
  return (await visibleDocuments(kv, organizationId, options)).filter((item) =>
    !item.document.unlisted
  );
}

/**
 * The restricted documents a request may ask for: those listed, and the unlisted ones among
 * `named` (a buyer names them from the request URL the owner sent; nothing lists them).
 */
export async function requestableDocuments(
  kv: Deno.Kv,
  organizationId: string,
  named: readonly string[],
): Promise<{ document: TrustDocument; project: Project | null }[]> {
  const wanted = new Set(named);
  return (await visibleDocuments(kv, organizationId)).filter(({ document }) =>
    document.visibility === "restricted" && (!document.unlisted || wanted.has(document.id))
  );
}

/** The organization's documents of the whole organization or of a public project. */
async function visibleDocuments(
  kv: Deno.Kv,
  organizationId: string,
  options: { projectId?: string } = {},
): Promise<{ document: TrustDocument; project: Project | null }[]> {
  const documents = await listDocuments(kv, organizationId);
  const projects = new Map<string, Project | null>();
  // A project whose deletion is scheduled is withdrawn from public view: its documents too.
  const withdrawn = await withdrawnProjectIds(kv, [
    ...new Set(documents.flatMap((d) => d.projectId ? [d.projectId] : [])),
  ]);
  const listed = [];
  for (const document of documents) {
    if (options.projectId && document.projectId && document.projectId !== options.projectId) {
      continue;
    }
    if (document.projectId && withdrawn.has(document.projectId)) continue;
    if (document.projectId === null) {
      listed.push({ document, project: null });
      continue;
    }
    if (!projects.has(document.projectId)) {
      projects.set(document.projectId, await getProject(kv, document.projectId));
    }
    const project = projects.get(document.projectId);
    // A private project's documents stay off the public trust center.
    if (project && project.visibility === "public") listed.push({ document, project });
  }
  return listed;
}

/** A listed document as the public sees it. */
export function presentPublic(
  config: Pick<Config, "baseUrl">,
  org: Organization,
  item: { document: TrustDocument; project: Project | null },
): PublicDocument {
  const { document, project } = item;
  const urls = documentUrls(config, org.slug, document.id);
  const isPublic = document.visibility === "public";
  return {
    id: document.id,
    title: document.title,
    description: document.description,
    type: document.type,
    size: isPublic ? document.size : null,
    visibility: document.visibility,
    project: project ? { name: project.name, slug: project.slug } : null,
    updatedAt: document.updatedAt,
    downloadUrl: isPublic ? urls.download : null,
    requestAccessUrl: isPublic ? null : urls.requestAccess,
  };
}

/** The organization's public document list, or the trust center's 404. */
export async function publicDocuments(
  kv: Deno.Kv,
  orgSlug: string,
  options: { config: Pick<Config, "baseUrl"> },
): Promise<PublicDocuments & { organizationId: string }> {
  const org = await getOrganizationBySlug(kv, orgSlug);
  if (!org) throw notFound("No public trust center by that name");
  const [listed, nda] = await Promise.all([listedDocuments(kv, org.id), currentNda(kv, org.id)]);
  return {
    organizationId: org.id,
    organization: { name: org.name, slug: org.slug },
    documents: listed.map((item) => presentPublic(options.config, org, item)),
    acceptingRequests: nda !== null,
    nda: nda ? { version: nda.version, sha256: nda.sha256, text: nda.text } : null,
    url: `${trustCenterUrl(options.config as Config, org.slug)}/documents`,
  };
}

/**
 * A public project's documents page: the organization's documents and the project's own
 * (other projects' are left out), as the live Documents section lists them. Unknown and
 * private projects answer the trust pages' one 404.
 */
export async function publicProjectDocuments(
  reads: PublicReads & { config: Pick<Config, "baseUrl"> },
  slug: string,
): Promise<PublicProjectDocuments> {
  const project = await publicProject(reads, slug);
  const org = await getOrganization(reads.kv, project.organizationId);
  if (!org) throw notFound(`No public trust profile for "${slug.slice(0, 100)}"`);
  const [listed, nda] = await Promise.all([
    listedDocuments(reads.kv, org.id, { projectId: project.id }),
    currentNda(reads.kv, org.id),
  ]);
  return {
    project: { name: project.name, slug: project.slug },
    organization: { name: org.name, slug: org.slug },
    documents: listed.map((item) => presentPublic(reads.config, org, item)),
    acceptingRequests: nda !== null,
    url: publicUrls(reads.config, project.slug).documents,
    organizationDocumentsUrl: `${trustCenterUrl(reads.config as Config, org.slug)}/documents`,
  };
}

/**
 * A public document's bytes for its public URL, or why it is gone (its project withdrawn). A
 * restricted document is 403 (it is served only through an access link); an unknown one, or
 * one of a private project, 404.
 */
export async function readPublicDocument(
  deps: { kv: Deno.Kv; blobs: BlobStore },
  options: { orgSlug: string; documentId: string },
): Promise<{ gone: GoneState } | { gone: null; document: TrustDocument; bytes: Uint8Array }> {
  const org = await getOrganizationBySlug(deps.kv, options.orgSlug);
  const document = org ? await getDocument(deps.kv, org.id, options.documentId) : null;
  // A document of a project whose deletion is scheduled, under way or done answers 410 as the
  // project's other routes do (an organization's own deletion is answered before,
  // src/http/gone.ts); the deletion keeps a hash of its documents' ids, so it stays 410.
  if (org && !document && await wasDocumentDeleted(deps.kv, options.documentId)) {
    return { gone: { scheduled: false } };
  }
  const gone = document?.projectId ? await projectIdGoneState(deps.kv, document.projectId) : null;
  if (gone) return { gone };
  const listed = org && document
    ? (await listedDocuments(deps.kv, org.id)).some((item) => item.document.id === document.id)
    : false;
  if (!document || !listed) throw notFound("No document by that id");
  if (document.visibility !== "public") {
    throw forbidden("This document is restricted: request access from the trust center");
  }
  return { gone: null, document, bytes: await readDocumentBytes(deps.blobs, document) };
}

/** A document's stored bytes; a missing blob is an internal error, never an empty file. */
export async function readDocumentBytes(
  blobs: BlobStore,
  document: TrustDocument,
): Promise<Uint8Array> {
  const bytes = await blobs.get(`document/${document.sha256}`);
  if (!bytes) throw new AppError("internal", "The document's bytes are missing");
  return bytes;
}

/** Headers for serving a document's bytes as a download. */
export function downloadHeaders(document: TrustDocument, cache: string): Record<string, string> {
  return {
    "content-type": document.contentType,
    "content-disposition": `attachment; filename="${downloadFileName(document)}"`,
    "content-security-policy": "default-src 'none'; sandbox",
    "x-content-type-options": "nosniff",
    "cache-control": cache,
  };
}
