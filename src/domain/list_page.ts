/**
 * Pages of the lists that grow without a cap (an organization's projects, members and
 * subscribers, a project's collectors and domains): the query (`cursor`, `limit`) and the
 * `nextCursor` each answer adds to its shape.
 */
import { z } from "@hono/zod-openapi";

/** Items per page when no limit is given: every list of most organizations fits in one. */
export const DEFAULT_LIST_PAGE = 200;
/** Most items one page holds. */
export const MAX_LIST_PAGE = 500;

/** The query of a paged list of `noun` (plural). */
export function listPageQuery(noun: string) {
  return z.object({
    cursor: z.string().max(600).regex(/^[A-Za-z0-9_-]+$/, "Must be a nextCursor of the list")
      .optional().openapi({
        param: { name: "cursor", in: "query" },
        description: "nextCursor of the previous page: lists what comes after it",
      }),
    limit: z.coerce.number().int().min(1).max(MAX_LIST_PAGE).optional().openapi({
      param: { name: "limit", in: "query" },
      description: `${noun} per page, 1 to ${MAX_LIST_PAGE} (default ${DEFAULT_LIST_PAGE})`,
      example: 50,
    }),
  });
}

/** `nextCursor` of a paged list's answer. */
export const NextCursor = z.string().nullable().openapi({
  description:
    'Pass as cursor for the next page; null on the last one. The HTTP answer also links it (Link: rel="next")',
  example: "WyIyMDI2LTAxLTAxVDAwOjAwOjAwLjAwMFoiLCJhIl0",
});

/** The sentence a paged list's description ends with. */
export const LIST_PAGE_NOTE =
  `In pages of ${DEFAULT_LIST_PAGE} (\`limit\` 1 to ${MAX_LIST_PAGE}): pass nextCursor as cursor for the next; the answer links it (Link: rel="next"). A page reads only its own items.`;
