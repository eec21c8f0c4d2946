/**
 * Probe for `evidence.policy_result`: did the policy checks pass? Reads a plain verdict,
 * conftest's JSON output, OPA's (`opa eval` or the Data API) JSON output and SARIF logs.
 */
import { count, isObject, type JsonObject, lower, notAnObject, own, show } from "./_read.ts";
import { emptyTally } from "./_scan.ts";
import { isSarif, readSarif, sarifTools } from "./sarif.ts";
import { fail, inFormat, pass, type ProbeResult, unknown } from "./types.ts";

const PASS_WORDS = ["pass", "passed", "success"];
const FAIL_WORDS = ["fail", "failed", "failure"];

/** One reading of a policy decision: true passed, false failed, null unreadable. */
type Verdict = boolean | null;

/**
 * Answers whether the reported policy checks passed. Accepted: `passed: true|false`;
 * `result` or `status` equal to pass, passed or success (any case) or fail, failed or
 * failure; conftest JSON (an array of `{ filename, namespace, successes, failures[],
 * warnings[] }`, failing on any failure, warnings allowed); `opa eval` JSON
 * (`result[].expressions[].value`: a boolean is the decision, an array is a deny set that
 * fails when non-empty, an object is read for `allow`, `deny[]` and `violation[]`); and the
 * OPA Data API's `{ result: … }` with the same value rules. When several verdicts are
 * present, any failing one fails. No readable verdict is `unknown`.
 */
export function didPoliciesPass(payload: unknown): ProbeResult {
  if (Array.isArray(payload)) return readConftest(payload);
  if (!isObject(payload)) return unknown(notAnObject(payload, "a policy result"));
  if (isSarif(payload)) return inFormat("sarif", readSarifPolicy(payload));
  const result = own(payload, "result");
  if (Array.isArray(result) && result.length > 0 && result.every(isOpaRow)) {
    return inFormat("opa-eval", readOpaEval(result as JsonObject[]));
  }
  const verdicts: [string, Verdict][] = [];
  if (typeof own(payload, "passed") === "boolean") {
    verdicts.push(["passed", own(payload, "passed") as boolean]);
  }
  if (result !== undefined) verdicts.push(["result", readValue(result)]);
  if (own(payload, "status") !== undefined) {
    verdicts.push(["status", readValue(own(payload, "status"))]);
  }
  // A lone non-word `result` is the shape of OPA's Data API; any other verdict is a plain one.
  const format = verdicts.length === 1 && result !== undefined && typeof result !== "string"
    ? "opa-data-api"
    : "policy-verdict";
  const failed = verdicts.find(([, v]) => v === false);
  if (failed) return inFormat(format, fail(`Policy result reports failure (${failed[0]})`));
  const passed = verdicts.find(([, v]) => v === true);
  if (passed) return inFormat(format, pass(`Policy result reports success (${passed[0]})`));
  return unknown("Payload has no readable passed, result or status verdict");
}

/**
 * A SARIF log as a policy result: its results rated as the vulnerability scan rates them
 * (sarif.ts), failing on any high or critical one, which is GitHub code scanning's default
 * for failing a check (security alerts of high severity or more, other alerts at level
 * error); the reason names the first failing rule.
 */
function readSarifPolicy(log: JsonObject): ProbeResult {
  const reading = readSarif(log);
  const label = `SARIF (${sarifTools(log)})`;
  if ("error" in reading) return unknown(reading.error);
  if (!("findings" in reading)) return unknown(`${label} has no results`);
  const tally = emptyTally();
  for (const finding of reading.findings) tally[finding.severity]++;
  const failing = reading.findings.filter((f) =>
    f.severity === "high" || f.severity === "critical"
  );
  const summary =
    `${label}: ${count(reading.findings.length, "result")}: ${tally.critical} critical, ` +
    `${tally.high} high, ${tally.medium} medium, ${tally.low} low` +
    `${tally.unrated > 0 ? ` (${tally.unrated} unrated)` : ""}${reading.note ?? ""}`;
  if (failing.length === 0) return pass(`${summary}; none high or critical`);
  const first = failing[0].ids[0];
  return fail(
    `${summary}; ${failing.length} high or critical${first ? `; first: ${show(first)}` : ""}`,
  );
}

function readConftest(files: unknown[]): ProbeResult {
  if (files.length === 0) return unknown("Payload is an empty array, not conftest output");
  let successes = 0, warnings = 0;
  const failures: unknown[] = [];
  for (const [i, file] of files.entries()) {
    const ok = isObject(file) && typeof own(file, "successes") === "number" &&
      [own(file, "failures"), own(file, "warnings")].every((l) => l == null || Array.isArray(l));
    if (!ok) return unknown(`conftest result ${i} is not { filename, successes, failures[] }`);
    successes += own(file, "successes") as number;
    warnings += (own(file, "warnings") as unknown[] | null)?.length ?? 0;
    failures.push(...(own(file, "failures") as unknown[] | null) ?? []);
  }
  const summary = `${count(successes, "success", "successes")}, ${count(warnings, "warning")}, ` +
    `${count(failures.length, "failure")} in ${count(files.length, "file")}`;
  if (failures.length === 0) return inFormat("conftest", pass(`conftest: ${summary}`));
  const first = isObject(failures[0]) ? own(failures[0], "msg") : undefined;
  const detail = typeof first === "string" ? `; first: ${show(first)}` : "";
  return inFormat("conftest", fail(`conftest: ${summary}${detail}`));
}

function isOpaRow(row: unknown): boolean {
  return isObject(row) && Array.isArray(own(row, "expressions"));
}

function readOpaEval(rows: JsonObject[]): ProbeResult {
  let decisions = 0;
  for (const row of rows) {
    for (const expression of own(row, "expressions") as unknown[]) {
      const verdict = isObject(expression) ? readValue(own(expression, "value")) : null;
      const text = isObject(expression) ? show(own(expression, "text")) : "an expression";
      if (verdict === null) return unknown(`opa eval: ${text} has no boolean or deny-set value`);
      if (!verdict) return fail(`opa eval: ${text} denies`);
      decisions++;
    }
  }
  if (decisions === 0) return unknown("opa eval: no expression was evaluated");
  return pass(`opa eval: ${count(decisions, "expression")} allowed`);
}

/** A decision value: boolean, verdict word, deny set, or an `{ allow, deny, violation }` object. */
function readValue(value: unknown): Verdict {
  if (typeof value === "boolean") return value;
  const word = lower(value);
  if (word !== null) {
    return PASS_WORDS.includes(word) ? true : FAIL_WORDS.includes(word) ? false : null;
  }
  if (Array.isArray(value)) return value.length === 0;
  if (!isObject(value)) return null;
  const parts: Verdict[] = [];
  if (typeof own(value, "allow") === "boolean") parts.push(own(value, "allow") as boolean);
  for (const set of ["deny", "violation"]) {
    const list = own(value, set);
    if (Array.isArray(list)) parts.push(list.length === 0);
  }
  if (parts.length === 0) return null;
  return parts.every(Boolean);
}
