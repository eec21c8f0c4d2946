/**
 * The differential harness: after an operation, every stored public URL of the organizations
 * it may change (each variant html/md/json or `any`, each coding identity/gzip/br) is compared
 * with a fresh live render of the same URL through the app (`edgeRender`, the render job's own
 * path), at two moments:
 *
 * - `afterCommit`: what a client gets now (a GET through the app's stored layer with the
 *   matching Accept and Accept-Encoding, decoded) equals the live render: a stored record
 *   whose generations are stale must not be served;
 * - `afterSettle`: once the jobs ran, the stored record of every URL the render covers
 *   (src/edge/render.ts: each public published project's paths and its log index, the trust
 *   center) is current and its bytes, decoded, equal the live render; nothing else of the
 *   organization stays stored.
 *
 * The other organizations' stored pages and render state must be byte-identical (same
 * versionstamps: not even rendered again). Indexes are checked against a full scan of the
 * records: public search, answer search and the paged lists.
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { CENTER_PATHS, PROJECT_PATHS } from "../../src/domain/stored_urls.ts";
import {
  dependencies,
  signature,
  type StoredCoding,
  type StoredPage,
  type Variant,
} from "../../src/store/edge_pages.ts";
import {
  nameRank,
  normaliseSearchText,
  projectNames,
  publisherTerms,
} from "../../src/store/search_index.ts";
import {
  answersPrefix,
  deletionKey,
  latestPublicationKey,
  organizationKey,
  organizationProfileKey,
  projectsPrefix,
} from "../../src/store/keys.ts";
import { PENDING_TTL_MS } from "../../src/domain/subscriptions.ts";
import { isDomainClaimLapsed, type ProjectDomain } from "../../src/domain/publish.ts";
import type { TestServer } from "../support/server.ts";

export const CODINGS: readonly StoredCoding[] = ["identity", "gzip", "br"];
const ACCEPTS: Record<Variant, string> = {
  any: "text/html",
  html: "text/html",
  md: "text/markdown",
  json: "application/json",
};

/** One difference found: which check, which URL, what differed. */
export interface Difference {
  phase: "commit" | "settled" | "untouched" | "index";
  url: string;
  what: string;
}

/** Comparisons made, for the suite's count (operations × URLs × encodings). */
export const counts = { operations: 0, urls: 0, comparisons: 0 };

interface Live {
  status: number;
  type: string | null;
  bytes: Uint8Array;
  negotiated: boolean;
}

const decoder = new TextDecoder();

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Where two texts first differ, briefly (for the report). */
export function firstDifference(stored: Uint8Array, live: Uint8Array): string {
  const a = decoder.decode(stored);
  const b = decoder.decode(live);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const clip = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 30), i + 50));
  return `at ${i}: served ${clip(a)} vs live ${clip(b)}`;
}

function decode(bytes: Uint8Array, coding: string | null): Uint8Array {
  if (coding === "br") return new Uint8Array(brotliDecompressSync(bytes));
  if (coding === "gzip") return new Uint8Array(gunzipSync(bytes));
  return bytes;
}

/** A fresh live render of one URL in one format, as the render job makes it. */
export async function liveRender(
  server: TestServer,
  path: string,
  variant: Variant,
): Promise<Live> {
  const url = new URL(path, server.baseUrl);
  const request = new Request(url, { headers: { accept: ACCEPTS[variant], host: url.host } });
  const response = await server.app.fetch(request, { edgeRender: true });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    bytes,
    negotiated: /(^|,)\s*accept\s*(,|$)/i.test(response.headers.get("vary") ?? ""),
  };
}

/** What a client gets for one URL, format and coding (through the stored layer), decoded. */
async function clientGet(server: TestServer, path: string, variant: Variant, coding: StoredCoding) {
  const url = new URL(path, server.baseUrl);
  const response = await server.app.fetch(
    new Request(url, {
      headers: { accept: ACCEPTS[variant], "accept-encoding": coding, host: url.host },
    }),
  );
  const raw = new Uint8Array(await response.arrayBuffer());
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    bytes: decode(raw, response.headers.get("content-encoding")),
  };
}

