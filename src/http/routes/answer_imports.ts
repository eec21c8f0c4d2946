/**
 * Past questionnaires into the knowledge base (owners): preview what an answered workbook or
 * CSV would create and merge, then import that very preview (docs/questionnaires.md).
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  AnswerImportPreview,
  AnswerImportQuery,
  AnswerImportResult,
} from "../../domain/answer_imports.ts";
import { MAX_QUESTIONNAIRE_UPLOAD_BYTES, OrgParams } from "../../domain/questionnaires.ts";
import { importAnswers, previewAnswerImport } from "../../serve/answer_imports.ts";
import { organizationCaller, requireHuman } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json } from "../openapi.ts";

export const answerImportRoutes = createRouter();

const tags = ["Answers"];
const BASE = "/organizations/{organizationId}/answer-imports";
const File = z.string().max(MAX_QUESTIONNAIRE_UPLOAD_BYTES).openapi({ format: "binary" });
const FILE_BODY = {
  required: true,
  content: Object.fromEntries(
    [
      "application/octet-stream",
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      "text/csv",
    ].map((type) => [type, { schema: File }]),
  ),
};

answerImportRoutes.openapi(
  createRoute({
    method: "post",
    path: `${BASE}/preview`,
    operationId: "previewAnswerImport",
    tags,
    summary: "Preview importing an answered questionnaire into the knowledge base (owners)",
    description:
      `The answered file's raw bytes (XLSX or CSV, any layout a questionnaire upload reads; at most ${MAX_QUESTIONNAIRE_UPLOAD_BYTES} bytes). Each question row with an answer (the answer column, and a Yes/No/NA choice column such as CAIQ's) becomes an item: a new answer, or merged into an answer the organization has with the same CAIQ or SIG id or the same question; rows of the file asking the same (id or words) or answered with the same text are one item. Every phrasing and its id (CAIQ, SIG or the buyer's own) is kept as an alias, which matching reads. Nothing is stored; confirm with POST ${BASE}?digest=….`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: FILE_BODY },
    responses: {
      200: json(AnswerImportPreview, "What the import would do"),
      ...errors(400, 401, 403, 413, 415, 422),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const { organization } = await organizationCaller(c, organizationId, "owner");
    const preview = await previewAnswerImport(c.var.services.kv, {
      organization,
      bytes: new Uint8Array(await c.req.arrayBuffer()),
    });
    return c.json(preview, 200);
  },
);

answerImportRoutes.openapi(
  createRoute({
    method: "post",
    path: BASE,
    operationId: "importAnswers",
    tags,
    summary: "Import an answered questionnaire into the knowledge base (owners)",
    description:
      "The same file as the preview, with its digest: the answers are created (restricted unless visibility says otherwise) and the phrasings and ids merged as the preview showed, leaving out the items listed in skip. A different file, or a knowledge base changed since the preview, is 409 (preview again); so is an import that would pass the organization's answer limit. Nothing is written when refused.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, query: AnswerImportQuery, body: FILE_BODY },
    responses: {
      201: json(AnswerImportResult, "The answers created and merged"),
      ...errors(400, 401, 403, 409, 413, 415, 422),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const { organization, actor } = await organizationCaller(c, organizationId, "owner");
    const query = c.req.valid("query");
    const result = await importAnswers(c.var.services.kv, {
      organization,
      bytes: new Uint8Array(await c.req.arrayBuffer()),
      digest: query.digest,
      visibility: query.visibility ?? "restricted",
      skip: new Set((query.skip ?? "").split(",").filter(Boolean).map(Number)),
      actor,
      now: c.var.services.clock.now(),
    });
    return c.json(result, 201);
  },
);
