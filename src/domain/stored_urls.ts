/**
 * The public URLs kept as stored bytes, relative to a project's `/trust/{projectSlug}` and an
 * organization's `/public/trust/{orgSlug}`: every GET route there with no other parameter
 * (tests/edge/stored_pages_test.ts checks this list against /openapi.json). Not stored, and so
 * answered live: URLs with a query (answer search), one update or one document by id, the
 * access-request form, versioned URLs (immutable artifacts served as they are), the log
 * (a project's index in it shows the whole log's size, which every publish of any project
 * moves), a project's security.txt (its Expires is counted from the moment it is read), a trust
 * center's status, access guide and ADS document (the status moves with every answer; docs/ads.md)
 * and the cross-vendor directory and search. What is answered live is not tagged for the edge either:
 * no purge would reach it, so the platform's CDN does not keep it.
 */
import { sha256HexSync } from "../lib/hash.ts";

/**
 * What a stored page is rendered from, declared once per URL: names of key collections
 * (src/store/tenant_keys.ts) whose writes alter public pages, and `changes`, the organization's
 * last public change (any commit that alters a page of the organization: the latest page's
 * "as of"). A commit re-renders (and purges) only the pages that read a collection it mutated
 * (src/store/public_writes.ts); tests/edge/page_reads_test.ts traces every stored URL's render
 * and fails on a public collection it reads without declaring it, and the differential suite
 * (tests/differential/) compares every stored URL with a fresh render after every operation.
 */
export type PageRead = "changes" | string;

/** The stored URLs that read the same data: rendered, kept current and purged together. */
export interface PageGroup {
  /** Short name, part of the group's id, its generation key and its edge tag. */
  name: string;
  /** Paths relative to the scope (`""` is the page itself; `.md` and `.html` by suffix). */
  paths: readonly string[];
  reads: readonly PageRead[];
  /** `name` and a digest of `paths` and `reads`: a changed declaration is a new group. */
  id: string;
}

/** A version's records, its parts and the latest pointer (always written together). */
const PUBLICATION = ["publications", "publication_parts", "publications_latest"];
const UPDATES = ["updates", "updates_by_posted", "updates_open_incidents"];
/** A document or certification of one project names it (and is withdrawn with it). */
const DOCUMENTS = ["documents", "nda_versions", "projects"];
const CERTIFICATIONS = ["certifications", "projects"];
const SUBPROCESSORS = ["subprocessors", "subprocessor_events"];
/**
 * What every page of a project reads: its record (slug, visibility; a custom domain or hosted
 * subdomain answers its pages, so a domain verified or removed is a change of all of them), and
 * whether its or its organization's deletion is scheduled (410).
 */
const PROJECT_BASE = ["projects", "deletions", "domains", "domains_by_project"];
/** What every page of a trust center reads: the organization and whether it is scheduled gone. */
const CENTER_BASE = ["organizations", "deletions"];

function groups(
  scope: string,
  list: readonly { name: string; paths: readonly string[]; reads: readonly PageRead[] }[],
  base: readonly string[],
): readonly PageGroup[] {
  return list.map((group) => {
    const reads = [...new Set([...base, ...group.reads])].sort();
    const digest = sha256HexSync(JSON.stringify([scope, group.paths, reads])).slice(0, 8);
    return { ...group, reads, id: `${group.name}.${digest}` };
  });
}

/**
 * The stored pages under `/trust/{projectSlug}`, by what they read, in the order a render
 * stores and purges them (then the trust center's).
 */