/** Every stored page record whose organization is in `orgIds`, by `variant path` then coding. */
async function storedOf(kv: Deno.Kv, orgIds: ReadonlySet<string>) {
  const found = new Map<string, Map<StoredCoding, Deno.KvEntry<StoredPage>>>();
  for await (const entry of kv.list<StoredPage>({ prefix: ["edge_page"] })) {
    if (!orgIds.has(entry.value.organizationId)) continue;
    const [, path, variant, coding] = entry.key as [string, string, Variant, StoredCoding];
    const id = `${variant} ${path}`;
    if (!found.has(id)) found.set(id, new Map());
    found.get(id)!.set(coding, entry);
  }
  return found;
}

/** The paths the render job covers for one organization (src/edge/render.ts `scopesOf`). */
async function renderedPaths(kv: Deno.Kv, orgId: string): Promise<string[]> {
  const organization = await kv.get<{ slug: string }>(organizationKey(orgId));
  if (!organization.value || await due(kv, "organization", orgId)) return [];
  const paths = CENTER_PATHS.map((p) => `/public/trust/${organization.value!.slug}${p}`);
  for await (
    const entry of kv.list<{ organizationId: string; slug: string; visibility: string }>(
      { prefix: projectsPrefix() },
    )
  ) {
    const project = entry.value;
    if (project.organizationId !== orgId || project.visibility !== "public") continue;
    const latest = await kv.get(latestPublicationKey(entry.key[1] as string));
    if (latest.value === null || await due(kv, "project", entry.key[1] as string)) continue;
    paths.push(...PROJECT_PATHS.map((p) => `/trust/${project.slug}${p}`));
  }
  return paths;
}

/** Whether a deletion of the project or organization is due (src/edge/render.ts renders none). */
async function due(kv: Deno.Kv, kind: string, id: string): Promise<boolean> {
  const deletion = await kv.get<{ dueAt: string }>(deletionKey(kind, id));
  return deletion.value !== null && Date.parse(deletion.value.dueAt) <= clockNow().getTime();
}

let clockNow: () => Date = () => new Date();

/** The clock the service runs on (deletions fall due by it). */
export function useClock(now: () => Date): void {
  clockNow = now;
}

export type Representations = Map<string, { path: string; variant: Variant; live: Live }>;

/** Runs `work` over `items`, a few at once (compression runs off the JavaScript thread). */
async function pool<T>(items: T[], work: (item: T) => Promise<void>, width = 4) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (queue.length > 0) await work(queue.shift()!);
    }),
  );
}

/**
 * The representations to compare, each with its live render: every stored one, and every one
 * the render covers. `reuse`: live renders made at the same data (see `dataSnapshot`).
 */
async function representations(
  server: TestServer,
  orgIds: ReadonlySet<string>,
  reuse: Representations | null,
) {
  const stored = await storedOf(server.services.kv, orgIds);
  const all: Representations = new Map();
  const paths = new Set<string>();
  for (const orgId of orgIds) {
    for (const p of await renderedPaths(server.services.kv, orgId)) paths.add(p);
  }
  for (const id of stored.keys()) paths.add(id.slice(id.indexOf(" ") + 1));
  await pool([...paths], async (path) => {
    const reused = (variant: Variant) => reuse?.get(`${variant} ${path}`)?.live;
    const first = reused("html") ?? reused("any") ?? await liveRender(server, path, "html");
    if (first.negotiated) {
      all.set(`html ${path}`, { path, variant: "html", live: first });
      for (const variant of ["md", "json"] as const) {
        all.set(`${variant} ${path}`, {
          path,
          variant,
          live: reused(variant) ?? await liveRender(server, path, variant),
        });
      }
    } else all.set(`any ${path}`, { path, variant: "any", live: first });
  });
  // A record stored under a variant the URL no longer has is compared too.
  for (const id of stored.keys()) {
    if (all.has(id)) continue;
    const space = id.indexOf(" ");
    const variant = id.slice(0, space) as Variant;
    const path = id.slice(space + 1);
    all.set(id, { path, variant, live: await liveRender(server, path, variant) });
  }
  return { stored, all };
}

