/**
 * A buyer's questionnaire, uploaded, reviewed and answered (docs/questionnaires.md): members
 * and owners upload, review, export and delete; owners save answers into the knowledge base
 * and share the answered file. Uploads are the file's raw bytes; the type is read from them.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { TrustAnswerResponse } from "../../domain/answers.ts";
import {
  AcceptRowsRequest,
  AcceptRowsResponse,
  DecideRowRequest,
  DEFAULT_QUESTIONNAIRES_PAGE,
  MAX_QUESTIONNAIRE_UPLOAD_BYTES,
  MAX_QUESTIONNAIRES_PER_ORGANIZATION,
  OrgParams,
  PageQuery,
  QuestionnaireListResponse,
  QuestionnaireParams,
  QuestionnaireResponse,
  QuestionnaireRowResponse,
  QuestionnaireRowsResponse,
  RowParams,
  RowsQuery,
  SaveAnswerRequest,
  UpdateQuestionnaireRequest,
  UploadQuestionnaireQuery,
} from "../../domain/questionnaires.ts";
import {
  acceptIdMatches,
  acceptRows,
  decideRow,
  rowsPage,
  saveRowAnswer,
} from "../../serve/questionnaire_rows.ts";
import {
  present,
  readQuestionnaire,
  updateQuestionnaire,
  uploadQuestionnaire,
} from "../../serve/questionnaires.ts";
import {
  deleteQuestionnaire,
  listDecisions,
  listQuestionnaires,
} from "../../store/questionnaires.ts";
import { organizationCaller, requireHuman } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const questionnaireRoutes = createRouter();

const tags = ["Questionnaires"];
const BASE = "/organizations/{organizationId}/questionnaires";
const File = z.string().max(MAX_QUESTIONNAIRE_UPLOAD_BYTES).openapi({ format: "binary" });
const UPLOAD_TYPES = [
  "application/octet-stream",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "text/csv",
];

questionnaireRoutes.openapi(
  createRoute({
    method: "post",
    path: BASE,
    operationId: "uploadQuestionnaire",
    tags,
    summary: "Upload a buyer's questionnaire (members)",
    description:
      `The file's raw bytes as the body (XLSX, or CSV in UTF-8, UTF-16 or Windows-1252), at most ${MAX_QUESTIONNAIRE_UPLOAD_BYTES} bytes; the type is read from the bytes. The question, id and answer columns are found by their headers (change them with PATCH), and every row is matched against the knowledge base at once. A file over a limit (size, sheets, rows, cells, or a zip bomb) is 413; not XLSX or CSV (legacy .xls, macro-enabled, encrypted) 415; malformed, or without a question column, 422. Nothing is stored when refused. At most ${MAX_QUESTIONNAIRES_PER_ORGANIZATION} per organization (409).`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: {
      params: OrgParams,
      query: UploadQuestionnaireQuery,
      body: {
        required: true,
        content: Object.fromEntries(UPLOAD_TYPES.map((type) => [type, { schema: File }])),
      },
    },
    responses: {
      201: json(QuestionnaireResponse, "The questionnaire as stored, with its coverage"),
      ...errors(400, 401, 403, 409, 413, 415, 422),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const { organization, actor } = await organizationCaller(c, organizationId);
    const questionnaire = await uploadQuestionnaire(c.var.services, {
      organization,
      bytes: new Uint8Array(await c.req.arrayBuffer()),
      name: c.req.valid("query").name,
      actor,
      now: c.var.services.clock.now(),
    });
    return c.json({ questionnaire }, 201);
  },
);

questionnaireRoutes.openapi(
  createRoute({
    method: "get",
    path: BASE,
    operationId: "listQuestionnaires",
    tags,
    summary: "The organization's questionnaires (members)",
    description:
      "Newest first, with their coverage, in pages (`limit` up to 100, default 50): pass nextCursor as cursor for the next.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, query: PageQuery },
    responses: {
      200: json(QuestionnaireListResponse, "A page of questionnaires"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await organizationCaller(c, organizationId);
    const { kv } = c.var.services;
    const query = c.req.valid("query");
    const page = await listQuestionnaires(kv, organizationId, {
      cursor: query.cursor,
      limit: query.limit ?? DEFAULT_QUESTIONNAIRES_PAGE,
    });
    const questionnaires = [];
    for (const record of page.values) {
      const { sheets: _s, columns: _c, flags: _f, setAside: _a, ...shown } = present(
        record,
        await listDecisions(kv, organizationId, record.id),
      );
      questionnaires.push(shown);
    }
    return c.json({ questionnaires, nextCursor: page.nextCursor }, 200);
  },
);

questionnaireRoutes.openapi(
  createRoute({
    method: "get",
    path: `${BASE}/{questionnaireId}`,
    operationId: "getQuestionnaire",
    tags,
    summary: "One questionnaire: sheets, columns, coverage and flags (members)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: QuestionnaireParams },
    responses: {
      200: json(QuestionnaireResponse, "The questionnaire"),
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId } = c.req.valid("param");
    await organizationCaller(c, organizationId);
    const questionnaire = await readQuestionnaire(
      c.var.services.kv,
      organizationId,
      questionnaireId,
    );
    return c.json({ questionnaire }, 200);
  },
);

questionnaireRoutes.openapi(
  createRoute({
    method: "patch",
    path: `${BASE}/{questionnaireId}`,
    operationId: "updateQuestionnaire",
    tags,
    summary: "Rename, or choose other columns and match again (members)",
    description:
      "With columns, the stored file is read again with them and every row matched anew; decisions on rows that still exist are kept.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: QuestionnaireParams, body: jsonBody(UpdateQuestionnaireRequest) },
    responses: {
      200: json(QuestionnaireResponse, "The questionnaire as stored"),
      ...errors(400, 401, 403, 404, 409, 413, 415, 422),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId } = c.req.valid("param");
    const { organization } = await organizationCaller(c, organizationId);
    const questionnaire = await updateQuestionnaire(c.var.services, {
      organization,
      id: questionnaireId,
      change: c.req.valid("json"),
      now: c.var.services.clock.now(),
    });
    return c.json({ questionnaire }, 200);
  },
);

questionnaireRoutes.openapi(
  createRoute({
    method: "delete",
    path: `${BASE}/{questionnaireId}`,
    operationId: "deleteQuestionnaire",
    tags,
    summary: "Delete a questionnaire and its review (members)",
    description:
      "Documents already shared from it stay until removed from the documents (their links keep working until they expire or are revoked).",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: QuestionnaireParams },
    responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404, 409) },
  }),
  async (c) => {
    const { organizationId, questionnaireId } = c.req.valid("param");
    await organizationCaller(c, organizationId);
    await deleteQuestionnaire(c.var.services.kv, organizationId, questionnaireId);
    return c.body(null, 204);
  },
);

questionnaireRoutes.openapi(
  createRoute({
    method: "get",
    path: `${BASE}/{questionnaireId}/rows`,
    operationId: "listQuestionnaireRows",
    tags,
    summary: "The rows with their suggestions and decisions (members)",
    description:
      "In the file's order (sheet, then row), in pages: pass nextCursor as cursor. status keeps only rows in one review state (unanswered: no suggestion reaches the threshold).",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: QuestionnaireParams, query: RowsQuery },
    responses: {
      200: json(QuestionnaireRowsResponse, "A page of rows"),
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId } = c.req.valid("param");
    await organizationCaller(c, organizationId);
    const page = await rowsPage(c.var.services.kv, organizationId, {
      id: questionnaireId,
      query: c.req.valid("query"),
    });
    return c.json(page, 200);
  },
);

questionnaireRoutes.openapi(
  createRoute({
    method: "patch",
    path: `${BASE}/{questionnaireId}/rows/{key}`,
    operationId: "decideQuestionnaireRow",
    tags,
    summary: "Accept, edit, reject a row, or set it back to pending (members)",
    description:
      "accepted takes a suggestion (default the best, index 0); edited takes the answer's text (Markdown, written as plain text in the export).",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: RowParams, body: jsonBody(DecideRowRequest) },
    responses: {
      200: json(QuestionnaireRowResponse, "The row with its decision"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId, key } = c.req.valid("param");
    const { actor } = await organizationCaller(c, organizationId);
    const row = await decideRow(c.var.services.kv, organizationId, {
      id: questionnaireId,
      key,
      request: c.req.valid("json"),
      actor,
      now: c.var.services.clock.now(),
    });
    return c.json({ row }, 200);
  },
);

questionnaireRoutes.openapi(
  createRoute({
    method: "post",
    path: `${BASE}/{questionnaireId}/accept-id-matches`,
    operationId: "acceptQuestionnaireIdMatches",
    tags,
    summary: "Accept every pending row whose best match is by questionnaire id (members)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: QuestionnaireParams },
    responses: {
      200: json(z.object({ accepted: z.int().min(0) }), "How many rows were accepted"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId } = c.req.valid("param");
    const { actor } = await organizationCaller(c, organizationId);
    const accepted = await acceptIdMatches(c.var.services.kv, organizationId, {
      id: questionnaireId,
      actor,
      now: c.var.services.clock.now(),
    });
    return c.json({ accepted }, 200);
  },
);

questionnaireRoutes.openapi(
  createRoute({
    method: "post",
    path: `${BASE}/{questionnaireId}/accept-rows`,
    operationId: "acceptQuestionnaireRows",
    tags,
    summary: "Accept chosen rows, or every pending row scoring at least a threshold (members)",
    description:
      "keys: the rows chosen; each with a best suggestion that is pending or rejected takes it. minScore: every pending row whose best suggestion scores at least minScore takes it (an id match scores 1). Edited and accepted rows are never changed.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: QuestionnaireParams, body: jsonBody(AcceptRowsRequest) },
    responses: {
      200: json(AcceptRowsResponse, "How many rows were accepted, and which"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId } = c.req.valid("param");
    const { actor } = await organizationCaller(c, organizationId);
    const keys = await acceptRows(c.var.services.kv, organizationId, {
      id: questionnaireId,
      request: c.req.valid("json"),
      actor,
      now: c.var.services.clock.now(),
    });
    return c.json({ accepted: keys.length, keys }, 200);
  },
);

questionnaireRoutes.openapi(
  createRoute({
    method: "post",
    path: `${BASE}/{questionnaireId}/rows/{key}/save-answer`,
    operationId: "saveQuestionnaireAnswer",
    tags,
    summary: "Save an accepted or edited row's answer into the knowledge base (owners)",
    description:
      "The accepted answer (or, for an edit, the answer claiming the row's id) gains the row's question id as a questionnaire id (CAIQ v4 when it is one, else other) and the edited text; otherwise a new answer is made with category and visibility. A row neither accepted nor edited is 409.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: RowParams, body: jsonBody(SaveAnswerRequest) },
    responses: {
      200: json(TrustAnswerResponse, "The answer as stored"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId, key } = c.req.valid("param");
    const { actor } = await organizationCaller(c, organizationId, "owner");
    const answer = await saveRowAnswer(c.var.services.kv, organizationId, {
      id: questionnaireId,
      key,
      request: c.req.valid("json"),
      actor,
      now: c.var.services.clock.now(),
    });
    return c.json({ answer }, 200);
  },
);
