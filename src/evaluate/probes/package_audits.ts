/**
 * The audit commands of package managers and Snyk, read into findings: `npm audit --json`
 * (v2), the v1 report `pnpm audit --json` prints, `yarn npm audit --json` (one JSON object
 * a line, sent as an array), `pip-audit -f json`, `cargo audit --json` and `snyk test
 * --json`. One finding per advisory per installed package, ids and aliases kept for VEX.
 */
import { count, isObject, type JsonObject, own, show } from "./_read.ts";
import {
  byCvssScore,
  bySeverityWord,
  type Finding,
  ghsaOf,
  list,
  nameAtVersion,
  object,
  purl,
  type ScanReading,
  texts,
} from "./_scan.ts";
import { cvssScore } from "./cvss.ts";

/** `npm audit --json` since npm 7: `auditReportVersion: 2` and a map of vulnerable packages. */
export function isNpmAudit(report: JsonObject): boolean {
  if (own(report, "auditReportVersion") === 2) return true;
  return isObject(own(report, "vulnerabilities")) && !isCargoAudit(report) &&
    isObject(at2(report, "metadata", "vulnerabilities"));
}

/** The v1 audit report (npm 6, `pnpm audit --json`): a map of `advisories` and `metadata`. */
export function isNpmAdvisories(report: JsonObject): boolean {
  return isObject(own(report, "advisories")) && isObject(own(report, "metadata"));
}

/** `cargo audit --json`: `vulnerabilities: { found, count, list[] }`. */
export function isCargoAudit(report: JsonObject): boolean {
  return Array.isArray(at2(report, "vulnerabilities", "list"));
}

/** `pip-audit -f json`: `dependencies[]` of `{ name, version, vulns[] }` and `fixes[]`. */
export function isPipAudit(report: JsonObject): boolean {
  const deps = own(report, "dependencies");
  return Array.isArray(deps) && (Array.isArray(own(report, "fixes")) ||
    deps.some((d) => isObject(d) && Array.isArray(own(d, "vulns"))));
}

/** One project of `snyk test --json`: `vulnerabilities[]` with Snyk's project fields. */
export function isSnykProject(report: unknown): report is JsonObject {
  return isObject(report) && Array.isArray(own(report, "vulnerabilities")) &&
    (typeof own(report, "packageManager") === "string" || typeof own(report, "ok") === "boolean");
}

/** A line of `yarn npm audit --json` (Yarn 2+): `{ value: name, children: { ID, Severity… } }`. */
export function isYarnAuditLine(line: unknown): boolean {
  return isObject(line) && typeof own(line, "value") === "string" &&
    isObject(own(line, "children"));
}

function at2(value: JsonObject, a: string, b: string): unknown {
  const first = own(value, a);
  return isObject(first) ? own(first, b) : undefined;
}

/**
 * npm's v2 report: each package entry's `via` objects are the advisories that affect the
 * package itself; a `via` string names a dependency through which the package is affected,
 * whose advisories are counted at that dependency, so they are not counted twice.
 */
export function readNpmAudit(report: JsonObject): ScanReading {
  const format = "npm-audit";
  const packages = own(report, "vulnerabilities");
  if (!isObject(packages)) return { format, error: "npm audit vulnerabilities is not an object" };
  const findings: Finding[] = [];
  let through = 0;
  for (const [key, entry] of Object.entries(packages)) {
    if (!isObject(entry)) return { format, error: `npm audit vulnerabilities.${key} is malformed` };
    const via = own(entry, "via");
    if (!Array.isArray(via)) return { format, error: `npm audit ${show(key)} has no via list` };
    const name = typeof own(entry, "name") === "string" ? own(entry, "name") as string : key;
    const advisories = via.filter(isObject);
    if (advisories.length === 0) through++;
    const seen = new Set<string>();
    for (const advisory of advisories) {
      const id = String(own(advisory, "source") ?? own(advisory, "url") ?? own(advisory, "title"));
      if (seen.has(id)) continue;
      seen.add(id);
      findings.push({
        severity: bySeverityWord(own(advisory, "severity")),
        ids: texts(...ghsaOf(own(advisory, "url")), own(advisory, "url"), String(id)),
        packages: [...purl("npm", name), name],
      });
    }
  }
  const throughNote = through === 0 ? "" : ` (${count(through, "more package")} vulnerable only ` +
    "through a dependency, whose advisories are counted there)";
  const note = `${throughNote}${npmTotalsNote(report, findings)}` || undefined;
  return { format, findings, artifacts: [], note };
}