/** Whether a stored record's generations are still the latest. */
async function isCurrent(kv: Deno.Kv, record: StoredPage): Promise<boolean> {
  const current = await kv.getMany(dependencies(record));
  return signature(current).join(",") === record.generations.join(",");
}

/**
 * Right after the commit: each representation as a client gets it (through the stored layer,
 * decoded) equals the live render (status, type, bytes). A coding with a current record is
 * read in that coding (the stored bytes); a representation with none current is read once,
 * identity (it must be answered live). Returns the live renders for `afterSettle`.
 */
export async function afterCommit(
  server: TestServer,
  orgIds: ReadonlySet<string>,
): Promise<{ differences: Difference[]; live: Representations }> {
  const differences: Difference[] = [];
  const kv = server.services.kv;
  const stored = await storedOf(kv, orgIds);
  // Only representations with a current record can be answered from storage: the others
  // are answered live by the stored layer's rule (tests/edge/stored_pages_test.ts).
  const current = new Map<string, StoredCoding[]>();
  for (const [id, records] of stored) {
    const codings: StoredCoding[] = [];
    for (const [coding, entry] of records) {
      if (await isCurrent(kv, entry.value)) codings.push(coding);
    }
    if (codings.length > 0) current.set(id, codings);
  }
  const live: Representations = new Map();
  await pool([...current], async ([id, codings]) => {
    const space = id.indexOf(" ");
    const variant = id.slice(0, space) as Variant;
    const path = id.slice(space + 1);
    const rendered = await liveRender(server, path, variant);
    live.set(id, { path, variant, live: rendered });
    counts.urls++;
    for (const coding of codings) {
      counts.comparisons++;
      const got = await clientGet(server, path, variant, coding);
      const url = `${id} (${coding})`;
      if (got.status !== rendered.status) {
        differences.push({
          phase: "commit",
          url,
          what: `status ${got.status} vs live ${rendered.status}`,
        });
      } else if (got.type !== rendered.type) {
        differences.push({
          phase: "commit",
          url,
          what: `type ${got.type} vs live ${rendered.type}`,
        });
      } else if (!equalBytes(got.bytes, rendered.bytes)) {
        differences.push({
          phase: "commit",
          url,
          what: firstDifference(got.bytes, rendered.bytes),
        });
      }
    }
  });
  return { differences, live };
}

async function recordBytes(server: TestServer, record: StoredPage): Promise<Uint8Array | null> {
  if (record.body) return record.body;
  return await server.services.blobs.get(record.blob!).catch(() => null);
}

/**
 * After the jobs settled: every representation the render covers that answers 200 live is
 * stored in each coding, current, and equal to the live render once decoded; nothing else
 * of these organizations is stored. `reuse`: the live renders of `afterCommit`, when the data
 * did not change since.
 */
