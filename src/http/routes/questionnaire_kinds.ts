/**
 * What a row of a buyer's questionnaire is: a reviewer makes a heading or an ignored row a
 * question (or a question a heading), over the rules that read the file (docs/questionnaires.md:
 * nothing is dropped silently; each row set aside shows its rule).
 */
import { createRoute } from "@hono/zod-openapi";
import {
  MAX_ROW_KINDS,
  QuestionnaireResponse,
  RowKindRequest,
  RowParams,
} from "../../domain/questionnaires.ts";
import { classifyRow } from "../../serve/questionnaires.ts";
import { organizationCaller, requireHuman } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const questionnaireKindRoutes = createRouter();

questionnaireKindRoutes.openapi(
  createRoute({
    method: "put",
    path: "/organizations/{organizationId}/questionnaires/{questionnaireId}/rows/{key}/kind",
    operationId: "classifyQuestionnaireRow",
    tags: ["Questionnaires"],
    summary: "Make a row a question, a heading or an ignored row (members)",
    description:
      `Over the rules that read the file (each row set aside lists its rule in setAside): the stored file is read again with the choice, every row matched anew, and decisions on rows that stay questions are kept. The key names any non-empty row of the sheets read (404 otherwise); a row without text in the question column cannot be a question (400). At most ${MAX_ROW_KINDS} rows per questionnaire are classified by hand (409).`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: RowParams, body: jsonBody(RowKindRequest) },
    responses: {
      200: json(QuestionnaireResponse, "The questionnaire with its rows read again"),
      ...errors(400, 401, 403, 404, 409, 413, 422),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId, key } = c.req.valid("param");
    const { organization } = await organizationCaller(c, organizationId);
    const questionnaire = await classifyRow(c.var.services, {
      organization,
      id: questionnaireId,
      key,
      kind: c.req.valid("json").kind,
      now: c.var.services.clock.now(),
    });
    return c.json({ questionnaire }, 200);
  },
);
