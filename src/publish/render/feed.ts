/**
 * The Atom feed of a project's publications (RFC 4287): one entry per version with the
 * controls whose state changed, so a subscriber learns about a regression without polling
 * trust.json.
 */
import type { PublishedVersion } from "../../domain/publish.ts";
import { escapeHtml } from "../../lib/escape.ts";
import { utc, xmlSafe } from "./_format.ts";

/** What a feed is built from; `versions` newest first, as /trust/{slug}/versions lists them. */
export interface AtomFeedInput {
  project: { slug: string; name: string };
  /** Absolute URL of the feed itself (rel="self"). */
  feedUrl: string;
  /** Absolute URL of the HTML trust page (rel="alternate"). */
  pageUrl: string;
  /** Newest first; pass the whole history so the feed id (from version 1) stays put. */
  versions: readonly PublishedVersion[];
  /** Absolute URL of one version's trust.json; defaults to `<pageUrl>/versions/<n>/trust.json`. */
  versionUrl?: (version: number) => string;
  /** Absolute URL of one version's HTML page; defaults to `<pageUrl>/versions/<n>/index.html`. */
  versionPageUrl?: (version: number) => string;
  /** Most entries to include, newest first (default 50); the feed id still uses the oldest. */
  maxEntries?: number;
}

function text(value: string): string {
  return escapeHtml(xmlSafe(value));
}

/** A tag URI (RFC 4151): the host that minted it, the day it did, and a path under it. */
function tagUri(pageUrl: string, day: string, specific: string): string {
  return `tag:${new URL(pageUrl).hostname},${day.slice(0, 10)}:${specific}`;
}

function changeLines(version: PublishedVersion): string[] {
  if (version.changes.length === 0) return ["No control changed state."];
  return version.changes.map((c) =>
    c.from === null
      ? `${c.name} (${c.key}): added as ${c.to}`
      : `${c.name} (${c.key}): ${c.from} → ${c.to}`
  );
}

function entry(
  input: AtomFeedInput,
  version: PublishedVersion,
  urls: { json: string; page: string },
): string {
  const at = utc(version.publishedAt);
  const content = [
    `Overall state: ${version.overallState}.`,
    ...changeLines(version),
    `trust.json digest: ${version.digest}`,
  ].join("\n");
  return [
    "  <entry>",
    `    <id>${
      text(tagUri(input.pageUrl, at, `trust/${input.project.slug}/versions/${version.version}`))
    }</id>`,
    `    <title>Version ${version.version}: ${version.overallState}</title>`,
    `    <updated>${at}</updated>`,
    `    <published>${at}</published>`,
    `    <link rel="alternate" type="text/html" href="${text(urls.page)}"/>`,
    `    <link rel="alternate" type="application/json" href="${text(urls.json)}"/>`,
    `    <content type="text">${text(content)}</content>`,
    "  </entry>",
  ].join("\n");
}

/**
 * Renders an Atom 1.0 feed of a project's published versions: feed id, title, author,
 * updated (the newest publication), self and alternate links, and one entry per version
 * (newest first, at most `maxEntries`) titled "Version 7: pass" with a stable tag: URI
 * id, `updated` = its publication time, links to that version's page (text/html, what a feed
 * reader opens) and its immutable trust.json, and
 * plain-text content listing the state changes and the digest. Vendor text is escaped and
 * characters XML cannot carry are replaced, so the feed is always well-formed. Throws a
 * RangeError without versions: a project that never published has no feed.
 */
export function renderAtomFeed(input: AtomFeedInput): string {
  return renderAtomFeedParts(input).join("");
}

/**
 * The feed of `renderAtomFeed` in the parts it is stored in: its head (everything before the
 * first entry), one part per entry, and its tail, each with its line end, so joined they are
 * the feed's exact text. An entry depends only on its version (and the project's addresses):
 * stored content-addressed, each version's entry is stored once, whatever the number of feeds
 * that carry it.
 */