export async function afterSettle(
  server: TestServer,
  orgIds: ReadonlySet<string>,
  reuse: Representations | null = null,
): Promise<Difference[]> {
  const differences: Difference[] = [];
  const kv = server.services.kv;
  const { stored, all } = await representations(server, orgIds, reuse);
  const covered = new Set<string>();
  for (const orgId of orgIds) for (const p of await renderedPaths(kv, orgId)) covered.add(p);
  for (const [id, { path, live }] of all) {
    counts.urls++;
    const records = stored.get(id);
    const wanted = live.status === 200 && covered.has(path);
    if (!wanted) {
      if (records) {
        differences.push({
          phase: "settled",
          url: id,
          what: `stored (${[...records.keys()].join(",")}) but live answers ${live.status}${
            covered.has(path) ? "" : " and the render does not cover it"
          }`,
        });
      }
      continue;
    }
    if (!records?.get("identity")) {
      differences.push({ phase: "settled", url: id, what: "not stored" });
      continue;
    }
    for (const coding of CODINGS) {
      const entry = records.get(coding);
      if (!entry) continue;
      counts.comparisons++;
      const record = entry.value;
      const url = `${id} (${coding})`;
      if (!(await isCurrent(kv, record))) {
        differences.push({ phase: "settled", url, what: "stored at stale generations" });
        continue;
      }
      const raw = await recordBytes(server, record);
      if (!raw) {
        differences.push({ phase: "settled", url, what: "stored body missing" });
        continue;
      }
      const bytes = decode(raw, coding === "identity" ? null : coding);
      const type = record.headers.find(([name]) => name === "content-type")?.[1] ?? null;
      if (record.status !== live.status || type !== live.type) {
        differences.push({
          phase: "settled",
          url,
          what: `stored ${record.status} ${type} vs live ${live.status} ${live.type}`,
        });
      } else if (!equalBytes(bytes, live.bytes)) {
        differences.push({ phase: "settled", url, what: firstDifference(bytes, live.bytes) });
      }
    }
  }
  return differences;
}

/** Collections a render or a job's bookkeeping writes: not the data pages are made of. */
const NOT_DATA = /^(edge_|jobs|job_|leases|usage|webhook_deliver|outbound|login_)/;

/** The data pages are rendered from, as keys and versionstamps (renders reuse live bytes). */
export async function dataSnapshot(kv: Deno.Kv): Promise<string> {
  const rows: string[] = [];
  for await (const entry of kv.list({ prefix: [] })) {
    if (NOT_DATA.test(String(entry.key[0]))) continue;
    rows.push(`${JSON.stringify(entry.key)}@${entry.versionstamp}`);
  }
  return rows.join("\n");
}

/** The stored pages and render state of `orgIds`, as keys and versionstamps. */
export async function edgeSnapshot(
  kv: Deno.Kv,
  orgIds: ReadonlySet<string>,
): Promise<Map<string, string>> {
  const snapshot = new Map<string, string>();
  for (const collection of ["edge_page", "edge_gen", "edge_state", "edge_changed"]) {
    for await (const entry of kv.list<{ organizationId?: string }>({ prefix: [collection] })) {
      const owner = collection === "edge_page" ? entry.value.organizationId : entry.key[1];
      if (typeof owner === "string" && orgIds.has(owner)) {
        snapshot.set(JSON.stringify(entry.key), entry.versionstamp);
      }
    }
  }
  return snapshot;
}

/** The differences between two snapshots of organizations that must not be touched. */
export function untouched(before: Map<string, string>, after: Map<string, string>): Difference[] {
  const differences: Difference[] = [];
  for (const [key, stamp] of before) {
    if (!after.has(key)) differences.push({ phase: "untouched", url: key, what: "removed" });
    else if (after.get(key) !== stamp) {
      differences.push({ phase: "untouched", url: key, what: "written again" });
    }
  }
  for (const key of after.keys()) {
    if (!before.has(key)) differences.push({ phase: "untouched", url: key, what: "added" });
  }
  return differences;
}

// deno-lint-ignore no-explicit-any
type Json = any;

async function getJson(server: TestServer, path: string, token?: string): Promise<Json> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await server.app.fetch(new Request(new URL(path, server.baseUrl), { headers }));
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

/** Every page of a paged list, following nextCursor (bounded). */
async function walk(server: TestServer, path: string, field: string, token: string) {
  const items: Json[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const url: string = `${path}${sep}limit=2${
      cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""
    }`;
    const body = await getJson(server, url, token);
    items.push(...body[field]);
    cursor = body.nextCursor ?? null;
    if (!cursor) return items;
  }
  throw new Error(`${path}: more than 100 pages`);
}

