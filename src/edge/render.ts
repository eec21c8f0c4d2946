/**
 * The render job: after a change to an organization's public data, render the stored URLs of
 * each group whose generations moved (src/domain/stored_urls.ts: the groups of each public project's
 * pages, and of its trust center, by what they read), through the app itself, store the bytes
 * (src/store/edge_pages.ts), and only then purge that group's tag at the edge. The job names
 * the groups its commit changed; without names (a touch by hand) every group is checked.
 *
 * Pages are rendered by the same routes that answer a request (the app's `fetch`, with a
 * marker that skips the stored layer), so a stored page and a rendered one cannot differ.
 * Each write checks that the generations read at the start did not move meanwhile: a change
 * during the render leaves the rest to the job that change staged, so a slower render never
 * overwrites a newer one. A failed purge makes the job fail and run again with backoff; its
 * next run only purges (the pages are stored already).
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { Config } from "../config.ts";
import type { Clock } from "../lib/clock.ts";
import { type Coding, compress, isCompressible } from "../lib/content_coding.ts";
import { sha256Hex } from "../lib/hash.ts";
import type { Logger } from "../lib/log.ts";
import { getDeletion, renderFence } from "../store/deletions.ts";
import { getOrganization } from "../store/organizations.ts";
import { listProjectsByOrganization } from "../store/projects.ts";
import { getLatestPublication } from "../store/publications.ts";
import type { Purger } from "./purge.ts";
import {
  CENTER_PAGES_SCOPE,
  clearPurgeFailure,
  dependencies,
  INLINE_BYTES,
  pageKey,
  recordPurgeFailure,
  type ScopeState,
  scopeStateKey,
  signature,
  type StoredCoding,
  type StoredPage,
  type Variant,
} from "../store/edge_pages.ts";
import { pageTags } from "./tags.ts";
import { CENTER_GROUPS, type PageGroup, PROJECT_GROUPS } from "../domain/stored_urls.ts";

/** The `env` an internal render passes to the app: the stored layer lets it through. */
export interface RenderEnv {
  edgeRender: true;
}

export interface RenderDeps {
  kv: Deno.Kv;
  blobs: BlobStore;
  clock: Clock;
  log: Logger;
  config: Config;
  purger: Purger;
  /** The app's own fetch; set once the app is built. */
  fetch: ((request: Request, env: RenderEnv) => Response | Promise<Response>) | null;
}

/** One group of one scope to render: its pages' URL paths, and their tags (the group's last). */
interface Scope {
  /** The scope: a project's id, or `center`. */
  id: string;
  projectId: string | null;
  group: PageGroup;
  paths: string[];
  tags: string[];
}

/** Pages of one scope rendered at once. */
const RENDER_CONCURRENCY = 4;

/** Representative Accept values of the three formats a negotiated URL answers in. */
const ACCEPTS: Record<Exclude<Variant, "any">, string> = {
  html: "text/html",
  md: "text/markdown",
  json: "application/json",
};

/** Headers that describe one transfer rather than the page: never stored. */
const TRANSFER_HEADERS = new Set([
  "content-length",
  "content-encoding",
  "etag",
  "date",
  "set-cookie",
  "transfer-encoding",
  "connection",
]);

/**
 * The groups of an organization's scopes (each public project with a version, and its trust
 * center) that `wanted` names (`scope:groupId`, `org:groupId` for every project's), or all.
 * The signed profile's group comes first: it is what machines poll.
 */
