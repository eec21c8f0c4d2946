/**
 * Pages of an organization's answers (the public list and its search, the members' list and
 * MCP search_answers): at most MAX_ANSWERS_PAGE per request, so one request renders and
 * sends a bounded amount whatever the organization keeps. A cursor names the previous page's
 * last answer and its position: the next page starts after that answer, or, when it was
 * removed meanwhile, at that position (where the answer after it now stands).
 */
import { type AnswerPageQuery, DEFAULT_ANSWERS_PAGE } from "../domain/answers.ts";

/** One page of `items` (already in their order) and the cursor of the next, null at the end. */
export function answerPage<T extends { id: string }>(
  items: readonly T[],
  query: AnswerPageQuery,
): { values: T[]; nextCursor: string | null } {
  const limit = query.limit ?? DEFAULT_ANSWERS_PAGE;
  let start = 0;
  if (query.cursor) {
    const dot = query.cursor.indexOf(".");
    const after = query.cursor.slice(dot + 1);
    const found = items.findIndex((item) => item.id === after);
    start = found >= 0 ? found + 1 : Math.min(Number(query.cursor.slice(0, dot)), items.length);
  }
  const values = items.slice(start, start + limit);
  const end = start + values.length;
  const nextCursor = end < items.length && values.length > 0
    ? `${end - 1}.${values[values.length - 1].id}`
    : null;
  return { values, nextCursor };
}
