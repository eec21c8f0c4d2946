/**
 * The MCP tools of a buyer token (`Authorization: Bearer tpb_…` on POST /mcp): what the
 * token's buyer organization was granted on the one trust center that issued it, read through
 * the same functions as the REST buyer routes (src/serve/buyer_reads.ts), so the documents,
 * the refusals and the reads recorded in the access inventory and its summaries are the same
 * on both surfaces. They are registered only for a request with a valid buyer token; an
 * anonymous client sees the public tools alone.
 */
import { z } from "@hono/zod-openapi";
import type { BlobStore } from "../blobs/mod.ts";
import type { Config } from "../config.ts";
import { BuyerDocument, BuyerDocumentsResponse } from "../domain/buyers.ts";
import { Uuid } from "../domain/common.ts";
import { notFound } from "../domain/errors.ts";
import { OrgSlugParams } from "../domain/subprocessors.ts";
import type { Organization } from "../domain/workspace.ts";
import { encodeBase64 } from "../lib/encoding.ts";
import type { Limiter } from "../lib/limiter.ts";
import type { Logger } from "../lib/log.ts";
import {
  buyerDownloadUrl,
  downloadGrantedDocument,
  findGrantedDocument,
  listGrantedDocuments,
} from "../serve/buyer_reads.ts";
import type { BuyerCaller } from "../serve/buyers.ts";
import { toolInput } from "./tools.ts";

/** The trust center a buyer token belongs to and who presented it. */
export interface BuyerAccess {
  org: Organization;
  who: BuyerCaller;
  /** The request's time: grants and the token are judged at it, reads recorded at it. */
  now: Date;
}

/** What the buyer tools read with: the KV, blobs, PDF stamping and the base URL. */
export interface BuyerToolDeps {
  kv: Deno.Kv;
  config: Pick<Config, "baseUrl">;
  blobs: BlobStore;
  log: Logger;
  stamping: Limiter;
}

/**
 * The largest document (its stored size) a tool result carries inside itself, as base64 for
 * binary files; a larger one comes as a link to the REST download, fetched with the same token.
 */
export const MAX_EMBEDDED_DOCUMENT_BYTES = 2 * 1024 * 1024;

/** Document types whose bytes are text, returned as text rather than base64. */
const TEXT_TYPES = new Set(["csv", "jws"]);

/** One content block of a tool result (text, an embedded resource or a resource link). */
export type BuyerContent =
  | { type: "text"; text: string }
  | {
    type: "resource";
    resource: { uri: string; mimeType: string; text: string } | {
      uri: string;
      mimeType: string;
      blob: string;
    };
  }
  | {
    type: "resource_link";
    uri: string;
    name: string;
    title: string;
    mimeType: string;
    size: number;
    description: string;
  };

/** One buyer tool: its contract, the REST route it matches, and how it answers. */
export interface BuyerTool {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodObject;
  outputSchema: z.ZodObject;
  /** The buyer route with the same scope (and, for the list, the same body). */
  route: string;
  call(
    deps: BuyerToolDeps,
    access: BuyerAccess,
    input: Record<string, unknown>,
  ): Promise<{ structured: Record<string, unknown>; content: BuyerContent[] }>;
}

/** Refuses a trust center other than the token's: a token reads only where it was issued. */
function sameTrustCenter(access: BuyerAccess, orgSlug: string): void {
  if (orgSlug !== access.org.slug) {
    throw notFound(
      `This buyer token reads only the trust center that issued it (orgSlug ${access.org.slug}); it reads nothing of ${orgSlug}`,
    );
  }
}

const GrantedDocumentInput = OrgSlugParams.extend({ documentId: Uuid });

/** What get_granted_document answers beside its content blocks. */
export const GrantedDocumentResult = z.object({
  document: BuyerDocument,
  delivery: z.enum(["text", "blob", "link"]).openapi({
    description:
      "text: the document's text is in an embedded resource; blob: its bytes, base64, in an embedded resource; link: too large to embed, fetch downloadUrl with the same bearer token",
  }),
  maxEmbeddedBytes: z.number().int(),
});

const ABOUT_TOKEN =
  "Only with a buyer token (Authorization: Bearer tpb_…) issued by the trust center orgSlug names; another trust center's orgSlug gives an error result.";

