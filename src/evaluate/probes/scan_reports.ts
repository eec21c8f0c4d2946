/**
 * Scanner reports read into findings: OSV-Scanner, Grype and Trivy JSON here, the package
 * managers' audits and Snyk in package_audits.ts, govulncheck in govulncheck.ts and SARIF
 * in sarif.ts; each finding with its severity, vulnerability ids (aliases included) and
 * package identifiers, so that VEX statements can be matched to it; a normalized summary
 * gives counts only.
 */
import { isObject, type JsonObject, own, show } from "./_read.ts";
import {
  byCvssScore,
  bySeverityWord,
  emptyTally,
  type Finding,
  list,
  nameAtVersion,
  type Rating,
  type ScanReading,
  SEVERITIES,
  texts,
  worst,
} from "./_scan.ts";
import { cvssScore } from "./cvss.ts";
import { isGovulncheckStream, readGovulncheck } from "./govulncheck.ts";
import {
  isCargoAudit,
  isNpmAdvisories,
  isNpmAudit,
  isPipAudit,
  isSnykProject,
  isYarnAuditLine,
  readCargoAudit,
  readNpmAdvisories,
  readNpmAudit,
  readPipAudit,
  readSnyk,
  readYarnAudit,
} from "./package_audits.ts";
import { isSarif, readSarif } from "./sarif.ts";
import { ociPurl } from "./vex_match.ts";

export {
  emptyTally,
  type Finding,
  type Rating,
  type ScanReading,
  SEVERITIES,
  type Severity,
  type Tally,
} from "./_scan.ts";

/** Trivy result classes that come from vulnerability scanning (not secret, config, license). */
const TRIVY_VULN_CLASSES = ["os-pkgs", "lang-pkgs"];

/** Reads a scanner report (not a VEX document) into findings or a tally. */
export function readScan(report: JsonObject): ScanReading {
  if (isSarif(report)) return readSarif(report);
  if (isCargoAudit(report)) return readCargoAudit(report);
  if (isNpmAudit(report)) return readNpmAudit(report);
  if (isNpmAdvisories(report)) return readNpmAdvisories(report);
  if (isSnykProject(report)) return readSnyk([report]);
  if (isPipAudit(report)) return readPipAudit(report);
  // One line of `yarn npm audit --json` is one object: a single advisory.
  if (isYarnAuditLine(report)) return readYarnAudit([report]);
  if (own(report, "summary") !== undefined) return readSummary(own(report, "summary"));
  if (Array.isArray(own(report, "matches"))) return readGrype(report);
  if (Array.isArray(own(report, "Results")) || typeof own(report, "SchemaVersion") === "number") {
    return readTrivy(report);
  }
  if (Array.isArray(own(report, "results"))) return readOsv(own(report, "results") as unknown[]);
  return { error: "Payload is not a scanner report this service reads" };
}

/**
 * Reads a report sent as a JSON array: a govulncheck stream, the lines of `yarn npm audit
 * --json`, or Snyk's `--all-projects` output (one object per project).
 */
export function readScanArray(items: unknown[]): ScanReading {
  if (isGovulncheckStream(items)) return readGovulncheck(items);
  if (items.length > 0 && items.every(isYarnAuditLine)) return readYarnAudit(items);
  if (items.length > 0 && items.every(isSnykProject)) return readSnyk(items);
  return {
    error: "Payload is an array, not a govulncheck stream, Yarn audit lines or Snyk projects",
  };
}

function readSummary(summary: unknown): ScanReading {
  if (!isObject(summary)) return { error: `summary is ${show(summary)}, not an object` };
  const tally = emptyTally();
  let seen = 0;
  for (const severity of SEVERITIES) {
    const value = own(summary, severity);
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
      return { error: `summary.${severity} is ${show(value)}, not a count` };
    }
    tally[severity] = value;
    seen++;
  }
  if (seen === 0) return { error: "summary has none of critical, high, medium, low" };
  return { format: "scan-summary", tally };
}

