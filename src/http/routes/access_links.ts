/**
 * Access links, mounted at /documents/access: the page of what a link grants and each
 * document's download through it (logged; PDFs stamped with the recipient's email). An
 * unknown token is 404; an expired or revoked link 410.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ApiError, Uuid } from "../../domain/common.ts";
import { DOCUMENT_DOWNLOAD_CONTENT, DOCUMENT_TYPES } from "../../domain/documents.ts";
import { renderAccessPageHtml, renderMessageHtml } from "../../publish/render/documents.ts";
import { downloadThroughLink, openAccessLink, type OpenedLink } from "../../serve/access_links.ts";
import { restrictedAnswersSection } from "../../publish/render/answers.ts";
import { openedRestrictedAnswers } from "../../serve/answers.ts";
import { downloadHeaders } from "../../serve/documents.ts";
import { documentsCsp } from "../../publish/render/documents.ts";
import { trustPageHeaders } from "../../serve/headers.ts";
import { eraseAccessVisitor } from "../../lifecycle/visitor_erasure.ts";
import { clientIp } from "../client_ip.ts";
import { goneError } from "../../serve/public_read.ts";
import { type AppEnv, createRouter } from "../env.ts";

/** Mounted at /documents/access. */
export const accessLinkRoutes = createRouter();

const tags = ["Public trust"];
// Errors raised before a handler (validation) keep the JSON envelope.
const page = (description: string) => ({
  content: { "text/html": { schema: z.string() }, "application/json": { schema: ApiError } },
  description,
});
const Token = z.string().min(1).max(200).openapi({
  param: { name: "token", in: "path" },
  description: "The token from the emailed link",
});
const HEADERS = { ...trustPageHeaders(documentsCsp()), "cache-control": "no-store" };

/** The page for a link that does not open, with its status. */
function closed(c: Context<AppEnv>, opened: Exclude<OpenedLink, { state: "ok" }>) {
  if (opened.state === "unknown") {
    const body = renderMessageHtml(
      "Link not found",
      "This document link does not exist. Check that it was copied whole.",
    );
    return c.body(body, 404, HEADERS);
  }
  const why = opened.state === "expired"
    ? `This link expired on ${opened.link.expiresAt.slice(0, 10)}.`
    : "This link was revoked.";
  const body = renderMessageHtml(
    "Link no longer valid",
    `${why} Ask ${opened.org.name} for access again from its trust center.`,
  );
  return c.body(body, 410, HEADERS);
}

accessLinkRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{token}",
    operationId: "openAccessLink",
    tags,
    summary:
      "An access link's page: the documents it grants (and the restricted answers, when asked for)",
    request: { params: z.object({ token: Token }) },
    responses: {
      200: page("The documents, each with its download"),
      404: page("No link with this token"),
      410: page("The link expired or was revoked"),
    },
  }),
  async (c) => {
    const { token } = c.req.valid("param");
    const { kv, config, clock } = c.var.services;
    const opened = await openAccessLink(kv, token, clock.now());
    if (opened.state !== "ok") return closed(c, opened);
    const base = `${config.baseUrl}/documents/access/${encodeURIComponent(token)}`;
    const answers = opened.link.answers
      ? restrictedAnswersSection(await openedRestrictedAnswers(kv, opened.org, config))
      : undefined;
    const body = renderAccessPageHtml({
      answers,
      eraseAction: `${base}/erase`,
      organization: opened.org,
      link: opened.link,
      documents: opened.documents.map((d) => ({
        id: d.id,
        title: d.title,
        url: `${base}/${d.id}`,
        kind: `${DOCUMENT_TYPES[d.type].extension.toUpperCase()}${
          d.type === "pdf" ? ", stamped with your email" : ""
        }`,
      })),
    });
    return c.body(body, 200, {
      ...HEADERS,
      ...trustPageHeaders(documentsCsp(new URL(config.baseUrl).origin)),
      "cache-control": "no-store",
    });
  },
);

accessLinkRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{token}/erase",
    operationId: "eraseAccessVisitor",
    tags,
    summary: "Erase the visitor's data at this organization (the access page's button)",
    description:
      "The link's token proves the address: its requests, links (this one included) and download log entries at the organization are deleted, with the owners' notices about them and the copies of documents stamped for it. Works on an expired or revoked link too.",
    request: { params: z.object({ token: Token }) },
    responses: { 200: page("Erased"), 404: page("No link with this token") },
  }),
  async (c) => {
    const { kv, clock } = c.var.services;
    const opened = await openAccessLink(kv, c.req.valid("param").token, clock.now());
    if (opened.state === "unknown") return closed(c, opened);
    await eraseAccessVisitor(kv, { organizationId: opened.org.id, email: opened.link.email });
    const body = renderMessageHtml(
      "Your data was erased",
      `${opened.org.name} no longer holds your requests, links or download log. This link no longer works.`,
    );
    return c.body(body, 200, HEADERS);
  },
);

accessLinkRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{token}/{documentId}",
    operationId: "downloadThroughAccessLink",
    tags,
    summary: "Download one document through an access link (logged)",
    description:
      "The document as an attachment. A PDF is stamped on every page with `Provided to <email> on <date>` at the recipient's first download, and that stamped copy is kept and served again on their later downloads (the date is the first download's); if the PDF cannot be stamped, the original is served and the log says so. Office formats are not stamped. Stamping is bounded per instance: when its queue is full the answer is 503 with Retry-After and nothing is logged.",
    request: {
      params: z.object({
        token: Token,
        documentId: Uuid.openapi({ param: { name: "documentId", in: "path" } }),
      }),
    },
    responses: {
      200: {
        content: DOCUMENT_DOWNLOAD_CONTENT,
        description: "The document (Content-Type is its sniffed type)",
      },
      404: page("No link with this token, or the link does not grant this document"),
      410: page(
        "The link expired or was revoked, or the document's project was deleted or is scheduled for deletion (no-store)",
      ),
      503: {
        ...page("Too many PDFs are being stamped on this instance; retry after Retry-After"),
        headers: z.object({
          "Retry-After": z.string().openapi({ description: "Seconds to wait", example: "5" }),
        }),
      },
    },
  }),
  async (c) => {
    const { token, documentId } = c.req.valid("param");
    const { kv, blobs, log, clock, stamping } = c.var.services;
    const now = clock.now();
    const opened = await openAccessLink(kv, token, now);
    if (opened.state !== "ok") return closed(c, opened);
    const served = await downloadThroughLink({ kv, blobs, log, stamping }, {
      opened,
      documentId,
      ip: clientIp(c),
      now,
    });
    if (served.state === "busy") {
      const body = renderMessageHtml(
        "Busy, please retry",
        "Too many documents are being prepared right now. Try again in a few seconds.",
      );
      return c.body(body, 503, {
        ...HEADERS,
        "retry-after": String(served.retryAfterSeconds),
      });
    }
    if (served.state === "gone") {
      // As the project's own pages say it (src/http/gone.ts), as a page: links are opened in
      // browsers.
      const body = renderMessageHtml(
        served.gone.scheduled ? "Scheduled for deletion" : "Deleted",
        `${goneError("project", served.gone).message}.`,
      );
      return c.body(body, 410, { ...HEADERS, "cache-control": "no-store" });
    }
    if (served.state === "missing") {
      const body = renderMessageHtml(
        "Document not found",
        "This link does not grant that document.",
      );
      return c.body(body, 404, HEADERS);
    }
    return c.body(
      served.bytes as Uint8Array<ArrayBuffer>,
      200,
      downloadHeaders(served.document, "private, no-store"),
    );
  },
);