/**
 * npm audit's own summary (`metadata.vulnerabilities`) counts vulnerable packages, each at its
 * highest severity; the findings here count each advisory in each package. When the two tell
 * different numbers, the reason says so and gives npm's, so a reader comparing them with the
 * terminal's output knows why they differ.
 */
function npmTotalsNote(report: JsonObject, findings: readonly Finding[]): string {
  const metadata = own(report, "metadata");
  const totals = isObject(metadata) ? own(metadata, "vulnerabilities") : undefined;
  if (!isObject(totals)) return "";
  const words = ["critical", "high", "moderate", "low", "info"] as const;
  const npm = words.map((word) => [word, own(totals, word)] as const)
    .filter((pair): pair is readonly [typeof words[number], number] =>
      typeof pair[1] === "number" && pair[1] > 0
    );
  // A summary of nothing (or none at all) is no count to compare with.
  if (npm.length === 0) return "";
  const ours = new Map<string, number>();
  for (const finding of findings) ours.set(finding.severity, (ours.get(finding.severity) ?? 0) + 1);
  const same = npm.length === ours.size &&
    npm.every(([word, n]) => ours.get(word === "moderate" ? "medium" : word) === n);
  if (same) return "";
  const theirs = npm.map(([word, n]) => `${n} ${word}`).join(", ");
  return ` (counted per advisory in each package; npm audit's own summary counts vulnerable ` +
    `packages: ${theirs})`;
}

/** The v1 report: one finding per advisory and installed version (`findings[].version`). */
export function readNpmAdvisories(report: JsonObject): ScanReading {
  const format = "pnpm-audit";
  const findings: Finding[] = [];
  for (const [key, advisory] of Object.entries(own(report, "advisories") as JsonObject)) {
    if (!isObject(advisory)) return { format, error: `advisories.${key} is not an object` };
    const name = own(advisory, "module_name");
    const ids = texts(
      own(advisory, "github_advisory_id"),
      ...ghsaOf(own(advisory, "url")),
      ...list(own(advisory, "cves")),
      own(advisory, "url"),
      String(own(advisory, "id") ?? key),
    );
    const versions = list(own(advisory, "findings"))
      .map((f) => isObject(f) ? own(f, "version") : undefined);
    for (const version of versions.length > 0 ? versions : [undefined]) {
      findings.push({
        severity: bySeverityWord(own(advisory, "severity")),
        ids,
        packages: [...purl("npm", name, version), ...nameAtVersion(name, version)],
      });
    }
  }
  return { format, findings, artifacts: [] };
}

/** Yarn's lines: one finding per advisory and tree version. */
export function readYarnAudit(lines: unknown[]): ScanReading {
  const findings: Finding[] = [];
  for (const line of lines as JsonObject[]) {
    const name = own(line, "value");
    const children = own(line, "children") as JsonObject;
    const ids = texts(
      ...ghsaOf(own(children, "URL")),
      own(children, "URL"),
      own(children, "ID") === undefined ? null : String(own(children, "ID")),
    );
    const versions = list(own(children, "Tree Versions"));
    for (const version of versions.length > 0 ? versions : [undefined]) {
      findings.push({
        severity: bySeverityWord(own(children, "Severity")),
        ids,
        packages: [...purl("npm", name, version), ...nameAtVersion(name, version)],
      });
    }
  }
  return { format: "yarn-audit", findings, artifacts: [] };
}

/**
 * pip-audit names vulnerabilities without severities (neither PyPI's nor OSV's feed it
 * reads carries one to its output), so every finding is unrated and fails: nothing shows it
 * is at or below the threshold. Dependencies it skipped are said in the note.
 */
export function readPipAudit(report: JsonObject): ScanReading {
  const format = "pip-audit";
  const findings: Finding[] = [];
  let skipped = 0;
  for (const [i, dep] of (own(report, "dependencies") as unknown[]).entries()) {
    if (!isObject(dep)) return { format, error: `pip-audit dependencies[${i}] is not an object` };
    if (typeof own(dep, "skip_reason") === "string") {
      skipped++;
      continue;
    }
    const vulns = own(dep, "vulns") ?? [];
    if (!Array.isArray(vulns)) return { format, error: `pip-audit dependencies[${i}].vulns` };
    const name = own(dep, "name"), version = own(dep, "version");
    for (const vuln of vulns) {
      findings.push({
        severity: "unrated",
        ids: isObject(vuln) ? texts(own(vuln, "id"), ...list(own(vuln, "aliases"))) : [],
        packages: [...purl("pypi", name, version), ...nameAtVersion(name, version)],
      });
    }
  }
  const note = skipped === 0
    ? undefined
    : ` (${count(skipped, "dependency", "dependencies")} skipped by pip-audit, not audited)`;
  return { format, findings, artifacts: [], note, unratedFail: "pip-audit gives no severity" };
}

