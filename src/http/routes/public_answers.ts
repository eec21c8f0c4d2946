/**
 * An organization's public knowledge base of answers, mounted at /public/trust: the list and
 * its search (`?q=`) in JSON, HTML (a GET form, no script) and Markdown, and the answers keyed
 * by questionnaire id as CSV and XLSX downloads.
 */
import type { Context } from "hono";
import { createRoute, z } from "@hono/zod-openapi";
import {
  AnswerExportQuery,
  AnswerSearchQuery,
  MAX_EXPORT_IDS,
  PublicAnswers,
  QuestionnaireRef,
} from "../../domain/answers.ts";
import { validationFailed } from "../../domain/errors.ts";
import { OrgSlugParams } from "../../domain/subprocessors.ts";
import { sha256HexSync } from "../../lib/hash.ts";
import {
  answersCsp,
  renderAnswersHtml,
  renderAnswersMarkdown,
} from "../../publish/render/answers.ts";
import { trustCenterUrl } from "../../publish/urls.ts";
import { exportRows, publicAnswers } from "../../serve/answers.ts";
import { answersCsv, answersXlsx, CSV_TYPE, XLSX_TYPE } from "../../serve/answers_export.ts";
import { MARKDOWN_TYPE, trustPageHeaders } from "../../serve/headers.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { negotiatedFormat, type PublicFormat } from "../negotiation.ts";
import { documentedJson, errors } from "../openapi.ts";
import { publicHeaders } from "../public_responses.ts";

/** Mounted at /public/trust. */
export const publicAnswerRoutes = createRouter();

const tags = ["Answers"];

async function answerList(c: Context<AppEnv>, slug: string, format: PublicFormat, q?: string) {
  const { kv, config } = c.var.services;
  const { organizationId: _id, ...list } = await publicAnswers(kv, slug, { config, q });
  publicHeaders(c);
  c.header("Vary", "Accept");
  if (format === "json") return c.json(list, 200);
  const search = list.query ? `?q=${encodeURIComponent(list.query)}` : "";
  const links = {
    center: trustCenterUrl(config, list.organization.slug),
    json: `${list.url}${search}`,
    markdown: `${list.url}.md${search}`,
  };
  if (format === "md") {
    return c.body(renderAnswersMarkdown(list, links), 200, { "content-type": MARKDOWN_TYPE });
  }
  const origin = new URL(config.baseUrl).origin;
  return c.body(renderAnswersHtml(list, links), 200, trustPageHeaders(answersCsp(origin)));
}

const ABOUT =
  "The organization's answers to security questions: public ones with their Markdown answer (and safe HTML) and the controls, documents and certifications they cite; restricted ones by question only, with where to request access. `q` searches the question, category, questionnaire ids and public answers' text (all words must match; best first).";

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
    const response = await answerList(
      c,
      c.req.valid("param").orgSlug,
      negotiatedFormat(c),
      c.req.valid("query").q,
    );
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
    async (c) => await answerList(c, c.req.valid("param").orgSlug, suffix, c.req.valid("query").q),
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
  const wanted = wantedIds(query);
  const { organizationId: _id, ...list } = await publicAnswers(kv, input.slug, { config });
  const rows = exportRows(list, {
    questionnaire: query.questionnaire,
    wanted,
    answerUrl: (id) => `${list.url}#answer-${id}`,
  });
  const lastChanged = list.answers.map((a) => a.updatedAt).sort().at(-1) ?? null;
  const bytes = format === "csv" ? answersCsv(rows) : await answersXlsx(rows, {
    organization: list.organization.name,
    source: list.url,
    lastChanged,
  });
  publicHeaders(c);
  return c.body(bytes, 200, {
    "content-type": format === "csv" ? CSV_TYPE : XLSX_TYPE,
    "content-disposition": `attachment; filename="${list.organization.slug}-answers.${format}"`,
    "x-content-type-options": "nosniff",
    etag: `"${sha256HexSync(bytes)}"`,
  });
}

const EXPORT_ABOUT =
  `The public answers keyed by questionnaire id, one row per (questionnaire, question id, answer): Questionnaire, Question ID, Status (answered, restricted, no answer), Question, Answer (Markdown), Category, Citations, Answer URL. The ids listed are those the organization's answers carry, plus those given in \`ids\` (of \`questionnaire\`), which are marked "no answer" when no answer covers them; public answers without a questionnaire id follow, unless \`questionnaire\` is given. Restricted answers give their question and where to request access, never their text. The same data always gives the same bytes.`;

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
        ...errors(400, 404),
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
