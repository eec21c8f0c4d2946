import assert from "node:assert/strict";
import type { ControlRule } from "../../src/domain/control.ts";
import { doesRuleHold, evaluateControl, type ProbeResult } from "../../src/evaluate/mod.ts";
import { trivyReport } from "./_fixtures.ts";
import { after, control, observed } from "./_support.ts";

const SCAN = {
  summary: { critical: 0, high: 2, medium: 5, low: 0 },
  scanner: { name: "trivy", version: "0.50.1" },
  clean: false,
  note: "",
  waiver: null,
  results: [{ target: "api", status: "ok" }],
};

const rows: {
  name: string;
  input: { payload: unknown; rule: ControlRule };
  expected: { outcome: ProbeResult["outcome"]; reason: RegExp };
}[] = [
  {
    name: "eq passes on an equal number",
    input: { payload: SCAN, rule: { path: "summary.critical", op: "eq", value: 0 } },
    expected: { outcome: "pass", reason: /^summary\.critical is 0; must equal 0$/ },
  },
  {
    name: 'eq is strict: the string "0" is not 0',
    input: { payload: SCAN, rule: { path: "summary.critical", op: "eq", value: "0" } },
    expected: { outcome: "fail", reason: /must equal "0"/ },
  },
  {
    name: "ne fails on an equal string",
    input: { payload: SCAN, rule: { path: "scanner.name", op: "ne", value: "trivy" } },
    expected: { outcome: "fail", reason: /scanner\.name is "trivy"; must not equal "trivy"/ },
  },
  {
    name: "eq null matches a present null",
    input: { payload: SCAN, rule: { path: "waiver", op: "eq", value: null } },
    expected: { outcome: "pass", reason: /waiver is null/ },
  },
  {
    name: "lt passes below the value",
    input: { payload: SCAN, rule: { path: "summary.high", op: "lt", value: 3 } },
    expected: { outcome: "pass", reason: /summary\.high is 2; must be lt 3/ },
  },
  {
    name: "lte passes at the value",
    input: { payload: SCAN, rule: { path: "summary.high", op: "lte", value: 2 } },
    expected: { outcome: "pass", reason: /must be lte 2/ },
  },
  {
    name: "gt fails at the value",
    input: { payload: SCAN, rule: { path: "summary.medium", op: "gt", value: 5 } },
    expected: { outcome: "fail", reason: /must be gt 5/ },
  },
  {
    name: "gte passes at the value",
    input: { payload: SCAN, rule: { path: "summary.medium", op: "gte", value: 5 } },
    expected: { outcome: "pass", reason: /must be gte 5/ },
  },
  {
    name: "lt on a string is unknown",
    input: { payload: SCAN, rule: { path: "scanner.version", op: "lt", value: 1 } },
    expected: { outcome: "unknown", reason: /lt needs two numbers/ },
  },
  {
    name: "gt against a string value is unknown",
    input: { payload: SCAN, rule: { path: "summary.high", op: "gt", value: "1" } },
    expected: { outcome: "unknown", reason: /gt needs two numbers/ },
  },
  {
    name: "a comparison on a missing path is unknown",
    input: { payload: SCAN, rule: { path: "summary.info", op: "eq", value: 0 } },
    expected: { outcome: "unknown", reason: /^summary\.info is missing; cannot compare$/ },
  },
  {
    name: "a comparison without a value is unknown",
    input: { payload: SCAN, rule: { path: "summary.high", op: "eq" } },
    expected: { outcome: "unknown", reason: /has no value/ },
  },
  {
    name: "exists passes on a present value, even false",
    input: { payload: SCAN, rule: { path: "clean", op: "exists" } },
    expected: { outcome: "pass", reason: /clean is false; must exist/ },
  },
  {
    name: "exists fails on a missing path",
    input: { payload: SCAN, rule: { path: "sbom.url", op: "exists" } },
    expected: { outcome: "fail", reason: /^sbom\.url is missing; must exist$/ },
  },
  {
    name: "exists fails on null",
    input: { payload: SCAN, rule: { path: "waiver", op: "exists" } },
    expected: { outcome: "fail", reason: /waiver is null; must exist/ },
  },
  {
    name: "truthy fails on an empty string",
    input: { payload: SCAN, rule: { path: "note", op: "truthy" } },
    expected: { outcome: "fail", reason: /note is ""; must be truthy/ },
  },
  {
    name: "truthy passes on a non-empty array (JavaScript truthiness)",
    input: { payload: SCAN, rule: { path: "results", op: "truthy" } },
    expected: { outcome: "pass", reason: /results is an array/ },
  },
  {
    name: "truthy fails on a missing path",
    input: { payload: SCAN, rule: { path: "missing", op: "truthy" } },
    expected: { outcome: "fail", reason: /missing is missing/ },
  },
  {
    name: "array indexes follow numeric segments",
    input: { payload: SCAN, rule: { path: "results.0.status", op: "eq", value: "ok" } },
    expected: { outcome: "pass", reason: /results\.0\.status is "ok"/ },
  },
  {
    name: "an index past the end is missing",
    input: { payload: SCAN, rule: { path: "results.1.status", op: "exists" } },
    expected: { outcome: "fail", reason: /is missing/ },
  },
  {
    name: "a top-level array payload is indexed too",
    input: { payload: [{ ok: true }], rule: { path: "0.ok", op: "truthy" } },
    expected: { outcome: "pass", reason: /0\.ok is true/ },
  },
  {
    name: "prototype properties are not followed",
    input: { payload: {}, rule: { path: "constructor.name", op: "exists" } },
    expected: { outcome: "fail", reason: /constructor\.name is missing/ },
  },
  {
    name: "a path with an empty segment is unknown",
    input: { payload: SCAN, rule: { path: "summary..high", op: "exists" } },
    expected: { outcome: "unknown", reason: /has an empty segment/ },
  },
  {
    name: "a scalar payload is unknown",
    input: { payload: 42, rule: { path: "a", op: "exists" } },
    expected: { outcome: "unknown", reason: /^Payload is a number, not a JSON object or array$/ },
  },
  {
    name: "a control character in the path keeps the reason on one line",
    input: { payload: SCAN, rule: { path: "a\nb", op: "exists" } },
    expected: { outcome: "fail", reason: /^a b is missing; must exist$/ },
  },
];

Deno.test("[evaluate] doesRuleHold() applies { path, op, value }", async (t) => {
  for (const { name, input, expected } of rows) {
    await t.step(name, () => {
      const actual = doesRuleHold(input.payload, input.rule);
      assert.equal(actual.outcome, expected.outcome, actual.reason);
      assert.match(actual.reason, expected.reason);
    });
  }
});

Deno.test("[evaluate] evaluateControl() judges a custom control by its rule alone", () => {
  // The Trivy report has a HIGH finding, which hasNoFindingAbove would fail; the rule
  // only asks for the report to name its artifact.
  const custom = control({
    key: "custom.trivy_artifact",
    evidenceType: "vulnerability_scan",
    w: 3600,
    rule: { path: "ArtifactName", op: "eq", value: "acme/api:2.3.0" },
  });
  const result = evaluateControl(custom, observed(trivyReport(["HIGH"])), after(0));
  assert.equal(result.state, "pass");
  assert.equal(result.reason, 'ArtifactName is "acme/api:2.3.0"; must equal "acme/api:2.3.0"');
});
