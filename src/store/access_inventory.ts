/**
 * The access inventory of one vendor organization: every read by a known party, its monthly
 * summary rows (both kept as long as the organization keeps summaries), and the anonymous page
 * counters. Re-exported by src/store/buyers.ts.
 */
import { conflict } from "../domain/errors.ts";

const accessEventKey = (orgId: string, id: string): Deno.KvKey => ["access_events", orgId, id];
const accessSummaryKey = (orgId: string, row: SummaryKey): Deno.KvKey => [
  "access_summaries",
  orgId,
  row.month,
  row.domain,
  row.person,
  row.documentId,
];
const pageViewKey = (orgId: string, day: string, path: string): Deno.KvKey => [
  "page_views",
  orgId,
  day,
  path,
];

export interface AccessEvent {
  id: string;
  at: string;
  kind: "view" | "download";
  /** The buyer organization's domain, or "" for a person outside one (an access link). */
  domain: string;
  /** The person's email, or the service token's name as "token:<name>". */
  person: string;
  documentId: string;
  title: string;
  via: "session" | "service" | "link";
}

export interface SummaryKey {
  month: string;
  domain: string;
  person: string;
  documentId: string;
}

export interface SummaryCounts {
  title: string;
  views: number;
  downloads: number;
  lastAt: string;
}

/**
 * Records one read and counts it in its month's summary row, both kept `keepMs` (the
 * organization's retention of summaries).
 */
export async function recordAccessEvent(
  kv: Deno.Kv,
  orgId: string,
  event: AccessEvent,
  keepMs: number,
): Promise<void> {
  const row = accessSummaryKey(orgId, {
    month: event.at.slice(0, 7),
    domain: event.domain,
    person: event.person,
    documentId: event.documentId,
  });
  for (let attempt = 0; attempt < 10; attempt++) {
    const current = await kv.get<SummaryCounts>(row);
    const counts = current.value ??
      { title: event.title, views: 0, downloads: 0, lastAt: event.at };
    const next: SummaryCounts = {
      title: event.title,
      views: counts.views + (event.kind === "view" ? 1 : 0),
      downloads: counts.downloads + (event.kind === "download" ? 1 : 0),
      lastAt: event.at,
    };
    const done = await kv.atomic().check(current)
      .set(row, next, { expireIn: keepMs })
      .set(accessEventKey(orgId, event.id), event, { expireIn: keepMs })
      .commit();
    if (done.ok) return;
  }
  throw conflict("Too many reads at once; please retry");
}

/** Summary rows from `fromMonth` (YYYY-MM) on, with their keys. */
export async function listSummaryRows(
  kv: Deno.Kv,
  orgId: string,
  fromMonth: string,
  limit: number,
): Promise<(SummaryKey & SummaryCounts)[]> {
  const out: (SummaryKey & SummaryCounts)[] = [];
  for await (
    const entry of kv.list<SummaryCounts>({
      start: ["access_summaries", orgId, fromMonth],
      end: ["access_summaries", orgId, "\uffff"],
    }, { limit })
  ) {
    const [, , month, domain, person, documentId] = entry.key as string[];
    out.push({ month, domain, person, documentId, ...entry.value });
  }
  return out;
}

/** The newest access events, newest first. */
export async function listAccessEvents(
  kv: Deno.Kv,
  orgId: string,
  limit: number,
): Promise<AccessEvent[]> {
  const out: AccessEvent[] = [];
  for await (
    const entry of kv.list<AccessEvent>({ prefix: ["access_events", orgId] }, {
      limit,
      reverse: true,
    })
  ) out.push(entry.value);
  return out;
}

/**
 * Adds anonymous page views to their counters (one per organization, day as YYYY-MM-DD and
 * path): numbers, nothing else.
 */
export async function countPageViews(
  kv: Deno.Kv,
  counts: readonly { orgId: string; day: string; path: string; n: number }[],
): Promise<void> {
  for (let i = 0; i < counts.length; i += 100) {
    const op = kv.atomic();
    for (const { orgId, day, path, n } of counts.slice(i, i + 100)) {
      op.sum(pageViewKey(orgId, day, path), BigInt(n));
    }
    await op.commit();
  }
}

/** Page counters from `fromDay` on: day, path, count. */
export async function listPageViews(
  kv: Deno.Kv,
  orgId: string,
  fromDay: string,
  limit: number,
): Promise<{ day: string; path: string; views: number }[]> {
  const out: { day: string; path: string; views: number }[] = [];
  for await (
    const entry of kv.list<Deno.KvU64>({
      start: ["page_views", orgId, fromDay],
      end: ["page_views", orgId, "\uffff"],
    }, { limit })
  ) {
    const [, , day, path] = entry.key as string[];
    out.push({ day, path, views: Number(entry.value.value) });
  }
  return out;
}