async function scan<T>(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvEntry<T>[]> {
  const entries: Deno.KvEntry<T>[] = [];
  for await (const entry of kv.list<T>({ prefix })) entries.push(entry);
  return entries;
}

function sameSet(a: string[], b: string[]): boolean {
  return JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
}

/**
 * The ids of a project's domains by a full scan of its index, without pending claims lapsed by
 * the service's clock (KV expires their keys by the wall clock only).
 */
async function unlapsedDomains(kv: Deno.Kv, projectId: string): Promise<string[]> {
  const ids: string[] = [];
  for (const entry of await scan<string>(kv, ["domains_by_project", projectId])) {
    const domain = (await kv.get<ProjectDomain>(["domains", entry.value])).value;
    if (domain && !isDomainClaimLapsed(domain, clockNow())) ids.push(entry.key[2] as string);
  }
  return ids;
}

/** Whether the project or organization is scheduled for deletion (due or not). */
async function scheduled(kv: Deno.Kv, kind: string, id: string): Promise<boolean> {
  return (await kv.get(deletionKey(kind, id))).value !== null;
}

/**
 * The indexes of `orgIds` against a full scan of the records: public search (each project's
 * and organization's names as needles), the public answer search (each word of each public
 * answer), and the paged lists (projects, members, subscribers, collectors, domains).
 */
export async function indexes(
  server: TestServer,
  orgIds: ReadonlySet<string>,
  token: (orgId: string) => string | null,
): Promise<Difference[]> {
  const differences: Difference[] = [];
  const kv = server.services.kv;
  type ProjectRecord = {
    id: string;
    organizationId: string;
    slug: string;
    name: string;
    visibility: string;
  };
  const projects = (await scan<ProjectRecord>(kv, projectsPrefix())).map((e) => e.value)
    .filter((p) => typeof p?.slug === "string");
  const searchable: { project: ProjectRecord; names: string[]; orgNames: string[] }[] = [];
  for (const project of projects) {
    if (project.visibility !== "public") continue;
    if ((await kv.get(latestPublicationKey(project.id))).value === null) continue;
    const organization = await kv.get<{ name: string; slug: string }>(
      organizationKey(project.organizationId),
    );
    if (!organization.value) continue;
    if (await scheduled(kv, "project", project.id)) continue;
    if (await scheduled(kv, "organization", project.organizationId)) continue;
    const profile = await kv.get<{ displayName?: string; description?: string }>(
      organizationProfileKey(project.organizationId),
    );
    const publisher = publisherTerms(organization.value, {
      displayName: profile.value?.displayName ?? null,
      description: profile.value?.description ?? null,
    } as never);
    searchable.push({ project, names: projectNames(project), orgNames: publisher.names });
  }
  // Needles: every name of the organizations checked, and of their projects.
  const needles = new Set<string>();
  for (const entry of searchable) {
    if (!orgIds.has(entry.project.organizationId)) continue;
    needles.add(entry.names[1]);
    needles.add(entry.orgNames[2]);
  }
  for (const project of projects) {
    if (orgIds.has(project.organizationId)) needles.add(normaliseSearchText(project.name));
  }
  for (const needle of needles) {
    if (needle.length < 2) continue;
    const expected = searchable
      .filter((s) => nameRank(s.names, needle) >= 0 || nameRank(s.orgNames, needle) >= 0)
      .map((s) => s.project.slug);
    const body = await getJson(
      server,
      `/public/trust-profiles?query=${encodeURIComponent(needle)}&limit=100`,
    );
    const got = (body.results ?? body.profiles ?? body.projects ?? []).map((r: Json) =>
      r.projectSlug ?? r.slug ?? r.project?.slug
    );
    if (!sameSet(got, expected)) {
      differences.push({
        phase: "index",
        url: `/public/trust-profiles?query=${needle}`,
        what: `search gives [${got.sort()}] vs scan [${expected.sort()}]`,
      });
    }
    counts.comparisons++;
  }
  for (const orgId of orgIds) {
    const organization = await kv.get<{ slug: string }>(organizationKey(orgId));
    if (!organization.value) continue;
    const gone = await scheduled(kv, "organization", orgId);
    // Answer search: each word of each public answer's question, against the scan.
    type AnswerRecord = { id: string; question: string; visibility: string; category?: string };
    const answers = (await scan<AnswerRecord>(kv, answersPrefix(orgId))).map((e) => e.value)
      .filter((a) => typeof a?.question === "string");
    const words = new Set<string>();
    for (const answer of answers) {
      // The question's longest word: one query per answer.
      const [word] = answer.question.toLowerCase().split(/[^\p{L}\p{N}]+/u)
        .sort((a, b) => b.length - a.length);
      if (word && word.length >= 4) words.add(word);
    }
    if (!gone) {
      for (const word of words) {
        const expected = answers.filter((a) =>
          a.question.toLowerCase().split(/[^\p{L}\p{N}]+/u).includes(word)
        ).map((a) => a.id);
        const body = await getJson(
          server,
          `/public/trust/${organization.value.slug}/answers?q=${
            encodeURIComponent(word)
          }&limit=100`,
        );
        const got = (body.answers as Json[]).map((a) => a.id);
        // Every answer whose question has the word is found (others may match by answer text).
        const missing = expected.filter((id) => !got.includes(id));
        const unknown = got.filter((id: string) => !answers.some((a) => a.id === id));
        if (missing.length > 0 || unknown.length > 0) {
          differences.push({
            phase: "index",
            url: `/public/trust/${organization.value.slug}/answers?q=${word}`,
            what: `missing [${missing}] unknown [${unknown}]`,
          });
        }
        counts.comparisons++;
      }
    }
    const bearer = token(orgId);
    if (!bearer) continue;
    const lists: [string, string, string[]][] = [];
    const ofOrg = projects.filter((p) => p.organizationId === orgId);
    lists.push([`/organizations/${orgId}/projects`, "projects", ofOrg.map((p) => p.id)]);
    const members = await scan<{ userId: string }>(kv, ["memberships", orgId]);
    lists.push([
      `/organizations/${orgId}/members`,
      "members",
      members.map((m) => m.key[2] as string),
    ]);
    const subscriptions = (await scan<
      { id: string; organizationId: string; status: string; createdAt: string }
    >(kv, ["subscriptions"])).map((e) => e.value).filter((s) =>
      s?.organizationId === orgId &&
      // A pending subscription lapses after its TTL (KV expires it by the wall clock).
      (s.status === "confirmed" || Date.parse(s.createdAt) + PENDING_TTL_MS > clockNow().getTime())
    );
    lists.push([
      `/organizations/${orgId}/subscribers`,
      "subscribers",
      subscriptions.map((s) => s.id),
    ]);
    for (const project of ofOrg) {
      const collectors = await scan(kv, ["collectors_by_project", project.id]);
      lists.push([
        `/projects/${project.id}/collectors`,
        "collectors",
        collectors.map((c) => c.key[2] as string),
      ]);
      // A pending claim lapses after PENDING_DOMAIN_DAYS by the service's clock (every read
      // applies it); KV expires its keys by the wall clock, so the scan applies the same rule.
      lists.push([
        `/projects/${project.id}/domains`,
        "domains",
        await unlapsedDomains(kv, project.id),
      ]);
    }
    for (const [path, field, expected] of lists) {
      let got: string[];
      try {
        got = (await walk(server, path, field, bearer)).map((item: Json) =>
          item.id ?? item.userId ?? item.domain?.id ?? item.membership?.userId
        );
      } catch (error) {
        differences.push({ phase: "index", url: path, what: (error as Error).message });
        continue;
      }
      counts.comparisons++;
      if (!sameSet(got, expected) || new Set(got).size !== got.length) {
        differences.push({
          phase: "index",
          url: path,
          what: `pages give [${got}] vs scan [${expected}]`,
        });
      }
    }
  }
  return differences;
}
