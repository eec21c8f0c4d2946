/**
 * Public search's index, maintained on write so a query costs the same whatever the number
 * of projects. A searchable project (public and published at least once) has one entry per
 * term of its slug and name; its organization, while it has a searchable project, one entry
 * per term of its name, slug, display name and description words. A term is a normalised
 * prefix (at most MAX_TERM_LENGTH characters) of a name or of a name's tail from a word start;
 * each entry's key carries the match rank, so listing one term yields the best matches first.
 *
 * Writers add the entries to the same atomic commit as the change that alters what search
 * shows: first publish (publications.ts), visibility or name change (projects.ts), profile
 * change (org_profiles.ts), deletion (`removeFromSearchIndex`). Every commit that writes an
 * organization's entries checks and bumps its stamp, so two of them cannot interleave.
 * `ensureSearchIndex` backfills, once, projects written before the index existed.
 */
import { oncePerDatabase } from "./once_per_database.ts";
import type { Organization, Project } from "../domain/workspace.ts";
import { emptyProfile, type StoredOrganizationProfile } from "../domain/vendor.ts";
import {
  deletionKey,
  latestPublicationKey,
  organizationKey,
  organizationProfileKey,
  projectKey,
  projectsPrefix,
  searchBackfillKey,
  searchOrganizationStampKey,
  searchProjectByOrganizationKey,
  searchProjectsByOrganizationPrefix,
  searchTermKey,
  searchTermPrefix,
} from "./keys.ts";

/** Longest indexed term; a longer query is looked up by its first characters, then checked. */
export const MAX_TERM_LENGTH = 16;
/** Terms kept per project (its whole names first, then tails from word starts). */
const MAX_PROJECT_TERMS = 150;
/** Terms kept per organization (names first, then description words in order). */
const MAX_ORGANIZATION_TERMS = 250;
/** Characters of the sort name in a key: entries of one rank come out in this order. */
const SORT_LENGTH = 10;
/** Projects read per matching organization. */
const PROJECTS_PER_ORGANIZATION = 40;

