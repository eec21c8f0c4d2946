/**
 * Documents an organization shares from its trust center (reports, policies, certificates):
 * each `public` (listed and downloadable by anyone) or `restricted` (listed by title only,
 * downloadable through an access link granted on request). A restricted document may also be
 * `unlisted`: named on no public surface at all, asked for only at its own request URL (an
 * answered questionnaire names the buyer). A document belongs to the organization, optionally
 * to one of its projects.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, oneLine, Uuid } from "./common.ts";
import { plainText } from "./vendor.ts";

/** Largest document accepted (20 MiB). */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;
/**
 * Most pages a PDF may have: a recipient's first download through an access link stamps
 * every page (2 000 pages: 0.7–0.8 s; 20 000: 6.7 s and 400 MB on a 2-core machine).
 */
export const MAX_PDF_PAGES = 2000;
/** Most documents one organization may hold at once. */
export const MAX_DOCUMENTS = 100;

/** The document types accepted, with their media type and file extension. */
export const DOCUMENT_TYPES = {
  pdf: { contentType: "application/pdf", extension: "pdf" },
  docx: {
    contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    extension: "docx",
  },
  xlsx: {
    contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    extension: "xlsx",
  },
  pptx: {
    contentType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    extension: "pptx",
  },
  odt: { contentType: "application/vnd.oasis.opendocument.text", extension: "odt" },
  ods: { contentType: "application/vnd.oasis.opendocument.spreadsheet", extension: "ods" },
  odp: { contentType: "application/vnd.oasis.opendocument.presentation", extension: "odp" },
  /** An answered questionnaire shared from a CSV (never accepted as an upload). */
  csv: { contentType: "text/csv", extension: "csv" },
  /** A questionnaire's signed manifest, a compact JWS (never accepted as an upload). */
  jws: { contentType: "application/jose", extension: "jws" },
} as const;
export type DocumentType = keyof typeof DOCUMENT_TYPES;
/** The types an upload may be: the others are made by the service (shared questionnaires). */
export const UPLOADABLE_DOCUMENT_TYPES = [
  "pdf",
  "docx",
  "xlsx",
  "pptx",
  "odt",
  "ods",
  "odp",
] as const;
const TYPE_NAMES = Object.keys(DOCUMENT_TYPES) as [DocumentType, ...DocumentType[]];

export const DocumentVisibility = z.enum(["public", "restricted"]).openapi({
  description: "public: listed and downloadable by anyone; restricted: listed by title only",
});
export type DocumentVisibility = z.infer<typeof DocumentVisibility>;

const Title = oneLine(200).openapi({ example: "SOC 2 Type II report 2026" });
const Description = plainText(1000).openapi({ example: "Covers October 2025 to September 2026" });

export const TrustDocument = z.object({
  id: Uuid,
  projectId: Uuid.nullable().openapi({
    description: "The project it is about; null: the whole organization",
  }),
  title: z.string(),
  description: z.string(),
  type: z.enum(TYPE_NAMES),
  contentType: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  visibility: DocumentVisibility,
  unlisted: z.boolean().optional().openapi({
    description:
      "true: never listed on any public surface (trust center, project pages, Markdown, MCP, answers' citations); a restricted document shared only through access links, asked for at its own request URL, which the owner sends the buyer. Absent or false: listed as its visibility says",
  }),
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: z.object({ userId: Uuid, email: z.string().nullable() }),
}).openapi("TrustDocument");
export type TrustDocument = z.infer<typeof TrustDocument>;

/** The query of an upload; the body is the file's bytes. */
export const UploadDocumentQuery = z.object({
  title: Title,
  visibility: DocumentVisibility.default("restricted"),
  description: Description.optional(),
  projectId: Uuid.optional().openapi({ description: "Attach the document to this project" }),
});
export type UploadDocumentQuery = z.infer<typeof UploadDocumentQuery>;

export const UpdateDocumentRequest = z.strictObject({
  title: Title.optional(),
  description: Description.optional(),
  visibility: DocumentVisibility.optional(),
  projectId: Uuid.nullable().optional(),
}).refine((change) => Object.keys(change).length > 0, "Give at least one field to change")
  .openapi("UpdateDocumentRequest");
export type UpdateDocumentRequest = z.infer<typeof UpdateDocumentRequest>;

export const DocumentResponse = z.object({
  document: TrustDocument,
  warning: z.string().optional().openapi({
    description:
      "Present when the document is restricted while no NDA is set: what buyers see, and what to do",
  }),
}).openapi("DocumentResponse");
export const DocumentListResponse = z.object({
  documents: z.array(TrustDocument).openapi({ description: "By title" }),
}).openapi("DocumentListResponse");

/** A document as the public sees it: a restricted one has no download URL. */
export const PublicDocument = z.object({
  id: Uuid,
  title: z.string(),
  description: z.string(),
  type: z.enum(TYPE_NAMES),
  size: z.number().int().nullable().openapi({ description: "Null for restricted documents" }),
  visibility: DocumentVisibility,
  project: z.object({ name: z.string(), slug: z.string() }).nullable(),
  updatedAt: DateTime,
  downloadUrl: z.url().nullable().openapi({ description: "Public documents only" }),
  requestAccessUrl: z.url().nullable().openapi({ description: "Restricted documents only" }),
}).openapi("PublicDocument");
export type PublicDocument = z.infer<typeof PublicDocument>;

export const PublicDocuments = z.object({
  organization: z.object({ name: z.string(), slug: z.string() }),
  documents: z.array(PublicDocument).openapi({ description: "By title" }),
  acceptingRequests: z.boolean().openapi({
    description: "Whether restricted documents can be requested (an NDA is set)",
  }),
  nda: z.object({ version: z.number().int(), sha256: z.string(), text: z.string() }).nullable()
    .openapi({ description: "The NDA a request accepts (its current version); null: none" }),
  url: z.url(),
}).openapi("PublicDocuments");
export type PublicDocuments = z.infer<typeof PublicDocuments>;

/** A project's documents page: the organization's documents and the project's own. */
export const PublicProjectDocuments = z.object({
  project: z.object({ name: z.string(), slug: z.string() }),
  organization: z.object({ name: z.string(), slug: z.string() }),
  documents: z.array(PublicDocument).openapi({
    description:
      "By title: the project's own documents and the organization-wide ones (project null); other projects' are left out",
  }),
  acceptingRequests: z.boolean().openapi({
    description: "Whether restricted documents can be requested (an NDA is set)",
  }),
  url: z.url(),
  organizationDocumentsUrl: z.url().openapi({
    description: "Every document of the organization, with its NDA",
  }),
}).openapi("PublicProjectDocuments");
export type PublicProjectDocuments = z.infer<typeof PublicProjectDocuments>;

export const DocumentParams = z.object({
  orgSlug: z.string().min(1).max(100).openapi({ param: { name: "orgSlug", in: "path" } }),
  documentId: Uuid.openapi({ param: { name: "documentId", in: "path" } }),
});

/** A document download's content, in the OpenAPI shape: each accepted type, as bytes. */
export const DOCUMENT_DOWNLOAD_CONTENT = Object.fromEntries(
  Object.values(DOCUMENT_TYPES).map((t) => [
    t.contentType,
    { schema: z.string().openapi({ format: "binary" }) },
  ]),
);