/** Image references as given, plus the `pkg:oci` purls of those carrying a digest. */
function imageIds(...references: unknown[]): string[] {
  const ids = texts(...references);
  return [...ids, ...ids.map(ociPurl).filter((p): p is string => p !== null)];
}

function readGrype(report: JsonObject): ScanReading {
  const findings: Finding[] = [];
  for (const [i, match] of (own(report, "matches") as unknown[]).entries()) {
    const vulnerability = isObject(match) ? own(match, "vulnerability") : undefined;
    if (!isObject(match) || !isObject(vulnerability)) {
      return { error: `Grype matches[${i}] has no vulnerability` };
    }
    const artifact = isObject(own(match, "artifact")) ? own(match, "artifact") as JsonObject : {};
    findings.push({
      severity: bySeverityWord(own(vulnerability, "severity")),
      ids: texts(
        own(vulnerability, "id"),
        ...list(own(match, "relatedVulnerabilities")).map((r) => isObject(r) ? own(r, "id") : null),
      ),
      packages: [
        ...texts(own(artifact, "purl")),
        ...nameAtVersion(own(artifact, "name"), own(artifact, "version")),
      ],
    });
  }
  const source = own(report, "source");
  const target = isObject(source) ? own(source, "target") : undefined;
  const artifacts = isObject(target)
    ? imageIds(
      own(target, "userInput"),
      own(target, "imageID"),
      own(target, "manifestDigest"),
      ...list(own(target, "repoDigests")),
    )
    : texts(target);
  return { format: "grype", findings, artifacts };
}

function readTrivy(report: JsonObject): ScanReading {
  const format = "trivy";
  const results = own(report, "Results");
  // Trivy omits Results when it scanned nothing (no OS detected, no lockfile, all skipped).
  if (results === undefined || results === null) {
    return {
      format,
      error: "Trivy report has no Results: no vulnerability scanning in this report",
    };
  }
  if (!Array.isArray(results)) return { format, error: `Trivy Results is ${show(results)}` };
  const classes = new Set<string>();
  const findings: Finding[] = [];
  let scanned = 0;
  for (const [i, result] of results.entries()) {
    if (!isObject(result)) return { format, error: `Trivy Results[${i}] is ${show(result)}` };
    const vulns = own(result, "Vulnerabilities") ?? [];
    if (!Array.isArray(vulns)) {
      return { format, error: `Trivy Results[${i}].Vulnerabilities is not a list` };
    }
    const kind = own(result, "Class");
    if (typeof kind === "string") classes.add(kind);
    // A clean package result carries no Vulnerabilities but still says packages were scanned.
    if (vulns.length > 0 || TRIVY_VULN_CLASSES.includes(kind as string)) scanned++;
    for (const vuln of vulns) {
      if (!isObject(vuln)) {
        return { format, error: `Trivy Results[${i}] has a malformed vulnerability` };
      }
      const identifier = own(vuln, "PkgIdentifier");
      findings.push({
        severity: bySeverityWord(own(vuln, "Severity")),
        ids: texts(own(vuln, "VulnerabilityID"), ...list(own(vuln, "VendorIDs"))),
        packages: [
          ...texts(isObject(identifier) ? own(identifier, "PURL") : null, own(vuln, "PkgID")),
          ...nameAtVersion(own(vuln, "PkgName"), own(vuln, "InstalledVersion")),
        ],
      });
    }
  }
  if (scanned === 0) {
    const found = classes.size > 0 ? ` (only ${[...classes].map((c) => show(c)).join(", ")})` : "";
    return {
      format,
      error: `Trivy report has no vulnerability results${found}: no vulnerability scanning in ` +
        "this report",
    };
  }
  const metadata = isObject(own(report, "Metadata")) ? own(report, "Metadata") as JsonObject : {};
  const artifacts = imageIds(
    own(report, "ArtifactName"),
    own(metadata, "ImageID"),
    ...list(own(metadata, "RepoDigests")),
    ...list(own(metadata, "RepoTags")),
  );
  return { format, findings, artifacts };
}

