/**
 * Runs a probe over `{ name, input, expected }` rows, one test step per row.
 */
import assert from "node:assert/strict";
import type { ProbeResult } from "../../src/evaluate/mod.ts";

export interface ProbeRow {
  name: string;
  input: unknown;
  expected: { outcome: ProbeResult["outcome"]; reason: RegExp };
}

export async function probeTable(
  t: Deno.TestContext,
  probe: (payload: unknown) => ProbeResult,
  rows: ProbeRow[],
): Promise<void> {
  for (const { name, input, expected } of rows) {
    await t.step(name, () => {
      const actual = probe(input);
      assert.equal(actual.outcome, expected.outcome, actual.reason);
      assert.match(actual.reason, expected.reason);
    });
  }
}