/** Lower case, compatibility-folded, every run of non-letters-or-digits one space, trimmed. */
export function normaliseSearchText(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/** The tails of a normalised text that start at a word: itself, then after each space. */
function wordTails(text: string): string[] {
  const tails = [text];
  for (let i = text.indexOf(" "); i >= 0; i = text.indexOf(" ", i + 1)) {
    tails.push(text.slice(i + 1));
  }
  return tails;
}

/**
 * How well normalised names match a normalised needle: 0 one equals it, 1 one starts with
 * it, 2 a word inside one starts with it (the needle may span words), -1 none.
 */
export function nameRank(names: readonly string[], needle: string): number {
  if (names.some((n) => n === needle)) return 0;
  if (names.some((n) => n.startsWith(needle))) return 1;
  return names.some((n) => wordTails(n).some((t) => t.startsWith(needle))) ? 2 : -1;
}

/**
 * Whether a normalised description has the needle from a word start. Its words are indexed
 * one by one: a needle of several words is looked up by its first word.
 */
export function descriptionMatches(description: string, needle: string): boolean {
  return wordTails(description).some((t) => t.startsWith(needle));
}

/** The names search matches a project by, normalised. */
export function projectNames(project: Pick<Project, "slug" | "name">): string[] {
  return [normaliseSearchText(project.slug), normaliseSearchText(project.name)];
}

/** What search matches an organization by: its names (as shown and as stored) and words. */
export interface PublisherTerms {
  names: string[];
  description: string;
  sort: string;
}

/** The names and description search matches an organization by, normalised. */
export function publisherTerms(
  organization: Pick<Organization, "name" | "slug">,
  profile: Pick<StoredOrganizationProfile, "displayName" | "description">,
): PublisherTerms {
  const shown = profile.displayName ?? organization.name;
  return {
    names: [organization.name, organization.slug, shown].map(normaliseSearchText),
    description: normaliseSearchText(profile.description ?? ""),
    sort: sortName(shown),
  };
}

function sortName(name: string): string {
  return normaliseSearchText(name).slice(0, SORT_LENGTH);
}

/** The term a needle is looked up by. */
export function lookupTerm(needle: string): string {
  return needle.slice(0, MAX_TERM_LENGTH).trimEnd();
}

/** Adds every prefix of `text` (up to MAX_TERM_LENGTH) with `rank`, keeping the best rank. */
function addPrefixes(terms: Map<string, number>, text: string, rank: (term: string) => number) {
  const end = Math.min(text.length, MAX_TERM_LENGTH);
  for (let length = 1; length <= end; length++) {
    const term = text.slice(0, length);
    if (term.endsWith(" ")) continue;
    const r = rank(term);
    const current = terms.get(term);
    if (current === undefined || r < current) terms.set(term, r);
  }
}

/** Caps a term map at `max` entries, keeping the first added (Maps keep insertion order). */
function capped(terms: Map<string, number>, max: number): Map<string, number> {
  return terms.size <= max ? terms : new Map([...terms].slice(0, max));
}

/** Terms of names, ranked from `base`: +0 the whole name, +1 its prefix, +2 a word's. */
function nameTerms(names: readonly string[], base: number, terms = new Map<string, number>()) {
  for (const name of names) {
    addPrefixes(terms, name, (t) => base + (t === name ? 0 : 1));
  }
  for (const name of names) {
    for (const tail of wordTails(name).slice(1)) addPrefixes(terms, tail, () => base + 2);
  }
  return terms;
}

/** A project's index terms, each with its rank (0–2). */
export function projectTerms(project: Pick<Project, "slug" | "name">): Map<string, number> {
  return capped(nameTerms(projectNames(project), 0), MAX_PROJECT_TERMS);
}

/** An organization's index terms, each with its rank (3–5 names, 6 description words). */
export function organizationTerms(publisher: PublisherTerms): Map<string, number> {
  const terms = nameTerms(publisher.names, 3);
  for (const word of publisher.description.split(" ").filter(Boolean)) {
    addPrefixes(terms, word, () => 6);
  }
  return capped(terms, MAX_ORGANIZATION_TERMS);
}

function setProjectEntries(op: Deno.AtomicOperation, project: Project) {
  const sort = sortName(project.name);
  for (const [term, rank] of projectTerms(project)) {
    op.set(searchTermKey(term, rank, sort, project.id), 1);
  }
  op.set(searchProjectByOrganizationKey(project.organizationId, sort, project.id), 1);
}

function deleteProjectEntries(op: Deno.AtomicOperation, project: Project) {
  const sort = sortName(project.name);
  for (const [term, rank] of projectTerms(project)) {
    op.delete(searchTermKey(term, rank, sort, project.id));
  }
  op.delete(searchProjectByOrganizationKey(project.organizationId, sort, project.id));
}

function organizationEntryKeys(organizationId: string, publisher: PublisherTerms) {
  return [...organizationTerms(publisher)].map(([term, rank]) =>
    searchTermKey(term, rank, publisher.sort, organizationId)
  );
}

/** What an organization's entries are built from, with the entries to check them by. */
interface PublisherState {
  organization: Organization | null;
  profile: Deno.KvEntryMaybe<StoredOrganizationProfile>;
  stamp: Deno.KvEntryMaybe<unknown>;
}

async function publisherState(kv: Deno.Kv, organizationId: string): Promise<PublisherState> {
  const [organization, profile, stamp] = await kv.getMany<
    [Organization, StoredOrganizationProfile, unknown]
  >([
    organizationKey(organizationId),
    organizationProfileKey(organizationId),
    searchOrganizationStampKey(organizationId),
  ]);
  return { organization: organization.value, profile, stamp };
}

/** Checks that the profile and stamp are still as read, and bumps the stamp. */
function guard(op: Deno.AtomicOperation, organizationId: string, state: PublisherState) {
  op.check(state.profile, state.stamp)
    .set(searchOrganizationStampKey(organizationId), crypto.randomUUID());
}

function termsOf(state: PublisherState, organizationId: string): PublisherTerms | null {
  if (!state.organization) return null;
  return publisherTerms(state.organization, state.profile.value ?? emptyProfile(organizationId));
}

/**
 * Adds to `op` the writes that make `project` (public and published) searchable: its
 * entries and, with a check on the organization's profile and stamp, its organization's.
 */
export async function addToSearchIndex(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  project: Project,
): Promise<void> {
  const state = await publisherState(kv, project.organizationId);
  guard(op, project.organizationId, state);
  setProjectEntries(op, project);
  const publisher = termsOf(state, project.organizationId);
  if (publisher) {
    for (const key of organizationEntryKeys(project.organizationId, publisher)) op.set(key, 1);
  }
}

/**
 * Adds to `op` the deletes that take `project` out of search (made private, deleted), and
 * its organization's entries when it was the organization's last searchable project. For
 * the deletion of a project; safe on a project that was never indexed.
 */
export async function removeFromSearchIndex(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  project: Project,
): Promise<void> {
  const state = await publisherState(kv, project.organizationId);
  guard(op, project.organizationId, state);
  deleteProjectEntries(op, project);
  const others = kv.list({ prefix: searchProjectsByOrganizationPrefix(project.organizationId) }, {
    limit: 2,
  });
  for await (const entry of others) {
    if (entry.key.at(-1) !== project.id) return;
  }
  const publisher = termsOf(state, project.organizationId);
  if (publisher) {
    for (const key of organizationEntryKeys(project.organizationId, publisher)) op.delete(key);
  }
}

/** Adds to `op` the deletes of every entry of an organization (for its deletion). */
export async function removeOrganizationFromSearchIndex(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  organizationId: string,
): Promise<void> {
  const state = await publisherState(kv, organizationId);
  guard(op, organizationId, state);
  const publisher = termsOf(state, organizationId);
  if (publisher) {
    for (const key of organizationEntryKeys(organizationId, publisher)) op.delete(key);
  }
}

function searchable(project: Project, latest: Deno.KvEntryMaybe<unknown>): boolean {
  return project.visibility === "public" && latest.value !== null;
}

/**
 * Adds to `op` (the commit of `after`, which checks `before`'s entry) the index changes of
 * a project update: in, out, or renamed. The latest-version pointer is checked too, so a
 * first publish cannot slip between.
 */
export async function reindexProjectUpdate(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  before: Project,
  after: Project,
): Promise<void> {
  if (before.visibility === after.visibility && before.name === after.name) return;
  const latest = await kv.get(latestPublicationKey(before.id));
  op.check(latest);
  const was = searchable(before, latest);
  const is = searchable(after, latest);
  if (was && is) {
    deleteProjectEntries(op, before);
    setProjectEntries(op, after);
  } else if (was) await removeFromSearchIndex(kv, op, before);
  else if (is) await addToSearchIndex(kv, op, after);
}

/**
 * Adds to `op` (the commit of an organization's new profile, which checks the old one) the
 * swap of its entries from the old profile's terms to the new, when it has searchable
 * projects; the stamp is checked and bumped either way.
 */
export async function reindexProfileUpdate(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  organizationId: string,
  before: StoredOrganizationProfile,
  after: StoredOrganizationProfile,
): Promise<void> {
  const [organization, stamp] = await kv.getMany<[Organization, unknown]>([
    organizationKey(organizationId),
    searchOrganizationStampKey(organizationId),
  ]);
  op.check(stamp).set(searchOrganizationStampKey(organizationId), crypto.randomUUID());
  if (!organization.value) return;
  const listed = kv.list({ prefix: searchProjectsByOrganizationPrefix(organizationId) }, {
    limit: 1,
  });
  let any = false;
  for await (const _ of listed) any = true;
  if (!any) return;
  const old = organizationEntryKeys(organizationId, publisherTerms(organization.value, before));
  const next = organizationEntryKeys(organizationId, publisherTerms(organization.value, after));
  for (const key of old) op.delete(key);
  for (const key of next) op.set(key, 1);
}

/** A project an index entry points at, with the rank of the entry that found it. */
export interface SearchCandidate {
  projectId: string;
  rank: number;
}

/**
 * Projects whose entries match a normalised needle, best ranks first: a project's own
 * entries, then, for each matching organization, its searchable projects. Lazy: the caller
 * stops reading when it has enough, so a query reads a bounded number of entries.
 */
export async function* searchCandidates(
  kv: Deno.Kv,
  needle: string,
): AsyncGenerator<SearchCandidate> {
  const term = lookupTerm(needle);
  if (!term) return;
  yield* candidatesOf(kv, kv.list({ prefix: searchTermPrefix(term) }, { batchSize: 25 }));
  const space = needle.indexOf(" ");
  if (space < 0) return;
  // Description words are indexed alone: a needle of several words by its first word.
  const word = lookupTerm(needle.slice(0, space));
  const descriptions = kv.list({
    start: searchTermKeyRank(word, 6),
    end: searchTermKeyRank(word, 7),
  }, { batchSize: 25 });
  yield* candidatesOf(kv, descriptions);
}

/** The start of one term's entries of one rank. */
function searchTermKeyRank(term: string, rank: number): Deno.KvKey {
  return [...searchTermPrefix(term), rank];
}

async function* candidatesOf(
  kv: Deno.Kv,
  entries: Deno.KvListIterator<unknown>,
): AsyncGenerator<SearchCandidate> {
  for await (const entry of entries) {
    const rank = entry.key[2] as number;
    const id = entry.key[4] as string;
    if (rank < 3) {
      yield { projectId: id, rank };
      continue;
    }
    const projects = kv.list({ prefix: searchProjectsByOrganizationPrefix(id) }, {
      limit: PROJECTS_PER_ORGANIZATION,
    });
    for await (const project of projects) yield { projectId: project.key[3] as string, rank };
  }
}

/** Commits the entries of one project written before the index existed, if it is searchable. */
async function backfillProject(kv: Deno.Kv, project: Project): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const [current, latest, listed, deleting, orgDeleting] = await kv.getMany<
      [Project, unknown, unknown, unknown, unknown]
    >([
      projectKey(project.id),
      latestPublicationKey(project.id),
      searchProjectByOrganizationKey(project.organizationId, sortName(project.name), project.id),
      deletionKey("project", project.id),
      deletionKey("organization", project.organizationId),
    ]);
    if (!current.value || !searchable(current.value, latest) || listed.value !== null) return;
    // A project whose deletion is scheduled stays out of search (src/store/deletions.ts).
    if (deleting.value !== null || orgDeleting.value !== null) return;
    const op = kv.atomic().check(current, latest, listed);
    await addToSearchIndex(kv, op, current.value);
    if ((await op.commit()).ok) return;
  }
}

/** Indexes every searchable project that is not yet (idempotent), then marks the index full. */
export async function backfillSearchIndex(kv: Deno.Kv): Promise<number> {
  let scanned = 0;
  for await (const entry of kv.list<Project>({ prefix: projectsPrefix() }, { batchSize: 500 })) {
    scanned++;
    if (entry.value.visibility === "public") await backfillProject(kv, entry.value);
  }
  await kv.set(searchBackfillKey(), { at: new Date().toISOString(), scanned });
  return scanned;
}

/**
 * Backfills the index once per database, the first time search runs in a process: an
 * instance upgraded from before the index finds its projects; later calls cost nothing.
 */
export const ensureSearchIndex: (kv: Deno.Kv) => Promise<void> = oncePerDatabase(
  searchBackfillKey(),
  backfillSearchIndex,
);