/** OSV ecosystems → purl types, for packages osv-scanner names without a purl. */
const OSV_PURL_TYPES: Record<string, string> = {
  npm: "npm",
  PyPI: "pypi",
  Go: "golang",
  Maven: "maven",
  "crates.io": "cargo",
  RubyGems: "gem",
  NuGet: "nuget",
  Packagist: "composer",
  Pub: "pub",
  Hex: "hex",
};

function osvPackageIds(pkg: JsonObject): string[] {
  const name = own(pkg, "name");
  const version = own(pkg, "version");
  const type = OSV_PURL_TYPES[own(pkg, "ecosystem") as string];
  const derived = typeof name === "string" && typeof version === "string" && type
    ? [`pkg:${type}/${name.replace(":", "/").replace(/^@/, "%40")}@${version}`]
    : [];
  return [...texts(own(pkg, "purl")), ...derived, ...nameAtVersion(name, version)];
}

function readOsv(results: unknown[]): ScanReading {
  const findings: Finding[] = [];
  for (const [i, result] of results.entries()) {
    const packages = isObject(result) ? own(result, "packages") : undefined;
    if (!Array.isArray(packages)) return { error: `OSV-Scanner results[${i}] has no packages[]` };
    for (const entry of packages) {
      if (!isObject(entry)) return { error: `OSV-Scanner results[${i}] has a malformed package` };
      const vulns = own(entry, "vulnerabilities") ?? [];
      const groups = own(entry, "groups") ?? [];
      if (!Array.isArray(vulns) || !Array.isArray(groups)) {
        return { error: `OSV-Scanner results[${i}] has a malformed package` };
      }
      const pkg = own(entry, "package");
      const ids = isObject(pkg) ? osvPackageIds(pkg) : [];
      // Groups merge aliases (a GHSA and its CVE) into one finding; without them, each
      // advisory counts once.
      if (groups.length > 0) {
        for (const group of groups) findings.push(osvGroupFinding(group, vulns, ids));
      } else {
        for (const vuln of vulns) {
          findings.push({
            severity: osvAdvisorySeverity(vuln),
            ids: isObject(vuln) ? texts(own(vuln, "id"), ...list(own(vuln, "aliases"))) : [],
            packages: ids,
          });
        }
      }
    }
  }
  return { format: "osv-scanner", findings, artifacts: [] };
}

function osvGroupFinding(group: unknown, vulns: unknown[], packages: string[]): Finding {
  if (!isObject(group)) return { severity: "unrated", ids: [], packages };
  const ids = own(group, "ids");
  const members = vulns.filter((vuln) =>
    isObject(vuln) && Array.isArray(ids) && ids.includes(own(vuln, "id"))
  );
  const aliases = texts(
    ...list(ids),
    ...list(own(group, "aliases")),
    ...members.flatMap((m) => list(own(m as JsonObject, "aliases"))),
  );
  const score = own(group, "max_severity");
  const parsed = typeof score === "string" && score.trim() !== "" ? Number(score) : NaN;
  const severity = Number.isFinite(parsed) && parsed >= 0 && parsed <= 10
    ? byCvssScore(parsed)
    : worst(members.map(osvAdvisorySeverity));
  return { severity, ids: aliases, packages };
}

/**
 * An OSV advisory's severity: the worst score of the CVSS v3/v4 vectors (or Ubuntu
 * priorities) in its `severity[]`, else its `database_specific.severity` word.
 */
export function osvAdvisorySeverity(vuln: unknown): Rating {
  if (!isObject(vuln)) return "unrated";
  const entries = own(vuln, "severity");
  const rated = Array.isArray(entries) ? worst(entries.map(osvSeverityEntry)) : "unrated";
  if (rated !== "unrated") return rated;
  const specific = own(vuln, "database_specific");
  return isObject(specific) ? bySeverityWord(own(specific, "severity")) : "unrated";
}

function osvSeverityEntry(entry: unknown): Rating {
  if (!isObject(entry)) return "unrated";
  const score = own(entry, "score");
  if (own(entry, "type") === "Ubuntu") return bySeverityWord(score);
  const value = cvssScore(score);
  return value === null ? "unrated" : byCvssScore(value);
}
