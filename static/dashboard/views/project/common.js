/** What several project sections share: API paths, public URLs, the private notice. */
import { h, icon } from "../../dom.js";
import { href } from "../../routes.js";

/** The API path of a project, with `rest` appended. */
export const projectPath = (id, rest = "") => `/projects/${encodeURIComponent(id)}${rest}`;

/** The host of the public trust pages, under which hosted subdomains live. */
export function trustHost(app) {
  try {
    return new URL(app.config.trustPageBase).host;
  } catch {
    return "";
  }
}

/** Absolute public URLs of a project on this service (they answer 404 while it is private). */
export function publicUrls(project) {
  const base = `${location.origin}/trust/${encodeURIComponent(project.slug)}`;
  return {
    page: base,
    trustJson: `${base}/trust.json`,
    signature: `${base}/trust.json.jws`,
    feed: `${base}/feed.xml`,
    badge: `${base}/badge.svg`,
    documents: `${base}/documents`,
    version: (n, document) => `${base}/versions/${n}/${document}`,
  };
}

/**
 * Says what private means for public addresses. `where` is how to change it:
 * by default a link to the project's settings.
 */
export function privateNotice(project, where) {
  if (project.visibility === "public") return null;
  return h(
    "div",
    { class: "alert alert-info alert-icon" },
    icon("lock"),
    h(
      "p",
      {},
      h("strong", {}, "This project is private. "),
      "Its public trust page, trust.json and feeds answer 404 until you set the visibility to public ",
      where ?? ["in ", h("a", { href: href.project(project.id, "settings") }, "Settings")],
      ".",
    ),
  );
}

/** Evidence types the API accepts, with their names for people. */
export const EVIDENCE_TYPES = [
  ["sbom", "SBOM"],
  ["vulnerability_scan", "Vulnerability scan"],
  ["build_provenance", "Build provenance"],
  ["dependency_inventory", "Dependency inventory"],
  ["deployment_snapshot", "Deployment snapshot"],
  ["policy_result", "Policy result"],
];

/** "vulnerability_scan" → "Vulnerability scan". */
export const evidenceTypeLabel = (type) =>
  EVIDENCE_TYPES.find(([value]) => value === type)?.[1] ?? type;