async function scopesOf(
  kv: Deno.Kv,
  organizationId: string,
  now: Date,
  wanted: ReadonlySet<string> | null,
): Promise<Scope[]> {
  const organization = await getOrganization(kv, organizationId);
  // An organization (or project) whose deletion job may be running keeps no render state:
  // its pages were dropped when the deletion was scheduled, and the job removes the rest.
  if (!organization || await beingDeleted(kv, "organization", organizationId, now)) return [];
  const named = (scope: string, group: PageGroup) =>
    wanted === null || wanted.has(`${scope}:${group.id}`) ||
    (scope !== CENTER_PAGES_SCOPE && wanted.has(`org:${group.id}`));
  const scopes: Scope[] = [];
  if (wanted === null || [...wanted].some((w) => !w.startsWith(`${CENTER_PAGES_SCOPE}:`))) {
    const projects = await listProjectsByOrganization(kv, organizationId);
    for (const project of projects) {
      const groups = PROJECT_GROUPS.filter((group) => named(project.id, group));
      if (groups.length === 0 || await beingDeleted(kv, "project", project.id, now)) continue;
      const published = project.visibility === "public" &&
        (await getLatestPublication(kv, project.id)) !== null;
      for (const group of groups) {
        scopes.push({
          id: project.id,
          projectId: project.id,
          group,
          // A private or unpublished project keeps no stored page: its URLs answer 404 live.
          paths: published ? group.paths.map((p) => `/trust/${project.slug}${p}`) : [],
          tags: pageTags(organizationId, project.id, group.name),
        });
      }
    }
  }
  for (const group of CENTER_GROUPS) {
    if (!named(CENTER_PAGES_SCOPE, group)) continue;
    scopes.push({
      id: CENTER_PAGES_SCOPE,
      projectId: null,
      group,
      paths: group.paths.map((p) => `/public/trust/${organization.slug}${p}`),
      tags: pageTags(organizationId, null, group.name),
    });
  }
  // In the declared order of groups (the signed profile first), each for every project.
  const rank = (scope: Scope) =>
    scope.projectId === null
      ? PROJECT_GROUPS.length + CENTER_GROUPS.indexOf(scope.group)
      : PROJECT_GROUPS.indexOf(scope.group);
  return scopes.sort((a, b) => rank(a) - rank(b));
}

/** Whether the deletion of a project or an organization is due (its job may be removing it). */
async function beingDeleted(
  kv: Deno.Kv,
  kind: "project" | "organization",
  id: string,
  now: Date,
): Promise<boolean> {
  const deletion = await getDeletion(kv, kind, id);
  return deletion !== null && Date.parse(deletion.dueAt) <= now.getTime();
}

/** Renders one URL in one format through the app. */
async function renderOne(deps: RenderDeps, path: string, accept: string): Promise<Response> {
  const url = new URL(path, deps.config.baseUrl);
  const request = new Request(url, { headers: { accept, host: url.host } });
  return await deps.fetch!(request, { edgeRender: true });
}

/** The records of one rendered representation, one per coding worth keeping. */
async function recordsOf(
  deps: RenderDeps,
  response: Response,
  base: Omit<StoredPage, "status" | "headers" | "etag" | "body" | "blob">,
): Promise<Map<StoredCoding, StoredPage>> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (!TRANSFER_HEADERS.has(name)) headers.push([name, value]);
  });
  const digest = await sha256Hex(bytes);
  const etag = response.headers.get("etag") ?? `"${digest.slice(0, 32)}"`;
  const records = new Map<StoredCoding, StoredPage>();
  const keep = async (coding: StoredCoding, body: Uint8Array) => {
    const record: StoredPage = { ...base, status: response.status, headers, etag };
    if (body.byteLength <= INLINE_BYTES) record.body = body;
    else record.blob = await deps.blobs.put("artifact", body);
    records.set(coding, record);
  };
  await keep("identity", bytes);
  if (isCompressible(response.headers.get("content-type"))) {
    for (const coding of ["br", "gzip"] as Coding[]) {
      const encoded = await compress(bytes, coding, "stored");
      if (encoded.byteLength < bytes.byteLength) await keep(coding, encoded);
    }
  }
  return records;
}

/** The outcome of rendering one scope: stored, or stopped by a newer change. */
type ScopeOutcome = { kind: "stored"; paths: string[] } | { kind: "superseded" };

/** The variants a path may be stored in (before rendering says which). */
const ALL_VARIANTS: readonly Variant[] = ["any", "html", "md", "json"];

/**
 * The scope's stored entries as a deletion enumerates them: what the last render stored, and
 * every variant of the paths a render announced it was writing (`writing`) and may not have
 * finished.
 */
