/**
 * `govulncheck -json` (`-format json`): a stream of JSON objects (`config`, `progress`,
 * `osv`, `finding`), sent as an array (the collector CLI turns the stream into one). A
 * finding's trace says how far the vulnerable code is reached: a `function` in its first
 * frame is a call, a `package` an import, a bare `module` a requirement.
 */
import { count, isObject, type JsonObject, own } from "./_read.ts";
import {
  type Finding,
  list,
  nameAtVersion,
  object,
  purl,
  type ScanReading,
  texts,
} from "./_scan.ts";
import { osvAdvisorySeverity } from "./scan_reports.ts";

/** How far a finding reaches, from least to most: govulncheck's scan levels. */
const LEVELS = ["module", "package", "symbol"] as const;
type Level = typeof LEVELS[number];
const REACH: Record<Level, string> = {
  module: "required but not imported",
  package: "imported but not called",
  symbol: "called",
};

/** A govulncheck stream: objects each holding one of its message kinds, one a config. */
export function isGovulncheckStream(items: unknown[]): boolean {
  return items.length > 0 &&
    items.every((item) =>
      isObject(item) &&
      ["config", "progress", "osv", "finding", "SBOM"].some((key) => own(item, key) !== undefined)
    ) &&
    items.some((item) =>
      own(item as JsonObject, "config") !== undefined ||
      own(item as JsonObject, "finding") !== undefined
    );
}

/**
 * One finding per vulnerability (OSV id) and module, at the deepest level any of its
 * traces reaches. Findings at the scan's level (`config.scan_level`, symbol by default:
 * called code) count, as govulncheck's own "Your code is affected by" does; those below it
 * (imported but not called, required but not imported) are informational and only counted
 * in the note. The Go vulnerability database rates nothing, so a counted finding is
 * unrated unless its OSV entry carries a CVSS vector, and unrated findings fail: the code
 * reaches a known vulnerability whose severity nobody gave.
 */
export function readGovulncheck(items: unknown[]): ScanReading {
  const format = "govulncheck";
  const config = object(items.map((i) => own(i as JsonObject, "config")).find(isObject));
  const scanned = LEVELS.includes(own(config, "scan_level") as Level)
    ? own(config, "scan_level") as Level
    : "symbol";
  const entries = new Map<string, JsonObject>();
  const reached = new Map<
    string,
    { id: string; module: unknown; version: unknown; level: Level }
  >();
  for (const item of items as JsonObject[]) {
    const osv = own(item, "osv");
    if (isObject(osv) && typeof own(osv, "id") === "string") {
      entries.set(own(osv, "id") as string, osv);
    }
    const finding = own(item, "finding");
    if (finding === undefined) continue;
    const frame = list(isObject(finding) ? own(finding, "trace") : undefined)[0];
    const id = isObject(finding) ? own(finding, "osv") : undefined;
    if (typeof id !== "string" || !isObject(frame)) {
      return { format, error: "govulncheck finding without an osv id and a trace" };
    }
    const level: Level = own(frame, "function") !== undefined
      ? "symbol"
      : own(frame, "package") !== undefined
      ? "package"
      : "module";
    const key = `${id} ${String(own(frame, "module"))}`;
    const known = reached.get(key);
    if (!known || LEVELS.indexOf(level) > LEVELS.indexOf(known.level)) {
      reached.set(key, { id, module: own(frame, "module"), version: own(frame, "version"), level });
    }
  }
  const findings: Finding[] = [];
  const below = new Map<Level, number>();
  for (const { id, module, version, level } of reached.values()) {
    if (LEVELS.indexOf(level) < LEVELS.indexOf(scanned)) {
      below.set(level, (below.get(level) ?? 0) + 1);
      continue;
    }
    const osv = entries.get(id);
    findings.push({
      severity: osv ? osvAdvisorySeverity(osv) : "unrated",
      ids: texts(id, ...list(osv ? own(osv, "aliases") : undefined)),
      packages: [...purl("golang", module, version), ...nameAtVersion(module, version)],
    });
  }
  const counted = `${count(findings.length, "vulnerability", "vulnerabilities")} ${REACH[scanned]}`;
  const informational = [...below.entries()].sort(([a], [b]) =>
    LEVELS.indexOf(b) - LEVELS.indexOf(a)
  )
    .map(([level, n]) => `${n} ${REACH[level]}`);
  const note = ` (${[counted, ...informational].join("; ")}${
    informational.length > 0 ? ", informational" : ""
  })`;
  return {
    format,
    findings,
    artifacts: [],
    note,
    unratedFail: "the Go vulnerability database gives no severity",
  };
}
