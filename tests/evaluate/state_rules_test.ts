import assert from "node:assert/strict";
import {
  evaluateControl,
  type EvaluationResult,
  type Observation,
} from "../../src/evaluate/mod.ts";
import type { TrustControl } from "../../src/domain/control.ts";
import { CYCLONEDX_15 } from "./_fixtures.ts";
import { after, control, iso, L, observed, SECOND } from "./_support.ts";

interface Row {
  name: string;
  input: { control: TrustControl; observation: Observation | null; at: Date };
  expected: Omit<EvaluationResult, "reason"> & { reason: RegExp };
}

const W = 100 * SECOND, D = 200 * SECOND, S = 300 * SECOND;
const full = () => control({ w: 100, d: 200, s: 300 });
const sbom = (at = L) => observed(CYCLONEDX_15, at);
const fresh = (nextCheckAt: string | null, freshUntil: string | null = iso(W)) => ({
  state: "pass" as const,
  confidence: 1,
  latestEvidenceAt: L,
  freshUntil,
  nextCheckAt,
});

const ROWS: Row[] = [
  {
    name: "follows rule 1: unknown without an observation",
    input: { control: full(), observation: null, at: after(0) },
    expected: {
      state: "unknown",
      confidence: 0,
      reason: /^No sbom evidence has been received$/,
      latestEvidenceAt: null,
      freshUntil: null,
      nextCheckAt: null,
    },
  },
  {
    name: "follows rule 1: a collector control without a heartbeat is unknown",
    input: { control: control({ evidenceType: null, w: 100 }), observation: null, at: after(0) },
    expected: {
      state: "unknown",
      confidence: 0,
      reason: /^No active collector has been seen$/,
      latestEvidenceAt: null,
      freshUntil: null,
      nextCheckAt: null,
    },
  },
  {
    name: "follows rule 2: stale at S",
    input: { control: full(), observation: sbom(), at: after(S) },
    expected: {
      state: "stale",
      confidence: 0.25,
      reason: /is 5 minutes old; stale after 5 minutes$/,
      latestEvidenceAt: L,
      freshUntil: iso(W),
      nextCheckAt: null,
    },
  },
  {
    name: "follows rule 2: stale long after S",
    input: { control: full(), observation: sbom(), at: after(400 * 86_400 * SECOND) },
    expected: {
      state: "stale",
      confidence: 0.25,
      reason: /is 400 days old/,
      latestEvidenceAt: L,
      freshUntil: iso(W),
      nextCheckAt: null,
    },
  },
  {
    name: "follows rule 3: degraded at S - 1ms, next check at S",
    input: { control: full(), observation: sbom(), at: after(S - 1) },
    expected: {
      state: "degraded",
      confidence: 0.5,
      reason: /degraded after 200 seconds$/,
      latestEvidenceAt: L,
      freshUntil: iso(W),
      nextCheckAt: iso(S),
    },
  },
  {
    name: "follows rule 3: degraded at D",
    input: { control: full(), observation: sbom(), at: after(D) },
    expected: {
      state: "degraded",
      confidence: 0.5,
      reason: /^Latest sbom evidence is 3 minutes old; degraded after 200 seconds$/,
      latestEvidenceAt: L,
      freshUntil: iso(W),
      nextCheckAt: iso(S),
    },
  },
  {
    name: "follows rule 4: degraded at D - 1ms when S is set (window passed)",
    input: { control: full(), observation: sbom(), at: after(D - 1) },
    expected: {
      state: "degraded",
      confidence: 0.5,
      reason: /past its 100 seconds freshness window$/,
      latestEvidenceAt: L,
      freshUntil: iso(W),
      nextCheckAt: iso(D),
    },
  },
  {
    name: "follows rule 4: degraded at W when S is set",
    input: { control: control({ w: 100, s: 300 }), observation: sbom(), at: after(W) },
    expected: {
      state: "degraded",
      confidence: 0.5,
      reason: /past its 100 seconds freshness window$/,
      latestEvidenceAt: L,
      freshUntil: iso(W),
      nextCheckAt: iso(S),
    },
  },
  {
    name: "follows rule 4: stale at W when S is null",
    input: { control: control({ w: 100 }), observation: sbom(), at: after(W) },
    expected: {
      state: "stale",
      confidence: 0.25,
      reason: /past its 100 seconds freshness window$/,
      latestEvidenceAt: L,
      freshUntil: iso(W),
      nextCheckAt: null,
    },
  },
  {
    name: "follows rule 4 with D set and S null: degraded at W (never stale before degraded)",
    input: { control: control({ w: 100, d: 200 }), observation: sbom(), at: after(W) },
    expected: {
      state: "degraded",
      confidence: 0.5,
      reason: /freshness window$/,
      latestEvidenceAt: L,
      freshUntil: iso(W),
      nextCheckAt: iso(D),
    },
  },
  {
    name: "follows rule 3 once D passes (W < D, S null): still degraded",
    input: { control: control({ w: 100, d: 200 }), observation: sbom(), at: after(D) },
    expected: {
      state: "degraded",
      confidence: 0.5,
      reason: /degraded after 200 seconds$/,
      latestEvidenceAt: L,
      freshUntil: iso(W),
      nextCheckAt: null,
    },
  },
  {
    name: "follows rule 2 before rule 3 when D equals S",
    input: { control: control({ w: 100, d: 300, s: 300 }), observation: sbom(), at: after(S) },
    expected: {
      state: "stale",
      confidence: 0.25,
      reason: /stale after 5 minutes$/,
      latestEvidenceAt: L,
      freshUntil: iso(W),
      nextCheckAt: null,
    },
  },
  {
    name: "follows rule 5: the probe passes at W - 1ms, next check at W",
    input: { control: full(), observation: sbom(), at: after(W - 1) },
    expected: { ...fresh(iso(W)), reason: /^CycloneDX 1\.5 document listing 2 components$/ },
  },
  {
    name: "follows rule 5: the probe fails on a broken document",
    input: {
      control: full(),
      observation: observed({ ...CYCLONEDX_15, specVersion: "2" }),
      at: after(0),
    },
    expected: { ...fresh(iso(W)), state: "fail", reason: /specVersion is "2"/ },
  },
  {
    name: "keeps a failing probe's fail as its evidence ages past W, D and S",
    input: {
      control: full(),
      observation: observed({ ...CYCLONEDX_15, specVersion: "2" }),
      at: after(S),
    },
    expected: {
      ...fresh(null),
      state: "fail",
      reason: /specVersion is "2".*\(latest sbom evidence is 5 minutes old\)$/,
    },
  },
  {
    name: "follows rule 5: an unreadable payload is unknown with the probe's reason",
    input: { control: full(), observation: observed("not json"), at: after(0) },
    expected: {
      ...fresh(iso(W)),
      state: "unknown",
      confidence: 0,
      reason: /^Payload is a string/,
    },
  },
  {
    name: "keeps kind none fresh forever when D and S are null",
    input: { control: control(), observation: sbom(), at: after(3650 * 86_400 * SECOND) },
    expected: { ...fresh(null, null), reason: /CycloneDX/ },
  },
  {
    name: "ages kind none by S alone",
    input: { control: control({ s: 300 }), observation: sbom(), at: after(S) },
    expected: { ...fresh(null, null), state: "stale", confidence: 0.25, reason: /stale after/ },
  },
  {
    name: "ages kind none by D alone",
    input: { control: control({ d: 200 }), observation: sbom(), at: after(D) },
    expected: { ...fresh(null, null), state: "degraded", confidence: 0.5, reason: /degraded/ },
  },
  {
    name: "schedules the next check at D when D comes before W",
    input: { control: control({ w: 300, d: 100 }), observation: sbom(), at: after(50 * SECOND) },
    expected: { ...fresh(iso(100 * SECOND), iso(300 * SECOND)), reason: /CycloneDX/ },
  },
  {
    name: "schedules the next check at W when it comes before D and S",
    input: { control: full(), observation: sbom(), at: after(0) },
    expected: { ...fresh(iso(W)), reason: /CycloneDX/ },
  },
  {
    name: "counts an observation in the future as age 0",
    input: { control: full(), observation: sbom(iso(3_600 * SECOND)), at: after(0) },
    expected: {
      ...fresh(iso(3_600 * SECOND + W), iso(3_600 * SECOND + W)),
      latestEvidenceAt: iso(3_600 * SECOND),
      reason: /CycloneDX/,
    },
  },
  {
    name: "makes S = 0 stale at once, even for a future observation",
    input: { control: control({ s: 0 }), observation: sbom(iso(SECOND)), at: after(0) },
    expected: {
      ...fresh(iso(SECOND), null),
      latestEvidenceAt: iso(SECOND),
      state: "stale",
      confidence: 0.25,
      reason: /stale after 0 seconds$/,
    },
  },
  {
    name: "passes the heartbeat control on an observation without payload",
    input: {
      control: control({ evidenceType: null, w: 100, s: 300 }),
      observation: { at: L, evidenceRecordId: null },
      at: after(W - 1),
    },
    expected: { ...fresh(iso(W)), reason: /^An active collector has been seen$/ },
  },
  {
    name: "normalizes an observation time with an offset to UTC",
    input: { control: full(), observation: sbom("2026-01-01T02:00:00+02:00"), at: after(0) },
    expected: { ...fresh(iso(W)), reason: /CycloneDX/ },
  },
  {
    name: "answers unknown for an observation time that is not a date",
    input: { control: full(), observation: sbom("yesterday-ish"), at: after(0) },
    expected: {
      state: "unknown",
      confidence: 0,
      reason: /"yesterday-ish" is not a date-time/,
      latestEvidenceAt: null,
      freshUntil: null,
      nextCheckAt: null,
    },
  },
  {
    name: "answers unknown for an invalid evaluation time",
    input: { control: full(), observation: sbom(), at: new Date(NaN) },
    expected: {
      state: "unknown",
      confidence: 0,
      reason: /Evaluation time is not a valid date/,
      latestEvidenceAt: null,
      freshUntil: null,
      nextCheckAt: null,
    },
  },
];

Deno.test("[evaluate] evaluateControl() applies DESIGN.md §8 rules in order", async (t) => {
  for (const { name, input, expected } of ROWS) {
    await t.step(name, () => {
      const actual = evaluateControl(input.control, input.observation, input.at);
      const { reason, ...rest } = expected;
      assert.deepEqual({ ...actual, reason: "" }, { ...rest, reason: "" });
      assert.match(actual.reason, reason);
    });
  }
});