function listedEntries(state: (ScopeState & { writing?: string[] }) | null): string[] {
  const writing = (state?.writing ?? []).flatMap((path) => ALL_VARIANTS.map((v) => `${v} ${path}`));
  return [...new Set([...(state?.paths ?? []), ...writing])];
}

async function renderScope(
  deps: RenderDeps,
  organizationId: string,
  scope: Scope,
  generations: Deno.KvEntryMaybe<unknown>[],
  previous: ScopeState | null,
  fence: Deno.KvEntryMaybe<unknown>[],
): Promise<ScopeOutcome> {
  const { kv, clock } = deps;
  const base = {
    organizationId,
    projectId: scope.projectId,
    group: scope.group.id,
    generations: signature(generations),
    tags: scope.tags,
    renderedAt: clock.now().toISOString(),
  };
  const stored: string[] = [];
  const write = async (path: string, variant: Variant, records: Map<StoredCoding, StoredPage>) => {
    const op = kv.atomic();
    for (const entry of [...generations, ...fence]) op.check(entry);
    for (const coding of ["identity", "gzip", "br"] as StoredCoding[]) {
      const record = records.get(coding);
      if (record) op.set(pageKey(path, variant, coding), record);
      else op.delete(pageKey(path, variant, coding));
    }
    return (await op.commit()).ok;
  };
  let superseded = false;
  const renderPath = async (path: string) => {
    const first = await renderOne(deps, path, ACCEPTS.html);
    if (first.status !== 200) {
      await first.body?.cancel();
      return;
    }
    const negotiated = /(^|,)\s*accept\s*(,|$)/i.test(first.headers.get("vary") ?? "");
    const variants: [Variant, Response][] = negotiated
      ? [
        ["html", first],
        ["md", await renderOne(deps, path, ACCEPTS.md)],
        ["json", await renderOne(deps, path, ACCEPTS.json)],
      ]
      : [["any", first]];
    for (const [variant, response] of variants) {
      if (response.status !== 200 || superseded) {
        await response.body?.cancel();
        continue;
      }
      const records = await recordsOf(deps, response, base);
      if (!(await write(path, variant, records))) superseded = true;
      else stored.push(`${variant} ${path}`);
    }
  };
  // A few at once: compression runs off the JavaScript thread, so pages overlap.
  const queue = [...scope.paths];
  await Promise.all(
    Array.from({ length: RENDER_CONCURRENCY }, async () => {
      while (queue.length > 0 && !superseded) await renderPath(queue.shift()!);
    }),
  );
  if (superseded) return { kind: "superseded" };
  // What the previous render stored and this one did not (a renamed slug, a project made
  // private, a page that now answers 404) goes, so the request path answers it live.
  const gone = listedEntries(previous).filter((entry) => !stored.includes(entry));
  for (let i = 0; i < gone.length; i += 50) {
    const op = kv.atomic();
    for (const entry of [...generations, ...fence]) op.check(entry);
    for (const entry of gone.slice(i, i + 50)) {
      const space = entry.indexOf(" ");
      const variant = entry.slice(0, space) as Variant;
      const path = entry.slice(space + 1);
      for (const coding of ["identity", "gzip", "br"] as StoredCoding[]) {
        op.delete(pageKey(path, variant, coding));
      }
    }
    if (!(await op.commit()).ok) return { kind: "superseded" };
  }
  return { kind: "stored", paths: stored };
}

/**
 * Purges `tags`; a failure is recorded (live status) on the organization and each state. The
 * log line says how long after the render began (`startedAt`, epoch ms) the purge was done.
 */
async function purgeOrFail(
  deps: RenderDeps,
  organizationId: string,
  tags: string[],
  states: Deno.KvEntryMaybe<ScopeState>[],
  startedAt: number,
): Promise<void> {
  const { kv } = deps;
  try {
    await deps.purger.purge(tags);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await recordPurgeFailure(kv, {
      organizationId,
      error: message.slice(0, 500),
      at: deps.clock.now().toISOString(),
    });
    for (const state of states) {
      await kv.atomic().check(state).set(state.key, { ...state.value!, purgeError: message })
        .commit();
    }
    throw error;
  }
  for (const state of states) {
    await kv.atomic().check(state).set(state.key, {
      ...state.value!,
      purged: true,
      purgeError: null,
    }).commit();
  }
  if (deps.purger.kind !== "none") {
    deps.log.info("Edge purged", {
      organizationId,
      tags: tags.join(" "),
      sinceRenderStartMs: Date.now() - startedAt,
    });
  }
}