/** The tools a buyer token adds, in the order an agent uses them. */
export const BUYER_TOOLS: readonly BuyerTool[] = [
  {
    name: "list_granted_documents",
    title: "Restricted documents your organization may read",
    description:
      `The restricted documents of a trust center that the caller's buyer organization is granted now (within a service token's scope), by title: each with its id, type, size, sha256, updatedAt, expiresAt (when the grant ends: ask the vendor again before then) and downloadUrl (the REST download, with the same bearer token). Each listing is recorded in the vendor's access inventory as a view of each document, as the REST list is. Same body as GET /public/trust/{orgSlug}/buyer/documents. ${ABOUT_TOKEN} An empty list means nothing is granted now: a person asks for access on the trust center's buyer page; never ask on anyone's behalf.`,
    inputSchema: toolInput(OrgSlugParams),
    outputSchema: BuyerDocumentsResponse,
    route: "/public/trust/{orgSlug}/buyer/documents",
    async call(deps, access, input) {
      const { orgSlug } = input as z.infer<typeof OrgSlugParams>;
      sameTrustCenter(access, orgSlug);
      const body = await listGrantedDocuments(deps, access.org, access.who, access.now);
      return { structured: body, content: [{ type: "text", text: JSON.stringify(body) }] };
    },
  },
  {
    name: "get_granted_document",
    title: "Read a restricted document your organization is granted",
    description:
      `One document the caller's buyer organization is granted now (documentId from list_granted_documents): its metadata as in the list, and its content as an embedded resource whose uri is its downloadUrl: the text of text formats (CSV, JWS), the bytes as base64 (blob) of others up to ${MAX_EMBEDDED_DOCUMENT_BYTES} bytes; a larger one comes as a resource_link to downloadUrl, to fetch with the same bearer token. A PDF is stamped with the reader (a service token's name and domain), as the REST download is, and every embedded read is recorded in the vendor's access inventory as a download. A document not granted now (never, expired, revoked, outside the token's scope) gives an error result. Same scope as GET /public/trust/{orgSlug}/buyer/documents/{documentId}. ${ABOUT_TOKEN}`,
    inputSchema: toolInput(GrantedDocumentInput),
    outputSchema: GrantedDocumentResult,
    route: "/public/trust/{orgSlug}/buyer/documents/{documentId}",
    async call(deps, access, input) {
      const { orgSlug, documentId } = input as z.infer<typeof GrantedDocumentInput>;
      sameTrustCenter(access, orgSlug);
      const { org, who, now } = access;
      const { grant, document } = await findGrantedDocument(deps.kv, org, who, documentId, now);
      const uri = buyerDownloadUrl(deps.config, org, document.id);
      const meta: z.infer<typeof BuyerDocument> = {
        id: document.id,
        title: document.title,
        description: document.description,
        type: document.type,
        size: document.size,
        sha256: document.sha256,
        updatedAt: document.updatedAt,
        expiresAt: grant.expiresAt,
        downloadUrl: uri,
      };
      const result = (delivery: "text" | "blob" | "link") => ({
        document: meta,
        delivery,
        maxEmbeddedBytes: MAX_EMBEDDED_DOCUMENT_BYTES,
      });
      if (document.size > MAX_EMBEDDED_DOCUMENT_BYTES) {
        // Not read here: the REST download records the read when the client fetches it.
        const structured = result("link");
        return {
          structured,
          content: [{ type: "text", text: JSON.stringify(structured) }, {
            type: "resource_link",
            uri,
            name: document.id,
            title: document.title,
            mimeType: document.contentType,
            size: document.size,
            description:
              `Too large to embed (over ${MAX_EMBEDDED_DOCUMENT_BYTES} bytes): GET it with the same Authorization header`,
          }],
        };
      }
      const bytes = await downloadGrantedDocument(deps, org, who, document, now);
      const text = TEXT_TYPES.has(document.type);
      const structured = result(text ? "text" : "blob");
      const resource = text
        ? { uri, mimeType: document.contentType, text: new TextDecoder().decode(bytes) }
        : { uri, mimeType: document.contentType, blob: encodeBase64(bytes) };
      return {
        structured,
        content: [{ type: "text", text: JSON.stringify(structured) }, {
          type: "resource",
          resource,
        }],
      };
    },
  },
];

/** What the server's instructions add for a buyer token. */
export function buyerInstructions(access: BuyerAccess): string {
  return `This request carries a buyer token of ${access.org.name}'s trust center (orgSlug ${access.org.slug}): list_granted_documents lists the restricted documents your organization may read now, get_granted_document reads one. They read nothing of other trust centers.`;
}
