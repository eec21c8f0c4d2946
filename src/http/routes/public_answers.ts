/**
 * An organization's public knowledge base of answers, mounted at /public/trust: the list and
 * its search (`?q=`) in JSON, HTML (a GET form, no script) and Markdown, and the answers keyed
 * by questionnaire id as CSV and XLSX downloads.
 */
import { ifNoneMatchHits } from "../../serve/artifacts.ts";
import type { Context } from "hono";
import { createRoute, z } from "@hono/zod-openapi";
import {
  AnswerExportQuery,
  AnswerSearchQuery,
  DEFAULT_ANSWERS_PAGE,
  MAX_ANSWERS_PAGE,
  MAX_EXPORT_BYTES,
  MAX_EXPORT_IDS,
  MAX_EXPORT_ROWS,
  PublicAnswers,
  QuestionnaireRef,
} from "../../domain/answers.ts";
import { validationFailed } from "../../domain/errors.ts";
import { ApiError } from "../../domain/common.ts";
import { OrgSlugParams } from "../../domain/subprocessors.ts";
import {
  answersCsp,
  renderAnswersHtml,
  renderAnswersMarkdown,
} from "../../publish/render/answers.ts";
import { trustCenterUrl } from "../../publish/urls.ts";
import { publicAnswers } from "../../serve/answers.ts";
import { answerExport } from "../../serve/answers_download.ts";
import { CSV_TYPE, XLSX_TYPE } from "../../serve/answers_export.ts";
import { MARKDOWN_TYPE, PUBLIC_CACHE, trustPageHeaders } from "../../serve/headers.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { negotiatedFormat, type PublicFormat } from "../negotiation.ts";
import { documentedJson, errors, json } from "../openapi.ts";
import { notModifiedHeaders } from "../compression.ts";
import { publicHeaders } from "../public_responses.ts";

/** Mounted at /public/trust. */
export const publicAnswerRoutes = createRouter();

const tags = ["Answers"];

/** The address of a page of the list at `base`, keeping the search and an explicit limit. */
function listUrl(
  base: string,
  query: { q: string | null; cursor?: string; limit?: number },
): string {
  const params = new URLSearchParams();
  if (query.q) params.set("q", query.q);
  if (query.cursor) params.set("cursor", query.cursor);
  if (query.limit !== undefined) params.set("limit", String(query.limit));
  const search = params.toString();
  return search ? `${base}?${search}` : base;
}

async function answerList(
  c: Context<AppEnv>,
  input: { slug: string; format: PublicFormat; query: AnswerSearchQuery },
) {
  const { kv, config } = c.var.services;
  const { format, query } = input;
  const { organizationId: _id, ...list } = await publicAnswers(kv, input.slug, {
    config,
    ...query,
  });
  publicHeaders(c);
  c.header("Vary", "Accept");
  const here = { q: list.query, cursor: query.cursor, limit: query.limit };
  const next = list.nextCursor ? { ...here, cursor: list.nextCursor } : null;
  const base = format === "json" ? list.url : `${list.url}.${format}`;
  if (next) c.header("Link", `<${listUrl(base, next)}>; rel="next"`);
  if (format === "json") return c.json(list, 200);
  const links = {
    center: trustCenterUrl(config, list.organization.slug),
    json: listUrl(list.url, here),
    markdown: listUrl(`${list.url}.md`, here),
    next: next ? listUrl(base, next) : null,
    first: query.cursor ? listUrl(base, { ...here, cursor: undefined }) : null,
  };
  if (format === "md") {
    return c.body(renderAnswersMarkdown(list, links), 200, { "content-type": MARKDOWN_TYPE });
  }
  const origin = new URL(config.baseUrl).origin;
  return c.body(renderAnswersHtml(list, links), 200, trustPageHeaders(answersCsp(origin)));
}

const ABOUT =
  `The organization's answers to security questions: public ones with their Markdown answer (and safe HTML) and the controls, documents and certifications they cite; restricted ones by question only, with where to request access. \`q\` searches the question, category, questionnaire ids and public answers' text (all words must match; best first). Pages of ${DEFAULT_ANSWERS_PAGE} answers (\`limit\` up to ${MAX_ANSWERS_PAGE}): pass nextCursor as cursor, with the same q, for the next; the answer links it (Link: rel="next").`;

publicAnswerRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/answers",
    operationId: "getOrganizationAnswers",
    tags,
    summary: "An organization's answers to security questions, searchable",
    description:
      `${ABOUT} JSON by default, HTML for Accept: text/html, Markdown for Accept: text/markdown; /answers.html and /answers.md choose explicitly. The same body as the MCP tool search_answers.`,
    request: { params: OrgSlugParams, query: AnswerSearchQuery },
    responses: {
      200: {
        content: {
          "application/json": { schema: PublicAnswers },
          "text/html": { schema: z.string() },
          "text/markdown": { schema: z.string() },
        },
        description: "The answers",
      },
      ...errors(400, 404),
    },
  }),
  async (c) => {
    const response = await answerList(c, {
      slug: c.req.valid("param").orgSlug,
      format: negotiatedFormat(c),
      query: c.req.valid("query"),
    });
    return documentedJson(PublicAnswers, response);
  },
);

