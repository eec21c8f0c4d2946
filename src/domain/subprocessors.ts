/**
 * The subprocessors an organization discloses (the vendors that process its customers'
 * data): each with its purpose, location and website, and the history of every addition,
 * change and removal. They belong to the organization, not to one project: a vendor's
 * hosting, email and support tools serve all of its products.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, oneLine, Uuid } from "./common.ts";
import { HttpsUrl, plainText } from "./vendor.ts";

/** Most subprocessors one organization may list at once. */
export const MAX_SUBPROCESSORS = 200;
/** Most history entries a read returns (newest first). */
export const MAX_SUBPROCESSOR_EVENTS = 500;

const SubprocessorName = oneLine(200).openapi({ example: "Amazon Web Services" });
const Purpose = plainText(500).pipe(z.string().min(1)).openapi({ example: "Cloud hosting" });
const Location = oneLine(200).openapi({
  description: "Country or region where the data is processed",
  example: "United States, Ireland",
});

export const Subprocessor = z.object({
  id: Uuid,
  name: z.string(),
  purpose: z.string(),
  location: z.string(),
  website: z.string(),
  addedAt: DateTime,
  updatedAt: DateTime,
}).openapi("Subprocessor");
export type Subprocessor = z.infer<typeof Subprocessor>;

const Fields = z.object({
  name: z.string(),
  purpose: z.string(),
  location: z.string(),
  website: z.string(),
});

/** One addition, change or removal, as kept in the history. */
export const SubprocessorEvent = z.object({
  at: DateTime,
  action: z.enum(["added", "changed", "removed"]),
  subprocessorId: Uuid,
  name: z.string().openapi({ description: "The subprocessor's name after the event" }),
  before: Fields.nullable().openapi({ description: "Its fields before; null when added" }),
  after: Fields.nullable().openapi({ description: "Its fields after; null when removed" }),
}).openapi("SubprocessorEvent");
export type SubprocessorEvent = z.infer<typeof SubprocessorEvent>;

/** A history entry as members see it: who made the change. */
export const SubprocessorChange = SubprocessorEvent.extend({
  actor: z.object({ userId: Uuid, email: z.string().nullable() }),
}).openapi("SubprocessorChange");
export type SubprocessorChange = z.infer<typeof SubprocessorChange>;

export const CreateSubprocessorRequest = z.strictObject({
  name: SubprocessorName,
  purpose: Purpose,
  location: Location,
  website: HttpsUrl,
}).openapi("CreateSubprocessorRequest");
export type CreateSubprocessorRequest = z.infer<typeof CreateSubprocessorRequest>;

export const UpdateSubprocessorRequest = z.strictObject({
  name: SubprocessorName.optional(),
  purpose: Purpose.optional(),
  location: Location.optional(),
  website: HttpsUrl.optional(),
}).refine((change) => Object.keys(change).length > 0, "Give at least one field to change")
  .openapi("UpdateSubprocessorRequest");
export type UpdateSubprocessorRequest = z.infer<typeof UpdateSubprocessorRequest>;

export const SubprocessorResponse = z.object({ subprocessor: Subprocessor })
  .openapi("SubprocessorResponse");

export const SubprocessorListResponse = z.object({
  subprocessors: z.array(Subprocessor).openapi({ description: "Current ones, by name" }),
  history: z.array(SubprocessorChange).openapi({
    description: `Newest first, at most ${MAX_SUBPROCESSOR_EVENTS}`,
  }),
}).openapi("SubprocessorListResponse");

/** The public list (GET /public/trust/{orgSlug}/subprocessors and get_subprocessors). */
export const PublicSubprocessors = z.object({
  organization: z.object({ name: z.string(), slug: z.string() }),
  subprocessors: z.array(Subprocessor).openapi({ description: "Current ones, by name" }),
  history: z.array(SubprocessorEvent).openapi({
    description:
      `Additions, changes and removals, newest first (at most ${MAX_SUBPROCESSOR_EVENTS}); who made them is not public`,
  }),
  url: z.url(),
}).openapi("PublicSubprocessors");
export type PublicSubprocessors = z.infer<typeof PublicSubprocessors>;

export const OrgSlugParams = z.object({
  orgSlug: z.string().min(1).max(100).openapi({
    param: { name: "orgSlug", in: "path" },
    description: "The organization's public slug, as in /public/trust/{orgSlug}",
  }),
});
