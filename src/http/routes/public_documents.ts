/**
 * The public side of trust center documents, mounted at /public/trust: the list (JSON,
 * HTML, Markdown), public downloads, and the access request form with its JSON twin.
 * Restricted documents are never served here.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  AccessRequestForm,
  AccessRequestReceipt,
  SubmitAccessRequest,
} from "../../domain/access_requests.ts";
import { ApiError } from "../../domain/common.ts";
import {
  DOCUMENT_DOWNLOAD_CONTENT,
  DocumentParams,
  PublicDocuments,
} from "../../domain/documents.ts";
import { AppError, notFound } from "../../domain/errors.ts";
import { OrgSlugParams } from "../../domain/subprocessors.ts";
import {
  ANSWERS_CHOICE,
  documentsCsp,
  renderMessageHtml,
  renderRequestFormHtml,
} from "../../publish/render/documents.ts";
import { countRestrictedAnswers } from "../../serve/answers.ts";
import {
  renderDocumentsHtml,
  renderDocumentsMarkdown,
} from "../../publish/render/document_lists.ts";
import { submitAccessRequest } from "../../serve/access_requests.ts";
import {
  downloadHeaders,
  presentPublic,
  publicDocuments,
  readPublicDocument,
  requestableDocuments,
} from "../../serve/documents.ts";
import { trustPageHeaders } from "../../serve/headers.ts";
import { currentNda } from "../../store/documents.ts";
import { getOrganizationBySlug } from "../../store/organizations.ts";
import { clientIp } from "../client_ip.ts";
import { goneResponse } from "../gone.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { negotiatedFormat } from "../negotiation.ts";
import { errors, json, jsonBody } from "../openapi.ts";
import { publicHeaders } from "../public_responses.ts";

/** Mounted at /public/trust. */
export const publicDocumentRoutes = createRouter();

const tags = ["Public trust"];
// Errors raised before a handler (validation, body limit) keep the JSON envelope.
const HtmlPage = { "text/html": { schema: z.string() }, "application/json": { schema: ApiError } };
const page = (description: string) => ({ content: HtmlPage, description });
const RECEIVED = "Your request was received. You will get an email once it is approved.";

async function serveList(c: Context<AppEnv>, slug: string, markdown: boolean) {
  const { kv, config } = c.var.services;
  const { organizationId: _id, ...list } = await publicDocuments(kv, slug, { config });
  publicHeaders(c);
  c.header("Vary", "Accept");
  const center = list.url.slice(0, -"/documents".length);
  const format = negotiatedFormat(c, markdown ? "md" : undefined);
  if (format === "md") {
    return c.body(renderDocumentsMarkdown(list, center), 200, {
      "content-type": "text/markdown; charset=utf-8",
    });
  }
  if (format === "html") {
    return c.body(renderDocumentsHtml(list, center), 200, trustPageHeaders(documentsCsp()));
  }
  return c.json(list, 200);
}

publicDocumentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/documents",
    operationId: "getOrganizationDocuments",
    tags,
    summary: "An organization's documents: public ones downloadable, restricted ones by title",
    description:
      "JSON by default; HTML for Accept: text/html; Markdown for Accept: text/markdown or at `/public/trust/{orgSlug}/documents.md`. Documents of private projects are not listed.",
    request: { params: OrgSlugParams },
    responses: {
      200: {
        content: {
          "application/json": { schema: PublicDocuments },
          "text/html": { schema: z.string() },
          "text/markdown": { schema: z.string() },
        },
        description: "The documents",
      },
      ...errors(404),
    },
  }),
  (c) => serveList(c, c.req.valid("param").orgSlug, false),
);

publicDocumentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/documents.md",
    operationId: "getOrganizationDocumentsMarkdown",
    tags,
    summary: "An organization's documents as Markdown",
    request: { params: OrgSlugParams },
    responses: {
      200: { content: { "text/markdown": { schema: z.string() } }, description: "The documents" },
      ...errors(404),
    },
  }),
  (c) => serveList(c, c.req.valid("param").orgSlug, true),
);

publicDocumentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/documents/{documentId}/download",
    operationId: "downloadPublicDocument",
    tags,
    summary: "Download a public document",
    description:
      "The stored bytes as an attachment, with the type sniffed at upload, `nosniff` and a sandboxing CSP. A restricted document is 403: it is served only through an access link. A document of a project whose deletion is scheduled, or that was deleted, is 410 (`no-store`), as the project's own routes.",
    request: { params: DocumentParams },
    responses: {
      200: {
        content: DOCUMENT_DOWNLOAD_CONTENT,
        description: "The document (Content-Type is its sniffed type)",
      },
      ...errors(403, 404),
    },
  }),
  async (c) => {
    const { orgSlug, documentId } = c.req.valid("param");
    const { kv, blobs } = c.var.services;
    const read = await readPublicDocument({ kv, blobs }, { orgSlug, documentId });
    if (read.gone) return goneResponse(c.req.raw, "project", read.gone);
    const { document, bytes } = read;
    c.header("Access-Control-Allow-Origin", "*");
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, downloadHeaders(document, "no-store"));
  },
);

/**
 * The form for `slug`, or null when the organization takes no requests. It offers the listed
 * restricted documents and the unlisted ones `named` (from the request URL an owner sent).
 */
async function formInput(c: Context<AppEnv>, slug: string, named: readonly string[]) {
  const { kv, config } = c.var.services;
  const list = await publicDocuments(kv, slug, { config });
  const nda = await currentNda(kv, list.organizationId);
  if (!nda) return null;
  const org = await getOrganizationBySlug(kv, slug);
  if (!org) return null;
  const requestable = await requestableDocuments(kv, list.organizationId, named);
  return {
    list,
    nda,
    organization: list.organization,
    action: `${list.url}/request`,
    documents: requestable.map((item) => presentPublic(config, org, item)),
    restrictedAnswers: await countRestrictedAnswers(kv, list.organizationId),
  };
}

function formPage(
  c: Context<AppEnv>,
  body: string,
  status: 200 | 400 | 409 | 429,
  options: { sameForEveryone?: boolean } = {},
) {
  const origin = new URL(c.var.services.config.baseUrl).origin;
  // The empty form is the same for every visitor (no token, nothing of theirs): public, so the
  // compression middleware takes it, and revalidated on every use (no-cache) so a changed NDA or
  // document list shows at once. An answer to a submission echoes what was sent: no-store.
  const cache = options.sameForEveryone ? "public, no-cache" : "no-store";
  const headers = { ...trustPageHeaders(documentsCsp(origin)), "cache-control": cache };
  return c.body(body, status, headers);
}

const FormQuery = z.object({
  document: z.string().max(800).optional().openapi({
    description:
      "Documents to preselect: ids separated by commas (an unlisted one is offered only so)",
  }),
  answers: z.string().max(10).optional().openapi({
    description: "1 preselects the restricted answers",
  }),
});

publicDocumentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/documents/request",
    operationId: "accessRequestForm",
    tags,
    summary: "The access request form for restricted documents (HTML, no script)",
    request: { params: OrgSlugParams, query: FormQuery },
    responses: {
      200: page("The form with the NDA"),
      404: page("No such trust center, or it takes no requests (no NDA set)"),
    },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const named = (query.document ?? "").split(",").filter((id) => id !== "").slice(0, 20);
    const input = await formInput(c, c.req.valid("param").orgSlug, named).catch(() => null);
    if (!input) return notAvailable(c);
    const selected = [...named, ...(query.answers === "1" ? [ANSWERS_CHOICE] : [])];
    return formPage(c, renderRequestFormHtml({ ...input, selected }), 200, {
      sameForEveryone: true,
    });
  },
);