for (
  const [suffix, type, operationId] of [
    ["html", "text/html", "getOrganizationAnswersPage"],
    ["md", "text/markdown", "getOrganizationAnswersMarkdown"],
  ] as const
) {
  publicAnswerRoutes.openapi(
    createRoute({
      method: "get",
      path: `/{orgSlug}/answers.${suffix}`,
      operationId,
      tags,
      summary: `An organization's answers as ${suffix === "html" ? "an HTML page" : "Markdown"}`,
      description: ABOUT,
      request: { params: OrgSlugParams, query: AnswerSearchQuery },
      responses: {
        200: { content: { [type]: { schema: z.string() } }, description: "The answers" },
        ...errors(400, 404),
      },
    }),
    async (c) =>
      await answerList(c, {
        slug: c.req.valid("param").orgSlug,
        format: suffix,
        query: c.req.valid("query"),
      }),
  );
}

/** The ids a buyer listed, checked like the ids answers carry; 400 for anything else. */
function wantedIds(query: AnswerExportQuery): string[] {
  if (query.ids === undefined) return [];
  if (!query.questionnaire) throw validationFailed("ids needs questionnaire (caiq-v4, sig, other)");
  const ids = [...new Set(query.ids.split(",").map((id) => id.trim()).filter(Boolean))];
  if (ids.length > MAX_EXPORT_IDS) {
    throw validationFailed(`ids: at most ${MAX_EXPORT_IDS} question ids`);
  }
  for (const id of ids) {
    const parsed = QuestionnaireRef.safeParse({ questionnaire: query.questionnaire, id });
    if (!parsed.success) {
      throw validationFailed(`ids: "${id.slice(0, 40)}": ${parsed.error.issues[0].message}`);
    }
  }
  return ids;
}

async function exportFile(
  c: Context<AppEnv>,
  input: { slug: string; query: AnswerExportQuery; format: "csv" | "xlsx" },
) {
  const { kv, config } = c.var.services;
  const { query, format } = input;
  const { bytes, etag, slug } = await answerExport(kv, input.slug, {
    config,
    format,
    questionnaire: query.questionnaire,
    wanted: wantedIds(query),
  });
  publicHeaders(c);
  const type = format === "csv" ? CSV_TYPE : XLSX_TYPE;
  if (ifNoneMatchHits(c.req.header("if-none-match"), etag)) {
    return c.body(
      null,
      304,
      notModifiedHeaders(c.req.raw, type, { etag, "cache-control": PUBLIC_CACHE }),
    );
  }
  return c.body(bytes, 200, {
    "content-type": type,
    "content-disposition": `attachment; filename="${slug}-answers.${format}"`,
    "x-content-type-options": "nosniff",
    etag,
  });
}

const EXPORT_ABOUT =
  `The public answers keyed by questionnaire id, one row per (questionnaire, question id, answer): Questionnaire, Question ID, Status (answered, restricted, no answer), Question, Answer (Markdown), Category, Citations, Answer URL. The ids listed are those the organization's answers carry, plus those given in \`ids\` (of \`questionnaire\`), which are marked "no answer" when no answer covers them; public answers without a questionnaire id follow, unless \`questionnaire\` is given. Restricted answers give their question and where to request access, never their text. The same data always gives the same bytes, computed once per change of the organization's public data. An export has at most ${MAX_EXPORT_ROWS} rows and ${
    MAX_EXPORT_BYTES / 1024 / 1024
  } MiB of cell text (413 beyond: narrow it with questionnaire and ids); 503 with Retry-After while the instance writes too many at once.`;

for (
  const [format, type, operationId, label] of [
    ["csv", "text/csv", "exportOrganizationAnswersCsv", "CSV (RFC 4180, UTF-8 with BOM, CRLF)"],
    ["xlsx", XLSX_TYPE, "exportOrganizationAnswersXlsx", "an XLSX workbook"],
  ] as const
) {
  publicAnswerRoutes.openapi(
    createRoute({
      method: "get",
      path: `/{orgSlug}/answers.${format}`,
      operationId,
      tags,
      summary: `An organization's public answers by questionnaire id, as ${label}`,
      description: EXPORT_ABOUT,
      request: { params: OrgSlugParams, query: AnswerExportQuery },
      responses: {
        200: {
          content: { [type]: { schema: z.string().openapi({ format: "binary" }) } },
          description: "The export, as an attachment",
        },
        304: { description: "Not modified (If-None-Match)" },
        ...errors(400, 404, 503),
        413: json(
          ApiError,
          "The export would exceed its budget of rows or text; narrow it with questionnaire and ids",
        ),
      },
    }),
    async (c) =>
      await exportFile(c, {
        slug: c.req.valid("param").orgSlug,
        query: c.req.valid("query"),
        format,
      }),
  );
}
