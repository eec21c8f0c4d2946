/**
 * Updates a vendor posts on a project's trust center: incidents, advisories and changes,
 * each with a title and a Markdown body (rendered safely on the server), a time it was
 * posted and, once over, a time it was resolved. Members read and write them like every
 * other part of a project; the public sees them on the trust page, the updates pages and
 * the Atom feed, without who posted them.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, oneLine, Uuid } from "./common.ts";

/** Most updates one project keeps; delete old ones to post more. */
export const MAX_UPDATES_PER_PROJECT = 500;
/** Longest Markdown body, in characters. */
export const MAX_UPDATE_BODY = 20_000;
/** Longest title, in characters. */
export const MAX_UPDATE_TITLE = 200;
/** Default and largest page of a list. */
export const DEFAULT_UPDATES_LIMIT = 20;
export const MAX_UPDATES_LIMIT = 100;

export const UPDATE_KINDS = ["incident", "advisory", "change"] as const;
export const UpdateKind = z.enum(UPDATE_KINDS).openapi("UpdateKind", {
  description: "incident (something is or was wrong), advisory (something to act on), change",
});
export type UpdateKind = z.infer<typeof UpdateKind>;

const Title = oneLine(MAX_UPDATE_TITLE).openapi({ example: "Degraded API latency in eu-west" });

/** Markdown: any text but control characters other than tab and line breaks. */
const Body = z.string().max(MAX_UPDATE_BODY).refine(
  // deno-lint-ignore no-control-regex -- exactly what the check refuses
  (text) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text),
  "Must be text without control characters other than tabs and line breaks",
).refine((text) => text.trim().length > 0, "Must not be empty").openapi({
  description:
    `Markdown, at most ${MAX_UPDATE_BODY} characters. Raw HTML is shown as text, images as their description, and only http(s) and mailto links are kept.`,
  example: "We are investigating **elevated error rates**. Next update in 30 minutes.",
});

const Actor = z.object({ userId: Uuid, email: z.string().nullable() });

/** An update as members see it (with who posted and last edited it). */
export const TrustUpdate = z.object({
  id: Uuid,
  projectId: Uuid,
  kind: UpdateKind,
  title: z.string(),
  body: z.string().openapi({ description: "The Markdown source" }),
  postedAt: DateTime,
  postedBy: Actor,
  updatedAt: DateTime,
  updatedBy: Actor,
  resolvedAt: DateTime.nullable().openapi({ description: "When marked resolved; null if open" }),
}).openapi("TrustUpdate");
export type TrustUpdate = z.infer<typeof TrustUpdate>;

export const CreateUpdateRequest = z.strictObject({
  kind: UpdateKind,
  title: Title,
  body: Body,
  resolved: z.boolean().optional().openapi({
    description: "Post it already resolved (a past incident); default false",
  }),
}).openapi("CreateUpdateRequest");
export type CreateUpdateRequest = z.infer<typeof CreateUpdateRequest>;

export const EditUpdateRequest = z.strictObject({
  kind: UpdateKind.optional(),
  title: Title.optional(),
  body: Body.optional(),
  resolved: z.boolean().optional().openapi({
    description: "true marks it resolved (now), false reopens it",
  }),
}).refine((change) => Object.keys(change).length > 0, "Give at least one field to change")
  .openapi("EditUpdateRequest");
export type EditUpdateRequest = z.infer<typeof EditUpdateRequest>;

export const TrustUpdateResponse = z.object({ update: TrustUpdate }).openapi("TrustUpdateResponse");

export const UpdatePageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_UPDATES_LIMIT).optional().openapi({
    param: { name: "limit", in: "query" },
    description: `Page size, default ${DEFAULT_UPDATES_LIMIT}, at most ${MAX_UPDATES_LIMIT}`,
  }),
  cursor: z.string().max(200).optional().openapi({
    param: { name: "cursor", in: "query" },
    description: "nextCursor of the previous page",
  }),
});
export type UpdatePageQuery = z.infer<typeof UpdatePageQuery>;

export const TrustUpdateListResponse = z.object({
  updates: z.array(TrustUpdate).openapi({ description: "Newest first" }),
  nextCursor: z.string().nullable(),
}).openapi("TrustUpdateListResponse");

/** An update as the public sees it: the body also rendered, no authors. */
export const PublicTrustUpdate = z.object({
  id: Uuid,
  kind: UpdateKind,
  title: z.string(),
  body: z.string().openapi({
    description:
      "The Markdown body as the pages show it: raw HTML escaped as text, only http(s) and mailto links, images as their description",
  }),
  bodyHtml: z.string().openapi({ description: "The body rendered to safe HTML" }),
  postedAt: DateTime,
  updatedAt: DateTime,
  resolvedAt: DateTime.nullable(),
  url: z.url().openapi({ description: "The update's own page" }),
}).openapi("PublicTrustUpdate");
export type PublicTrustUpdate = z.infer<typeof PublicTrustUpdate>;

export const PublicTrustUpdates = z.object({
  project: z.object({ slug: z.string(), name: z.string() }),
  updates: z.array(PublicTrustUpdate).openapi({ description: "Newest first" }),
  nextCursor: z.string().nullable(),
  url: z.url(),
}).openapi("PublicTrustUpdates");
export type PublicTrustUpdates = z.infer<typeof PublicTrustUpdates>;

export const PublicTrustUpdateResponse = z.object({
  project: z.object({ slug: z.string(), name: z.string() }),
  update: PublicTrustUpdate,
}).openapi("PublicTrustUpdateResponse");
export type PublicTrustUpdateResponse = z.infer<typeof PublicTrustUpdateResponse>;

/** The `data` of an `update.posted` trust event (the body is at `url`). */
export interface UpdatePostedData {
  project: { id: string; slug: string; name: string };
  update: {
    id: string;
    kind: UpdateKind;
    title: string;
    url: string;
    postedAt: string;
    resolvedAt: string | null;
  };
  [key: string]: unknown;
}
