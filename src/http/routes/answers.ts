/**
 * An organization's answers to security questions: members read them, owners add, change
 * and remove them. The public knowledge base, its search and exports are in
 * public_answers.ts.
 */
import type { Context } from "hono";
import { createRoute, z } from "@hono/zod-openapi";
import {
  AnswerPageQuery,
  CreateAnswerRequest,
  DEFAULT_ANSWERS_PAGE,
  EditAnswerRequest,
  MAX_ANSWERS_PAGE,
  MAX_ANSWERS_PER_ORGANIZATION,
  TrustAnswerListResponse,
  TrustAnswerResponse,
} from "../../domain/answers.ts";
import { uuidParam } from "../../domain/common.ts";
import { forbidden } from "../../domain/errors.ts";
import { changeAnswer, createAnswer, memberAnswersPage } from "../../serve/answers.ts";
import { deleteAnswer } from "../../store/answers.ts";
import { getOrganization } from "../../store/organizations.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const answerRoutes = createRouter();

const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
const ItemParams = OrgParams.extend({ answerId: uuidParam("answerId") });
const tags = ["Answers"];

/** The caller as an owner of an existing organization; who the answer records. */
async function owner(c: Context<AppEnv>, organizationId: string) {
  await requireMembership(c, organizationId, "owner");
  if (!(await getOrganization(c.var.services.kv, organizationId))) throw forbidden();
  return { userId: c.var.user.id, email: c.var.user.email ?? null };
}

answerRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/answers",
    operationId: "listAnswers",
    tags,
    summary: "The organization's answers to security questions (members)",
    description:
      `Every answer, public and restricted, with its Markdown, citations, questionnaire ids and who wrote it, by category and question, in pages of ${DEFAULT_ANSWERS_PAGE} (\`limit\` up to ${MAX_ANSWERS_PAGE}): pass nextCursor as cursor for the next; the answer links it (Link: rel="next"). The public knowledge base is GET /public/trust/{orgSlug}/answers.`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, query: AnswerPageQuery },
    responses: {
      200: json(TrustAnswerListResponse, "A page of the answers by category and question"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    const query = c.req.valid("query");
    const page = await memberAnswersPage(c.var.services.kv, organizationId, query);
    if (page.nextCursor) {
      const next = new URL(c.req.url);
      next.searchParams.set("cursor", page.nextCursor);
      c.header("Link", `<${next.pathname}${next.search}>; rel="next"`);
    }
    return c.json({ answers: page.values, total: page.total, nextCursor: page.nextCursor }, 200);
  },
);

answerRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/answers",
    operationId: "addAnswer",
    tags,
    summary: "Add an answer (owners)",
    description:
      `A question (plain text), an answer in Markdown, a category, public or restricted, citations \`{ kind: "control" | "document" | "certification", id }\` and questionnaire ids (\`{ questionnaire: "caiq-v4" | "sig" | "other", id }\`). Cited controls, documents and certifications must belong to the organization (400 otherwise). At most ${MAX_ANSWERS_PER_ORGANIZATION} per organization (409).`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: jsonBody(CreateAnswerRequest) },
    responses: {
      201: json(TrustAnswerResponse, "The answer as stored"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const actor = await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const answer = await createAnswer(kv, organizationId, {
      request: c.req.valid("json"),
      actor,
      now: clock.now(),
    });
    return c.json({ answer }, 201);
  },
);

answerRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/organizations/{organizationId}/answers/{answerId}",
    operationId: "updateAnswer",
    tags,
    summary: "Change an answer (owners)",
    description:
      "Fields left out are kept; citations and questionnaire ids given replace the old lists. A request that changes nothing saves nothing.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams, body: jsonBody(EditAnswerRequest) },
    responses: {
      200: json(TrustAnswerResponse, "The answer as stored"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId, answerId } = c.req.valid("param");
    const actor = await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const answer = await changeAnswer(kv, organizationId, {
      id: answerId,
      change: c.req.valid("json"),
      actor,
      now: clock.now(),
    });
    return c.json({ answer }, 200);
  },
);

answerRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/organizations/{organizationId}/answers/{answerId}",
    operationId: "removeAnswer",
    tags,
    summary: "Remove an answer (owners)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams },
    responses: {
      200: json(TrustAnswerResponse, "The answer that was removed"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, answerId } = c.req.valid("param");
    await owner(c, organizationId);
    const answer = await deleteAnswer(c.var.services.kv, organizationId, answerId);
    return c.json({ answer }, 200);
  },
);