export function renderAtomFeedParts(input: AtomFeedInput): string[] {
  const { versions, project } = input;
  if (versions.length === 0) {
    throw new RangeError(`Project "${project.slug}" has no published version to put in a feed`);
  }
  const base = input.pageUrl.replace(/(?<!\/)\/+$/, "");
  const versionUrl = input.versionUrl ?? ((n: number) => `${base}/versions/${n}/trust.json`);
  const versionPageUrl = input.versionPageUrl ??
    ((n: number) => `${base}/versions/${n}/index.html`);
  const oldest = versions[versions.length - 1];
  const entries = versions.slice(0, input.maxEntries ?? 50);
  const head = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${text(tagUri(input.pageUrl, utc(oldest.publishedAt), `trust/${project.slug}`))}</id>`,
    `  <title>${text(`${project.name}: trust profile`)}</title>`,
    `  <subtitle>Published versions and control state changes</subtitle>`,
    `  <updated>${utc(versions[0].publishedAt)}</updated>`,
    `  <author><name>${text(project.name)}</name></author>`,
    `  <link rel="self" type="application/atom+xml" href="${text(input.feedUrl)}"/>`,
    `  <link rel="alternate" type="text/html" href="${text(input.pageUrl)}"/>`,
    `  <generator>Trust Profile Service</generator>`,
  ];
  return [
    `${head.join("\n")}\n`,
    ...entries.map((v) =>
      `${entry(input, v, { json: versionUrl(v.version), page: versionPageUrl(v.version) })}\n`
    ),
    "</feed>\n",
  ];
}

/** An update as the feed shows it (posted and, once resolved, updated). */
export interface FeedUpdate {
  id: string;
  kind: "incident" | "advisory" | "change";
  title: string;
  url: string;
  bodyHtml: string;
  postedAt: string;
  updatedAt: string;
  resolvedAt: string | null;
}

/** One feed entry, with its `updated` time to order by. */
export interface FeedEntry {
  updated: string;
  xml: string;
}

const KIND_TITLES = { incident: "Incident", advisory: "Advisory", change: "Change" } as const;

/** An entry's title: open incidents and advisories say so first, resolved ones at the end. */
function entryTitle(update: FeedUpdate): string {
  if (update.resolvedAt) return `${KIND_TITLES[update.kind]}: ${update.title} (resolved)`;
  if (update.kind === "incident") return `Ongoing incident: ${update.title}`;
  if (update.kind === "advisory") return `Open advisory: ${update.title}`;
  return `${KIND_TITLES[update.kind]}: ${update.title}`;
}

/**
 * The entry of an update: titled "Ongoing incident: …" or "Open advisory: …" while open,
 * "Incident: … (resolved)" once resolved, `published` when posted and `updated` at its last
 * edit or resolution, so a feed reader shows the resolution as a change of the same entry.
 * Its content is the rendered body (type="html").
 */
export function updateFeedEntry(
  input: { pageUrl: string; slug: string },
  update: FeedUpdate,
): FeedEntry {
  const posted = utc(update.postedAt);
  const updated = utc(update.updatedAt);
  const status = update.resolvedAt ? ` (resolved ${utc(update.resolvedAt)})` : "";
  const title = entryTitle(update);
  const content = `<p>${text(`${KIND_TITLES[update.kind]}${status}`)}</p>${
    xmlSafe(update.bodyHtml)
  }`;
  const xml = [
    "  <entry>",
    `    <id>${
      text(tagUri(input.pageUrl, posted, `trust/${input.slug}/updates/${update.id}`))
    }</id>`,
    `    <title>${text(title)}</title>`,
    `    <updated>${updated}</updated>`,
    `    <published>${posted}</published>`,
    `    <link rel="alternate" type="text/html" href="${text(update.url)}"/>`,
    `    <content type="html">${escapeHtml(content)}</content>`,
    "  </entry>",
  ].join("\n");
  return { updated, xml };
}

const ENTRY = /^ {2}<entry>\n[\s\S]*?\n {2}<\/entry>$/gm;
const UPDATED = /<updated>([^<]+)<\/updated>/;

/**
 * A feed rendered by {@linkcode renderAtomFeed} with `extra` entries merged in: every entry
 * ordered by `updated`, newest first, and the feed's own `updated` the newest of all.
 */
export function withFeedEntries(feed: string, extra: readonly FeedEntry[]): string {
  if (extra.length === 0) return feed;
  const start = feed.search(/^ {2}<entry>$/m);
  const end = feed.lastIndexOf("</feed>");
  const head = start < 0 ? feed.slice(0, end) : feed.slice(0, start);
  const own: FeedEntry[] = [...feed.matchAll(ENTRY)].map(([xml]) => ({
    xml,
    updated: xml.match(UPDATED)?.[1] ?? "",
  }));
  const time = (value: string) => Date.parse(value) || 0;
  const entries = [...own, ...extra].sort((a, b) => time(b.updated) - time(a.updated));
  const current = head.match(UPDATED)?.[1] ?? "";
  const newest = time(current) >= time(entries[0].updated) ? current : entries[0].updated;
  return [
    head.replace(UPDATED, `<updated>${newest}</updated>`).trimEnd(),
    ...entries.map((e) => e.xml),
    "</feed>",
    "",
  ].join("\n");
}