/** The page of a trust center that takes no requests (unknown, or no NDA set). */
function notAvailable(c: Context<AppEnv>) {
  return c.body(
    renderMessageHtml("Not available", "This trust center takes no document requests."),
    404,
    trustPageHeaders(documentsCsp()),
  );
}

function asList(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

publicDocumentRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{orgSlug}/documents/request",
    operationId: "submitAccessRequestForm",
    tags,
    summary: "Submit the access request form",
    description:
      "Records name, work email, company, the documents and the accepted NDA version (its hash, the time and the client address). Throttled per address and email. The answer is a confirmation page; the link itself only ever goes to the email.",
    request: {
      params: OrgSlugParams,
      body: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: AccessRequestForm } },
      },
    },
    responses: {
      200: page("The request was received"),
      400: page("The form again, with what to correct"),
      404: page("No such trust center, or it takes no requests"),
      409: page("The form again: requests are not open"),
      429: page("Too many requests; see Retry-After"),
    },
  }),
  async (c) => {
    const form = c.req.valid("form");
    const named = asList(form.documentIds);
    const input = await formInput(c, c.req.valid("param").orgSlug, named).catch(() => null);
    if (!input) return notAvailable(c);
    const center = input.list.url.slice(0, -"/documents".length);
    const done = renderMessageHtml("Request received", RECEIVED, center);
    // A filled honeypot is a bot: it sees the same answer, and nothing is stored.
    if (form.website) return formPage(c, done, 200);
    const wantsAnswers = form.answers === "true";
    const selected = [...asList(form.documentIds), ...(wantsAnswers ? [ANSWERS_CHOICE] : [])];
    const values = { name: form.name, email: form.email, company: form.company };
    const parsed = SubmitAccessRequest.safeParse({
      ...values,
      documentIds: asList(form.documentIds),
      ...(wantsAnswers ? { answers: true } : {}),
      ndaVersion: form.ndaVersion,
      acceptNda: form.acceptNda === "true",
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const error = `Please check ${issue.path.join(".") || "the form"}: ${issue.message}`;
      return formPage(c, renderRequestFormHtml({ ...input, selected, values, error }), 400);
    }
    try {
      await submit(c, input.list.organization.slug, parsed.data);
    } catch (error) {
      if (!(error instanceof AppError) || ![400, 409, 429].includes(error.status)) throw error;
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      const status = error.status as 400 | 409 | 429;
      return formPage(
        c,
        renderRequestFormHtml({ ...input, selected, values, error: error.message }),
        status,
      );
    }
    return formPage(c, done, 200);
  },
);

async function submit(c: Context<AppEnv>, slug: string, submission: SubmitAccessRequest) {
  const { kv, config, mailer, clock } = c.var.services;
  const org = await getOrganizationBySlug(kv, slug);
  if (!org) throw notFound("No public trust center by that name");
  return await submitAccessRequest({ kv, config, mailer }, {
    org,
    submission,
    ip: clientIp(c),
    now: clock.now(),
  });
}

publicDocumentRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{orgSlug}/access-requests",
    operationId: "submitAccessRequest",
    tags,
    summary: "Request access to restricted documents (JSON)",
    description:
      "The same as the form: acceptNda must be true and ndaVersion the current version (from the form page or GET /public/trust/{orgSlug}/documents). 202: recorded, pending or (for an auto-approved domain) approved and emailed; when that email fails, it stays pending for the operator.",
    request: { params: OrgSlugParams, body: jsonBody(SubmitAccessRequest) },
    responses: {
      202: json(AccessRequestReceipt, "Recorded"),
      ...errors(400, 404, 409, 413, 415, 429),
    },
  }),
  async (c) => {
    const request = await submit(c, c.req.valid("param").orgSlug, c.req.valid("json"));
    return c.json({ id: request.id, status: request.status, message: RECEIVED }, 202);
  },
);
