/**
 * A buyer's own questions answered from an organization's public knowledge base, mounted at
 * /public/trust: the same body as the MCP tool answer_questionnaire. No sign-in; public answers
 * only (restricted ones by question), controls of public projects' published versions only.
 */
import { createRoute } from "@hono/zod-openapi";
import {
  AnswerQuestionnaireRequest,
  MAX_MCP_QUESTIONS,
  PublicQuestionnaireMatches,
} from "../../domain/questionnaires.ts";
import { OrgSlugParams } from "../../domain/subprocessors.ts";
import { publicQuestionnaireMatches } from "../../serve/questionnaire_public.ts";
import { createRouter } from "../env.ts";
import { errors, json, jsonBody, PUBLIC } from "../openapi.ts";

/** Mounted at /public/trust. */
export const publicQuestionnaireRoutes = createRouter();

publicQuestionnaireRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{orgSlug}/questionnaire-answers",
    operationId: "answerQuestionnaire",
    tags: ["Answers"],
    summary: "Match a buyer's questions against the public knowledge base",
    description:
      `Up to ${MAX_MCP_QUESTIONS} questions (text, and the questionnaire's own id when there is one, e.g. IAM-02.1): per question the public matches, best first, each with its score, why it matched (the questionnaire id, or the shared terms) and its citations (controls with their state in the latest published version, certifications, documents). A restricted answer is named by its question only (empty text, no citations). Deterministic: the same questions and data give the same body. The same body as the MCP tool answer_questionnaire.`,
    security: PUBLIC,
    request: { params: OrgSlugParams, body: jsonBody(AnswerQuestionnaireRequest) },
    responses: {
      200: json(PublicQuestionnaireMatches, "The matches, in the order of the questions"),
      ...errors(400, 404, 413, 415),
    },
  }),
  async (c) => {
    const { orgSlug } = c.req.valid("param");
    const { services } = c.var;
    const body = await publicQuestionnaireMatches(services, orgSlug, {
      questions: c.req.valid("json").questions,
      now: services.clock.now(),
    });
    c.header("cache-control", "no-store");
    return c.json(body, 200);
  },
);
