import assert from "node:assert/strict";
import type { PublishedTrustSummary } from "../../../src/domain/publish.ts";
import { countsLine, summaryLine } from "../../../src/publish/render/_format.ts";

function summary(counts: Partial<Record<"pass" | "fail" | "unknown", number>>) {
  const pass = counts.pass ?? 0;
  const fail = counts.fail ?? 0;
  const unknown = counts.unknown ?? 0;
  return {
    overallState: fail > 0 ? "fail" : unknown > 0 ? "unknown" : "pass",
    totalControls: pass + fail + unknown,
    passCount: pass,
    failCount: fail,
    staleCount: 0,
    degradedCount: 0,
    unknownCount: unknown,
  } satisfies PublishedTrustSummary;
}

Deno.test("[publish] summaryLine() keeps reported controls apart from those not reported", () => {
  const rows: { name: string; input: PublishedTrustSummary; expected: string }[] = [
    { name: "no control", input: summary({}), expected: "No control is enabled yet" },
    {
      name: "every reported control passes, some not reported",
      input: summary({ pass: 3, unknown: 4 }),
      expected: "3 of 3 reported controls pass · 4 not reported",
    },
    {
      name: "a failure among the reported ones",
      input: summary({ pass: 2, fail: 1, unknown: 1 }),
      expected: "2 of 3 reported controls pass · 1 not reported",
    },
    {
      name: "everything reported",
      input: summary({ pass: 2, fail: 1 }),
      expected: "2 of 3 reported controls pass",
    },
    {
      name: "one reported control",
      input: summary({ pass: 1 }),
      expected: "1 of 1 reported control passes",
    },
    {
      name: "nothing reported yet",
      input: summary({ unknown: 7 }),
      expected: "None of 7 controls has reported yet",
    },
    {
      name: "one control, not reported",
      input: summary({ unknown: 1 }),
      expected: "The control has not reported yet",
    },
  ];
  for (const row of rows) assert.equal(summaryLine(row.input), row.expected, row.name);
});

Deno.test("[publish] countsLine() says not reported instead of unknown", () => {
  assert.equal(
    countsLine(summary({ pass: 3, fail: 1, unknown: 4 })),
    "1 fail, 3 pass, 4 not reported",
  );
});
