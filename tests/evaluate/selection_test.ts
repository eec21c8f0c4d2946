import assert from "node:assert/strict";
import type { ControlState } from "../../src/domain/control.ts";
import {
  DEFAULT_CATALOG,
  overallState,
  probeFor,
  stateRank,
  summarizeStates,
  WORST_FIRST,
} from "../../src/evaluate/mod.ts";
import { control } from "./_support.ts";

Deno.test("[evaluate] probeFor() picks rule, catalog entry, evidence type, heartbeat", async (t) => {
  const rows = [
    {
      name: "a rule wins over the catalog entry",
      input: control({ key: "evidence.sbom", rule: { path: "bomFormat", op: "exists" } }),
      expected: "doesRuleHold",
    },
    {
      name: "the heartbeat control",
      input: control({ evidenceType: null }),
      expected: "hasActiveCollector",
    },
    {
      name: "a custom control without rule reads its evidence type",
      input: control({ key: "custom.scan", evidenceType: "vulnerability_scan" }),
      expected: "hasNoFindingAbove",
    },
    {
      name: "a catalog key whose evidence type was changed follows the evidence type",
      input: control({ key: "evidence.sbom", evidenceType: "policy_result" }),
      expected: "didPoliciesPass",
    },
    ...DEFAULT_CATALOG.map((entry) => ({
      name: `catalog entry ${entry.key}`,
      input: control({ key: entry.key, evidenceType: entry.evidenceType }),
      expected: entry.probeId,
    })),
  ];
  for (const { name, input, expected } of rows) {
    await t.step(name, () => assert.equal(probeFor(input).id, expected));
  }
});

Deno.test("[evaluate] overallState() is the worst enabled state", async (t) => {
  const rows: { name: string; input: ControlState[]; expected: ControlState }[] = [
    { name: "no enabled control is unknown", input: [], expected: "unknown" },
    { name: "all pass", input: ["pass", "pass"], expected: "pass" },
    { name: "unknown beats pass", input: ["pass", "unknown"], expected: "unknown" },
    {
      name: "degraded beats unknown",
      input: ["unknown", "degraded", "pass"],
      expected: "degraded",
    },
    { name: "stale beats degraded", input: ["degraded", "stale"], expected: "stale" },
    {
      name: "fail beats everything",
      input: ["stale", "pass", "fail", "degraded"],
      expected: "fail",
    },
  ];
  for (const { name, input, expected } of rows) {
    await t.step(name, () => assert.equal(overallState(input), expected));
  }
});

Deno.test("[evaluate] stateRank() orders pass < unknown < degraded < stale < fail", () => {
  assert.deepEqual(
    [...WORST_FIRST].reverse().map(stateRank),
    [0, 1, 2, 3, 4],
  );
  assert.deepEqual([...WORST_FIRST].reverse(), ["pass", "unknown", "degraded", "stale", "fail"]);
});

Deno.test("[evaluate] summarizeStates() counts states as PublishedTrustSummary", () => {
  assert.deepEqual(summarizeStates(["pass", "fail", "pass", "unknown", "stale"]), {
    overallState: "fail",
    totalControls: 5,
    passCount: 2,
    failCount: 1,
    staleCount: 1,
    degradedCount: 0,
    unknownCount: 1,
  });
  assert.deepEqual(summarizeStates([]), {
    overallState: "unknown",
    totalControls: 0,
    passCount: 0,
    failCount: 0,
    staleCount: 0,
    degradedCount: 0,
    unknownCount: 0,
  });
});