/**
 * Renders what changed in `organizationId` (the groups `groups` names, `scope:groupId`, or
 * every group) and purges each group's tag as soon as its pages are stored, so the first
 * group's pages reach readers without waiting for the rest. Returns the tags purged (empty
 * when nothing had changed since the last run).
 */
export async function renderOrganization(
  deps: RenderDeps,
  organizationId: string,
  groups: readonly string[] | null = null,
): Promise<string[]> {
  if (!deps.fetch) throw new Error("The app is not ready to render pages yet");
  const { kv } = deps;
  const startedAt = Date.now();
  const wanted = groups === null ? null : new Set(groups);
  const scopes = await scopesOf(kv, organizationId, deps.clock.now(), wanted);
  const purged: string[] = [];
  const fences = new Map<string, Deno.KvEntryMaybe<unknown>[] | null>();
  for (const scope of scopes) {
    // Every write below also checks the tenant's deletion keys as read here: a deletion that
    // starts meanwhile makes them fail, so no page, and no scope state, outlives it.
    if (!fences.has(scope.id)) {
      fences.set(
        scope.id,
        await renderFence(
          kv,
          { organizationId, projectId: scope.projectId },
          deps.clock.now(),
        ),
      );
    }
    const fence = fences.get(scope.id)!;
    if (fence === null) continue;
    const stateKey = scopeStateKey(organizationId, scope.id, scope.group.id);
    const dependencyKeys = dependencies({ organizationId, ...scope, group: scope.group.id });
    const [stateEntry, ...generations] = await kv.getMany([stateKey, ...dependencyKeys]);
    let state = stateEntry as Deno.KvEntryMaybe<ScopeState & { writing?: string[] }>;
    const sig = signature(generations).join(",");
    // The group's tag (pages also carry the organization's and the project's or center's).
    const tag = scope.tags.at(-1)!;
    if (state.value?.rendered === sig) {
      if (!state.value.purged) {
        await purgeOrFail(
          deps,
          organizationId,
          [tag],
          [state as Deno.KvEntryMaybe<ScopeState>],
          startedAt,
        );
        purged.push(tag);
      }
      continue;
    }
    // The paths about to be written are on the scope's state first (what a deletion lists):
    // a render stopped half way leaves no stored page that nothing leads to.
    const known = new Set([
      ...(state.value?.writing ?? []),
      ...(state.value?.paths ?? []).map((entry) => entry.slice(entry.indexOf(" ") + 1)),
    ]);
    if (scope.paths.some((path) => !known.has(path))) {
      const announced = {
        ...(state.value ?? { rendered: "", purged: true, paths: [], renderedAt: "" }),
        purgeError: state.value?.purgeError ?? null,
        writing: [...new Set([...(state.value?.writing ?? []), ...scope.paths])],
      };
      const op = kv.atomic().check(state).set(stateKey, announced);
      for (const entry of fence) op.check(entry);
      const committed = await op.commit();
      if (!committed.ok) continue;
      state = { key: stateKey, value: announced, versionstamp: committed.versionstamp };
    }
    const checked = [...generations, ...fence];
    const outcome = await renderScope(deps, organizationId, scope, generations, state.value, fence);
    if (outcome.kind === "superseded") continue;
    const next: ScopeState = {
      rendered: sig,
      purged: false,
      paths: outcome.paths,
      renderedAt: deps.clock.now().toISOString(),
      purgeError: null,
    };
    const op = kv.atomic().check(state).set(stateKey, next);
    for (const entry of checked) op.check(entry);
    const committed = await op.commit();
    if (!committed.ok) continue;
    await purgeOrFail(deps, organizationId, [tag], [
      { key: stateKey, value: next, versionstamp: committed.versionstamp },
    ], startedAt);
    purged.push(tag);
  }
  if (purged.length > 0) await clearPurgeFailure(kv, organizationId);
  return purged;
}
