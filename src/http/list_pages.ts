/**
 * The HTTP side of paged lists (src/store/list_pages.ts): the page a query asks for (a cursor
 * that is not one of the list's answers 400), and the `Link: rel="next"` of an answer.
 */
import type { Context } from "hono";
import { validationFailed } from "../domain/errors.ts";
import { DEFAULT_LIST_PAGE } from "../domain/list_page.ts";
import { decodeCursor, type OrderedList } from "../store/list_pages.ts";

/** The cursor's parts and the page size of a paged list's query. */
export function pageOf(
  list: OrderedList,
  query: { cursor?: string; limit?: number },
): { cursor: string[] | null; limit: number } {
  const limit = query.limit ?? DEFAULT_LIST_PAGE;
  if (query.cursor === undefined) return { cursor: null, limit };
  const cursor = decodeCursor(list, query.cursor);
  if (!cursor) {
    throw validationFailed('Query parameter "cursor": must be a nextCursor of this list');
  }
  return { cursor, limit };
}

/** Links the next page (the request's URL with `cursor` set), when there is one. */
export function linkNext(c: Context, nextCursor: string | null): void {
  if (!nextCursor) return;
  const next = new URL(c.req.url);
  next.searchParams.set("cursor", nextCursor);
  c.header("Link", `<${next.pathname}${next.search}>; rel="next"`);
}