/**
 * cargo-audit: `vulnerabilities.list[]` rated by the advisory's CVSS vector (RustSec
 * advisories without one are unrated); its `warnings` (unmaintained, unsound, yanked) are
 * not vulnerabilities and are only counted in the note, as cargo-audit itself reports them.
 */
export function readCargoAudit(report: JsonObject): ScanReading {
  const format = "cargo-audit";
  const findings: Finding[] = [];
  for (const [i, entry] of (at2(report, "vulnerabilities", "list") as unknown[]).entries()) {
    const advisory = isObject(entry) ? own(entry, "advisory") : undefined;
    if (!isObject(entry) || !isObject(advisory)) {
      return { format, error: `cargo audit vulnerabilities.list[${i}] has no advisory` };
    }
    if (own(advisory, "withdrawn")) continue;
    const score = cvssScore(own(advisory, "cvss"));
    const pkg = object(own(entry, "package"));
    const name = own(pkg, "name") ?? own(advisory, "package"), version = own(pkg, "version");
    findings.push({
      severity: score === null ? "unrated" : byCvssScore(score),
      ids: texts(own(advisory, "id"), ...list(own(advisory, "aliases"))),
      packages: [...purl("cargo", name, version), ...nameAtVersion(name, version)],
    });
  }
  const warnings = Object.entries(object(own(report, "warnings")))
    .map(([kind, entries]) => [kind, list(entries).length] as const)
    .filter(([, n]) => n > 0);
  const note = warnings.length === 0
    ? undefined
    : ` (${warnings.map(([kind, n]) => `${n} ${kind}`).join(", ")} ${
      warnings.reduce((s, [, n]) => s + n, 0) === 1 ? "warning" : "warnings"
    } not counted)`;
  return { format, findings, artifacts: [], note };
}

/** Snyk's package managers → purl types, for the packages it names. */
const SNYK_PURL_TYPES: Record<string, string> = {
  npm: "npm",
  yarn: "npm",
  pnpm: "npm",
  pip: "pypi",
  poetry: "pypi",
  pipenv: "pypi",
  maven: "maven",
  gradle: "maven",
  sbt: "maven",
  rubygems: "gem",
  nuget: "nuget",
  composer: "composer",
  gomodules: "golang",
  golang: "golang",
  cargo: "cargo",
  hex: "hex",
  pub: "pub",
};

/**
 * `snyk test --json`: one project object, or an array of them (`--all-projects`). Snyk
 * lists a vulnerability once per dependency path; it counts once per package and version
 * (Snyk's own `uniqueCount`). License issues are not vulnerabilities and are left out.
 */
export function readSnyk(projects: JsonObject[]): ScanReading {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  let licenses = 0;
  for (const project of projects) {
    const type = SNYK_PURL_TYPES[own(project, "packageManager") as string];
    for (const vuln of own(project, "vulnerabilities") as unknown[]) {
      if (!isObject(vuln)) {
        return { format: "snyk", error: "Snyk vulnerabilities holds a non-object" };
      }
      if (own(vuln, "type") === "license") {
        licenses++;
        continue;
      }
      const name = own(vuln, "packageName") ?? own(vuln, "name"), version = own(vuln, "version");
      const key = `${show(own(vuln, "id"))} ${show(name)}@${show(version)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const identifiers = object(own(vuln, "identifiers"));
      findings.push({
        severity: bySeverityWord(own(vuln, "severity")),
        ids: texts(
          own(vuln, "id"),
          ...list(own(identifiers, "CVE")),
          ...list(own(identifiers, "GHSA")),
          ...list(own(vuln, "alternativeIds")),
        ),
        packages: [
          ...(type
            ? purl(type, typeof name === "string" ? name.replace(":", "/") : name, version)
            : []),
          ...nameAtVersion(name, version),
        ],
      });
    }
  }
  const note = licenses === 0 ? undefined : ` (${count(licenses, "license issue")} not counted)`;
  return { format: "snyk", findings, artifacts: [], note };
}
