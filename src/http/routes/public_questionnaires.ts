/**
 * A buyer's own questions answered from an organization's public knowledge base, mounted at
 * /public/trust: the same body as the MCP tool answer_questionnaire. No sign-in; public answers
 * only (restricted ones by question), controls of public projects' published versions only.
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  AnswerQuestionnaireRequest,
  MAX_MCP_QUESTIONS,
  MAX_PUBLIC_MATCH_TEXT,
  MAX_PUBLIC_MATCHES_BYTES,
  PublicQuestionnaireMatches,
} from "../../domain/questionnaires.ts";
import { OrgSlugParams } from "../../domain/subprocessors.ts";
import {
  PUBLIC_MATCHING_RATE,
  publicMatchesJson,
  publicQuestionnaireMatches,
} from "../../serve/questionnaire_public.ts";
import { clientIp } from "../client_ip.ts";
import { createRouter } from "../env.ts";
import { errors, json, jsonBody, PUBLIC } from "../openapi.ts";

/** Error responses that carry a Retry-After header (seconds). */
function withRetryAfter<T extends Record<number, object>>(responses: T): T {
  const headers = z.object({
    "Retry-After": z.string().openapi({ description: "Seconds to wait before asking again" }),
  });
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [status, { ...response, headers }]),
  ) as T;
}

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
      `Up to ${MAX_MCP_QUESTIONS} questions (text, and the questionnaire's own id when there is one, e.g. IAM-02.1): per question the public matches, best first, each with its score, why it matched (the questionnaire id, or the shared terms) and its citations (controls with their state in the latest published version, certifications, documents). A restricted answer is named by its question only (empty text, no citations, restricted: true), is never best and is not counted in answered: a question only restricted answers reach has status restricted and requestAccessUrl, the trust center's access request form (null while the organization takes no requests). Deterministic: the same questions and data give the same body. The same body as the MCP tool answer_questionnaire. Bounded work: a text longer than ${MAX_PUBLIC_MATCH_TEXT} characters is cut at a word (truncated, fullTextUrl), and the body stays within ${MAX_PUBLIC_MATCHES_BYTES} bytes beyond the questions it repeats (then the suggestions after the first show a preview, and, last, questions are omitted: truncated is true). At most ${PUBLIC_MATCHING_RATE.perClient} calls per client address and ${PUBLIC_MATCHING_RATE.perOrganization} per organization in ${
        PUBLIC_MATCHING_RATE.windowMs / 1000
      } s (429 rate_limited with Retry-After beyond); the same questions against unchanged data are answered from a copy; a few matchings run at once per instance (503 unavailable with Retry-After beyond).`,
    security: PUBLIC,
    request: { params: OrgSlugParams, body: jsonBody(AnswerQuestionnaireRequest) },
    responses: {
      200: json(PublicQuestionnaireMatches, "The matches, in the order of the questions"),
      ...errors(400, 404, 413, 415),
      ...withRetryAfter(errors(429, 503)),
    },
  }),
  async (c) => {
    const { orgSlug } = c.req.valid("param");
    const { services } = c.var;
    const body = await publicQuestionnaireMatches(services, orgSlug, {
      questions: c.req.valid("json").questions,
      now: services.clock.now(),
      client: clientIp(c),
    });
    // Written a few results at a time: a body of 2 MiB is not one long stringify. The bytes
    // are JSON.stringify(body)'s (the route's typed JSON response, hence the cast).
    return c.body(publicMatchesJson(body), 200, {
      "content-type": "application/json",
      "cache-control": "no-store",
    }) as never;
  },
);
