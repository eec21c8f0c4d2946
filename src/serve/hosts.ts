/**
 * Custom domains and hosted subdomains: which Host headers can only name
 * the service itself, which project a verified domain or
 * `<hostedSubdomain>.<trust page host>` belongs to, and the canonical
 * /trust/{projectSlug} path of each document such a host serves.
 */
import type { Config } from "../config.ts";
import type { Project } from "../domain/workspace.ts";
import { isCanonicalDomainName } from "../publish/domain_name.ts";
import { EXPORT_FILES } from "../publish/exports.ts";
import { getDomainByName } from "../store/domains.ts";
import { getProject, getProjectByHostedSubdomain } from "../store/projects.ts";

/** Host path → suffix of the canonical /trust/{projectSlug} path. */
const PATHS: Record<string, string> = {
  "/": "",
  "/trust.json": "/trust.json",
  "/trust.json.jws": "/trust.json.jws",
  "/index.md": ".md",
  "/index.html": ".html",
  "/feed.xml": "/feed.xml",
  "/badge.svg": "/badge.svg",
  "/badge.json": "/badge.json",
  ...Object.fromEntries(Object.values(EXPORT_FILES).map((file) => [`/${file}`, `/${file}`])),
};

const IP_LITERAL = /^(\d{1,3}(\.\d{1,3}){3}|\[.*\])$/;
/** A Host header longer than a domain name (253) with a port can name no project. */
const MAX_HOST_HEADER = 253 + ":65535".length;

/** The lowercase host name of a Host header (no port, no trailing dot), or null. */
export function hostname(value: string | undefined): string | null {
  if (!value || value.length > MAX_HOST_HEADER) return null;
  try {
    return new URL(`http://${value}`).hostname.replace(/\.$/, "");
  } catch {
    return null;
  }
}

/**
 * A predicate telling whether a Host header can only name the service
 * itself: its own hosts, IP literals, single labels and anything that is not
 * a valid domain name (custom domains and hosted subdomains are never those),
 * so no lookup is needed for it. This is what keeps the header, which any
 * client sets, from ever reaching a KV key unbounded.
 */
export function serviceHostTest(config: Config): (hostHeader: string | undefined) => boolean {
  const own = new Set([new URL(config.baseUrl).hostname, new URL(config.trustPageBase).hostname]);
  const seen = new Map<string, boolean>();
  return (hostHeader) => {
    if (!hostHeader) return true;
    // Few distinct Host values reach one instance: remember each verdict (bounded).
    const known = seen.get(hostHeader);
    if (known !== undefined) return known;
    const host = hostname(hostHeader);
    const verdict = !host || own.has(host) || !host.includes(".") || IP_LITERAL.test(host) ||
      !isCanonicalDomainName(host);
    if (seen.size < 1000 && hostHeader.length <= MAX_HOST_HEADER) seen.set(hostHeader, verdict);
    return verdict;
  };
}

/**
 * A lookup of the project a host name belongs to: the hosted subdomain's
 * project, else the project that verified the domain, else null. Call it
 * only for hosts `serviceHostTest` did not claim for the service.
 */
export function projectHostLookup(
  config: Config,
): (kv: Deno.Kv, host: string) => Promise<Project | null> {
  const subdomainSuffix = `.${new URL(config.trustPageBase).hostname}`;
  return async (kv, host) => {
    if (host.endsWith(subdomainSuffix)) {
      const label = host.slice(0, -subdomainSuffix.length);
      const project = label.includes(".") ? null : await getProjectByHostedSubdomain(kv, label);
      if (project) return project;
    }
    const domain = await getDomainByName(kv, host);
    return domain?.verificationStatus === "verified"
      ? await getProject(kv, domain.projectId)
      : null;
  };
}

/** The canonical path of a document a project host serves at `path`, or null for none. */
export function canonicalTrustPath(project: Project, path: string): string | null {
  const suffix = PATHS[path];
  return suffix === undefined ? null : `/trust/${encodeURIComponent(project.slug)}${suffix}`;
}
