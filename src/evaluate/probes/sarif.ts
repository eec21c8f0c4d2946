/**
 * SARIF 2.1.0 logs (CodeQL, Semgrep, Trivy `--format sarif`, Snyk Code, govulncheck
 * `-format sarif`…) read into findings, for both the vulnerability scan and the policy
 * check. Each result is rated the way GitHub code scanning rates it: by the CVSS score in
 * `security-severity` when the result or its rule has one, else by its level.
 */
import { count, isObject, type JsonObject, lower, own } from "./_read.ts";
import {
  byCvssScore,
  type Finding,
  list,
  object,
  type Rating,
  type ScanReading,
  texts,
} from "./_scan.ts";

/** SARIF levels → severities; `none` is no problem at all and is not counted. */
const LEVELS: Record<string, Rating> = { error: "high", warning: "medium", note: "low" };

/** A SARIF log: a `version` 2.1.0 (or a SARIF `$schema`) and `runs[]`. */
export function isSarif(log: unknown): log is JsonObject {
  if (!isObject(log) || !Array.isArray(own(log, "runs"))) return false;
  const schema = own(log, "$schema");
  return own(log, "version") === "2.1.0" ||
    (typeof schema === "string" && /sarif/i.test(schema));
}

/** The tools that produced the log's runs, for the reason ("CodeQL, ESLint"). */
export function sarifTools(log: JsonObject): string {
  const names = texts(
    ...list(own(log, "runs")).map((run) => {
      const driver = object(object(object(run).tool).driver);
      return own(driver, "name");
    }),
  );
  return [...new Set(names)].join(", ") || "unnamed tool";
}

/**
 * One finding per result that is a problem: a result whose `kind` is other than `fail`
 * (pass, open, review…), whose level is `none`, that carries an accepted suppression (a
 * `suppressions[]` entry without a status, or `accepted`), or whose `baselineState` is
 * `absent` (gone since the baseline) is left out; suppressed results are counted in the
 * note. Rating: `security-severity` of the result's `properties`, else of its rule's (the
 * rule named by `ruleIndex`/`rule.index`, else by `ruleId`, in the driver or an
 * extension), as a CVSS score: 9.0+ critical, 7.0+ high, 4.0+ medium, below low. Without
 * one, the result's `level`, else the rule's `defaultConfiguration.level`, else `warning`
 * (SARIF's default): error is high, warning medium, note low.
 */
export function readSarif(log: JsonObject): ScanReading {
  const format = "sarif";
  const findings: Finding[] = [];
  let suppressed = 0;
  const runs = own(log, "runs") as unknown[];
  // A log without runs says no tool ran: nothing to judge, not a clean result.
  if (runs.length === 0) return { format, error: "SARIF log has no runs: no tool ran" };
  for (const [r, run] of runs.entries()) {
    if (!isObject(run)) return { format, error: `SARIF runs[${r}] is not an object` };
    const results = own(run, "results") ?? [];
    if (!Array.isArray(results)) return { format, error: `SARIF runs[${r}].results is not a list` };
    const tool = object(own(run, "tool"));
    const components = [object(own(tool, "driver")), ...list(own(tool, "extensions")).map(object)];
    for (const result of results) {
      if (!isObject(result)) return { format, error: `SARIF runs[${r}] has a malformed result` };
      const kind = own(result, "kind");
      if (kind !== undefined && kind !== "fail") continue;
      if (own(result, "baselineState") === "absent") continue;
      if (isSuppressed(result)) {
        suppressed++;
        continue;
      }
      const rule = ruleOf(result, components);
      const severity = rate(result, rule);
      if (severity === null) continue;
      const ruleId = own(result, "ruleId") ?? own(object(own(result, "rule")), "id") ??
        own(rule, "id");
      findings.push({ severity, ids: texts(ruleId), packages: [] });
    }
  }
  const note = suppressed === 0
    ? undefined
    : ` (${count(suppressed, "suppressed result")} not counted)`;
  return { format, findings, artifacts: [], note };
}

function isSuppressed(result: JsonObject): boolean {
  return list(own(result, "suppressions")).some((s) =>
    isObject(s) && (own(s, "status") === undefined || own(s, "status") === "accepted")
  );
}

function ruleOf(result: JsonObject, components: JsonObject[]): JsonObject {
  const reference = object(own(result, "rule"));
  const index = own(result, "ruleIndex") ?? own(reference, "index");
  const component = own(object(own(reference, "toolComponent")), "index");
  const where = typeof component === "number" ? components[component + 1] : components[0];
  const rules = list(own(object(where), "rules"));
  if (typeof index === "number" && isObject(rules[index])) return rules[index] as JsonObject;
  const id = own(result, "ruleId") ?? own(reference, "id");
  for (const candidate of components.flatMap((c) => list(own(c, "rules")))) {
    if (isObject(candidate) && own(candidate, "id") === id) return candidate;
  }
  return {};
}

/** The result's rating, or null for a result that is no problem (`level: none`). */
function rate(result: JsonObject, rule: JsonObject): Rating | null {
  for (const properties of [own(result, "properties"), own(rule, "properties")]) {
    const score = securitySeverity(object(properties));
    if (score !== null) return byCvssScore(score);
  }
  const level = lower(own(result, "level")) ??
    lower(own(object(own(rule, "defaultConfiguration")), "level")) ?? "warning";
  if (level === "none") return null;
  return LEVELS[level] ?? "unrated";
}

function securitySeverity(properties: JsonObject): number | null {
  const value = own(properties, "security-severity");
  const score = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof score === "number" && Number.isFinite(score) && score >= 0 && score <= 10
    ? score
    : null;
}
