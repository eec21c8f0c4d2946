/**
 * Access summaries (FRR-ADS-TC-06): the reads of known parties counted per month, buyer
 * organization, person and document, with totals per month, organization, person and
 * document, as JSON or CSV; the vendor sees every organization's, a buyer organization only
 * its own.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { MAX_SUMMARY_MONTHS } from "../domain/buyers.ts";
import type { Organization } from "../domain/workspace.ts";
import { csvField } from "../lib/spreadsheet_text.ts";
import { getAccessSettings, listSummaryRows } from "../store/buyers.ts";
import { DEFAULT_ACCESS_SETTINGS } from "./buyers.ts";

/** Most rows one summary holds. */
export const MAX_SUMMARY_ROWS = 20_000;

export const SummaryQuery = z.object({
  months: z.coerce.number().int().min(1).max(MAX_SUMMARY_MONTHS).optional().openapi({
    type: "integer",
    description: "Months back, the current one included (default: the retention setting)",
  }),
  format: z.enum(["json", "csv"]).default("json"),
});

const Row = z.object({
  month: z.string().openapi({ example: "2026-11" }),
  domain: z.string().openapi({ description: "The buyer organization; empty: an access link" }),
  person: z.string().openapi({ description: "An email, or token:<name> for a service token" }),
  documentId: z.string(),
  title: z.string(),
  views: z.number().int(),
  downloads: z.number().int(),
  lastAt: z.string(),
});
const Total = z.object({ key: z.string(), views: z.number().int(), downloads: z.number().int() });

export const SummaryResponse = z.object({
  organization: z.object({ name: z.string(), slug: z.string() }),
  from: z.string().openapi({ description: "The first month counted (YYYY-MM)" }),
  keptMonths: z.number().int().openapi({ description: "How many months summaries are kept" }),
  rows: z.array(Row),
  byMonth: z.array(Total),
  byOrganization: z.array(Total),
  byPerson: z.array(Total),
  byDocument: z.array(Total),
  truncated: z.boolean(),
}).openapi("AccessSummary");
export type Summary = z.infer<typeof SummaryResponse>;

/** The month `back` months before `now`'s (YYYY-MM, UTC). */
export function monthBefore(now: Date, back: number): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
  return d.toISOString().slice(0, 7);
}

function totals(rows: z.infer<typeof Row>[], keyOf: (r: z.infer<typeof Row>) => string) {
  const map = new Map<string, { key: string; views: number; downloads: number }>();
  for (const row of rows) {
    const key = keyOf(row);
    const t = map.get(key) ?? { key, views: 0, downloads: 0 };
    t.views += row.views;
    t.downloads += row.downloads;
    map.set(key, t);
  }
  return [...map.values()].sort((a, b) => a.key.localeCompare(b.key));
}

/** The summary of `org`'s reads, of one buyer organization when `domain` is given. */
export async function buyerSummary(
  kv: Deno.Kv,
  org: Organization,
  options: { now: Date; months?: number; domain?: string },
): Promise<Summary> {
  const settings = await getAccessSettings(kv, org.id, DEFAULT_ACCESS_SETTINGS);
  const months = Math.min(options.months ?? settings.summaryMonths, settings.summaryMonths);
  const from = monthBefore(options.now, months - 1);
  const all = await listSummaryRows(kv, org.id, from, MAX_SUMMARY_ROWS + 1);
  const truncated = all.length > MAX_SUMMARY_ROWS;
  const rows = all.slice(0, MAX_SUMMARY_ROWS)
    .filter((r) => options.domain === undefined || r.domain === options.domain);
  return {
    organization: { name: org.name, slug: org.slug },
    from,
    keptMonths: settings.summaryMonths,
    rows,
    byMonth: totals(rows, (r) => r.month),
    byOrganization: totals(rows, (r) => r.domain),
    byPerson: totals(rows, (r) => `${r.domain} ${r.person}`),
    byDocument: totals(rows, (r) => r.title),
    truncated,
  };
}

const csvLine = (fields: string[]) => `${fields.map(csvField).join(",")}\r\n`;

/** The summary's rows as CSV (one header line). */
export function summaryCsv(summary: Summary): string {
  const header = [
    "month",
    "organization",
    "person",
    "document_id",
    "document",
    "views",
    "downloads",
  ];
  const lines = [csvLine(header)];
  for (const r of summary.rows) {
    lines.push(
      csvLine([
        r.month,
        r.domain,
        r.person,
        r.documentId,
        r.title,
        String(r.views),
        String(r.downloads),
      ]),
    );
  }
  return lines.join("");
}

/** The two forms `summaryAnswer` gives, for a route's documented 200. */
export const SUMMARY_CONTENT = {
  "application/json": { schema: SummaryResponse },
  "text/csv": { schema: z.string() },
};

/** Answers a summary as JSON or as a CSV attachment. */
export function summaryAnswer(
  c: Context,
  summary: Summary,
  format: "json" | "csv",
  name: string,
) {
  c.header("Cache-Control", "private, no-store");
  if (format === "csv") {
    return c.body(summaryCsv(summary), 200, {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="access-summary-${
        name.replace(/[^a-z0-9.-]/gi, "_")
      }.csv"`,
    });
  }
  return c.json(summary, 200);
}

const escapeXml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * Reads per month as bars (views and downloads side by side), every month of the summary's
 * span shown (empty ones at zero), each bar titled with its number: a chart a screen reader
 * reads as text too.
 */
export function summaryChartSvg(summary: Summary, now: Date): string {
  const months: string[] = [];
  for (let back = 0;; back++) {
    const month = monthBefore(now, back);
    if (month < summary.from || back > 120) break;
    months.unshift(month);
  }
  const byMonth = new Map(summary.byMonth.map((t) => [t.key, t]));
  const max = Math.max(1, ...summary.byMonth.flatMap((t) => [t.views, t.downloads]));
  const slot = 48;
  const height = 160;
  const width = Math.max(240, months.length * slot + 40);
  const bars = months.map((month, i) => {
    const t = byMonth.get(month) ?? { views: 0, downloads: 0 };
    const x = 30 + i * slot;
    const bar = (value: number, dx: number, cls: string, label: string) => {
      const h = Math.round((value / max) * (height - 40));
      return `<rect class="${cls}" x="${x + dx}" y="${
        height - 20 - h
      }" width="16" height="${h}"><title>${month}: ${value} ${label}</title></rect>`;
    };
    return [
      bar(t.views, 0, "views", "views"),
      bar(t.downloads, 18, "downloads", "downloads"),
      `<text x="${x + 17}" y="${height - 5}" text-anchor="middle">${month.slice(2)}</text>`,
    ].join("");
  }).join("");
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="t">`,
    `<title id="t">Reads of ${
      escapeXml(summary.organization.name)
    }'s documents per month since ${summary.from}: views and downloads</title>`,
    `<style>.views{fill:#2563eb}.downloads{fill:#059669}text{font:10px sans-serif;fill:#374151}@media (prefers-color-scheme:dark){text{fill:#e5e7eb}.views{fill:#60a5fa}.downloads{fill:#34d399}}</style>`,
    `<text x="4" y="12">max ${max}</text>`,
    bars,
    `</svg>`,
  ].join("");
}