export const PROJECT_GROUPS: readonly PageGroup[] = groups("project", [
  {
    // The signed profile, what machines poll: rendered and purged first.
    name: "signed",
    paths: ["/trust.json", "/trust.json.jws"],
    reads: PUBLICATION,
  },
  {
    // The rest of what is computed from the version alone.
    name: "version",
    paths: [
      "/controls",
      "/versions",
      "/versions.html",
      "/versions.md",
      "/badge.svg",
      "/badge.json",
      "/oscal-assessment-results.json",
      "/oscal-assessment-results.json.jws",
      "/vsa.intoto.json",
      "/security-insights.json",
      "/security-insights.json.jws",
    ],
    reads: PUBLICATION,
  },
  {
    // The latest page: the signed version with its live sections (src/serve/live_sections.ts)
    // and the footer's "as of" (the organization's last public change).
    name: "latest",
    paths: ["", ".md", ".html"],
    reads: [
      ...PUBLICATION,
      ...UPDATES,
      ...DOCUMENTS,
      ...SUBPROCESSORS,
      "organizations",
      "organization_profiles",
      ...CERTIFICATIONS,
      "answers",
      "control_criteria",
      "changes",
    ],
  },
  {
    name: "frameworks",
    paths: ["/frameworks", "/frameworks.html", "/frameworks.md"],
    reads: [...PUBLICATION, "control_criteria"],
  },
  { name: "feed", paths: ["/feed.xml"], reads: [...PUBLICATION, ...UPDATES] },
  { name: "signals", paths: ["/signals"], reads: ["signals_latest"] },
  { name: "setup", paths: ["/setup.md"], reads: ["collectors", "collectors_by_project"] },
  { name: "updates", paths: ["/updates", "/updates.html", "/updates.md"], reads: UPDATES },
  {
    name: "documents",
    paths: ["/documents", "/documents.md"],
    reads: [...DOCUMENTS, "organizations"],
  },
], PROJECT_BASE);

/** The stored pages under `/public/trust/{orgSlug}` (the trust center), by what they read. */
export const CENTER_GROUPS: readonly PageGroup[] = groups("center", [
  {
    // The organization's page lists its public projects with their latest versions.
    name: "center",
    paths: ["", ".md", ".html"],
    reads: [
      ...PUBLICATION,
      ...UPDATES,
      ...DOCUMENTS,
      "organization_profiles",
      ...CERTIFICATIONS,
      "answers",
      "projects",
      // The JSON's publisherChange: the slug taken after a release (written with the record).
      "log_name_changes",
    ],
  },
  { name: "subprocessors", paths: ["/subprocessors", "/subprocessors.md"], reads: SUBPROCESSORS },
  { name: "documents", paths: ["/documents", "/documents.md"], reads: DOCUMENTS },
  {
    // Answers cite controls (their live state), certifications and documents of the projects.
    // The downloads (CSV, workbook) hold the same list as the pages.
    name: "answers",
    paths: ["/answers", "/answers.html", "/answers.md", "/answers.csv", "/answers.xlsx"],
    reads: [
      ...PUBLICATION,
      ...DOCUMENTS,
      "answers",
      ...CERTIFICATIONS,
      "controls",
      "control_criteria",
      "projects",
    ],
  },
  {
    name: "certifications",
    paths: ["/certifications"],
    reads: [...CERTIFICATIONS, "nda_versions"],
  },
], CENTER_BASE);

/** Paths under `/trust/{projectSlug}` ("" is the latest page itself; `.md` and `.html` by suffix). */
export const PROJECT_PATHS: readonly string[] = PROJECT_GROUPS.flatMap((g) => g.paths);

/** Paths under `/public/trust/{orgSlug}` (the trust center, also by suffix). */
export const CENTER_PATHS: readonly string[] = CENTER_GROUPS.flatMap((g) => g.paths);

const groupOfPath = (list: readonly PageGroup[]) =>
  new Map(list.flatMap((group) => group.paths.map((path) => [path, group] as const)));
const PROJECT_GROUP_OF = groupOfPath(PROJECT_GROUPS);
const CENTER_GROUP_OF = groupOfPath(CENTER_GROUPS);

/** Where a stored URL's project or organization is named (its scope and slug), its group. */
export function storedScopeOf(
  path: string,
): { kind: "project" | "center"; slug: string; group: PageGroup } | null {
  const match = /^\/(trust|public\/trust)\/([^/]+)(\/.*)?$/.exec(path);
  if (!match) return null;
  const [, prefix, segment] = match;
  let [slug, rest] = [segment, match[3] ?? ""];
  const suffix = rest === "" ? /\.(md|html)$/.exec(segment) : null;
  if (suffix) [slug, rest] = [segment.slice(0, suffix.index), suffix[0]];
  const group = (prefix === "trust" ? PROJECT_GROUP_OF : CENTER_GROUP_OF).get(rest);
  if (!group) return null;
  try {
    return {
      kind: prefix === "trust" ? "project" : "center",
      slug: decodeURIComponent(slug),
      group,
    };
  } catch {
    return null;
  }
}
