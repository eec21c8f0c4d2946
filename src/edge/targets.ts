/**
 * The public URLs kept as stored bytes, relative to a project's `/trust/{projectSlug}` and an
 * organization's `/public/trust/{orgSlug}`: every GET route there with no other parameter
 * (tests/edge/targets_test.ts checks this list against /openapi.json). Not stored, and so
 * answered live: URLs with a query (answer search), one update or one document by id, the
 * access-request form, versioned URLs (immutable artifacts served as they are), the log
 * (a project's index in it shows the whole log's size, which every publish of any project
 * moves), a project's security.txt (its Expires is counted from the moment it is read) and the
 * cross-vendor directory and search. What is answered live is not tagged for the edge either:
 * no purge would reach it, so the platform's CDN does not keep it.
 */

/**
 * Paths under `/trust/{projectSlug}` ("" is the latest page itself; `.md` and `.html` choose
 * its format by suffix).
 */
export const PROJECT_PATHS: readonly string[] = [
  "",
  ".md",
  ".html",
  "/trust.json",
  "/trust.json.jws",
  "/controls",
  "/signals",
  "/setup.md",
  "/versions",
  "/versions.html",
  "/versions.md",
  "/feed.xml",
  "/badge.svg",
  "/badge.json",
  "/updates",
  "/updates.html",
  "/updates.md",
  "/documents",
  "/documents.md",
  "/oscal-assessment-results.json",
  "/oscal-assessment-results.json.jws",
  "/vsa.intoto.json",
  "/security-insights.json",
  "/security-insights.json.jws",
  "/frameworks",
  "/frameworks.html",
  "/frameworks.md",
];

/** Paths under `/public/trust/{orgSlug}` (the trust center, also by suffix). */
export const CENTER_PATHS: readonly string[] = [
  "",
  ".md",
  ".html",
  "/subprocessors",
  "/subprocessors.md",
  "/documents",
  "/documents.md",
  "/answers",
  "/answers.html",
  "/answers.md",
  "/answers.csv",
  "/answers.xlsx",
  "/certifications",
];

/** Where a stored URL's project or organization is named: its scope and slug, or null. */
export function storedScopeOf(
  path: string,
): { kind: "project" | "center"; slug: string } | null {
  const match = /^\/(trust|public\/trust)\/([^/]+)(\/.*)?$/.exec(path);
  if (!match) return null;
  const [, prefix, segment] = match;
  let [slug, rest] = [segment, match[3] ?? ""];
  const suffix = rest === "" ? /\.(md|html)$/.exec(segment) : null;
  if (suffix) [slug, rest] = [segment.slice(0, suffix.index), suffix[0]];
  const paths = prefix === "trust" ? PROJECT_PATHS : CENTER_PATHS;
  if (!paths.includes(rest)) return null;
  try {
    return { kind: prefix === "trust" ? "project" : "center", slug: decodeURIComponent(slug) };
  } catch {
    return null;
  }
}
