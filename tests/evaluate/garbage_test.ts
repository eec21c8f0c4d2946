import assert from "node:assert/strict";
import { DEFAULT_CATALOG, evaluateControl, PROBES } from "../../src/evaluate/mod.ts";
import { after, control, GARBAGE, observed } from "./_support.ts";

const RULE = { path: "summary.critical", op: "eq", value: 0 } as const;

/** Payloads shaped like a known format but broken inside. */
const BROKEN: readonly [string, unknown][] = [
  ["OSV results that are a string", { results: "x" }],
  ["Trivy Results holding null", { SchemaVersion: 2, Results: [null] }],
  ["Grype matches holding arrays", { matches: [[]] }],
  ["a summary that is an array", { summary: [1, 2] }],
  ["a DSSE payload that is a number", {
    payloadType: "application/vnd.in-toto+json",
    payload: 42,
    signatures: [{ sig: "MEUCIQ" }],
  }],
  ["an opa eval row without expression objects", { result: [{ expressions: [null] }] }],
];

Deno.test("[evaluate] every probe answers unknown for garbage and never throws", async (t) => {
  for (const probe of PROBES.filter((p) => p.reads !== "collector_heartbeat")) {
    for (const [label, input] of GARBAGE) {
      await t.step(`${probe.id} on ${label}`, () => {
        const result = probe.run(input, RULE);
        assert.equal(result.outcome, "unknown", result.reason);
        assert.ok(result.reason.length > 0 && !/[\r\n]/.test(result.reason));
      });
    }
  }
});

Deno.test("[evaluate] probes answer unknown for well-known shapes broken inside", async (t) => {
  const readers = PROBES.filter((p) =>
    ["vulnerability_scan", "build_provenance", "policy_result"].includes(p.reads)
  );
  for (const [label, input] of BROKEN) {
    await t.step(label, () => {
      const outcomes = readers.map((probe) => probe.run(input, null).outcome);
      assert.ok(outcomes.every((o) => o === "unknown"), `${label}: ${outcomes}`);
    });
  }
});

Deno.test("[evaluate] evaluateControl() gives every catalog control unknown on garbage", async (t) => {
  for (const entry of DEFAULT_CATALOG.filter((e) => e.evidenceType !== null)) {
    await t.step(entry.key, () => {
      const c = control({ key: entry.key, evidenceType: entry.evidenceType, w: 86_400 });
      for (const [label, input] of GARBAGE) {
        assert.equal(evaluateControl(c, observed(input), after(0)).state, "unknown", label);
      }
    });
  }
});
