import assert from "node:assert/strict";
import { fc } from "../deps.ts";
import { ControlState, EvidenceType, RuleOp, type TrustControl } from "../../src/domain/control.ts";
import {
  CONFIDENCE,
  evaluateControl,
  type Observation,
  overallState,
  probeFor,
  PROBES,
  stateRank,
  WORST_FIRST,
} from "../../src/evaluate/mod.ts";
import { control, L_MS, observed } from "./_support.ts";

const DAY = 86_400;
const DAY_MS = DAY * 1000;

/** W, D, S in seconds, with D ≤ S as the DegradationPolicy schema enforces. */
const policyArb = fc.record({
  w: fc.option(fc.integer({ min: 1, max: 60 * DAY }), { nil: null }),
  d: fc.option(fc.integer({ min: 0, max: 60 * DAY }), { nil: null }),
  s: fc.option(fc.integer({ min: 0, max: 60 * DAY }), { nil: null }),
  // Clamping (rather than swapping) D to S keeps shrinking monotone.
}).map(({ w, d, s }) => ({ w, d: d !== null && s !== null ? Math.min(d, s) : d, s }));

const ruleArb = fc.record({
  path: fc.constantFrom("summary.critical", "results.0.status", "a", "0", "a.b.c"),
  op: fc.constantFrom(...RuleOp.options),
  value: fc.option(fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)), {
    nil: undefined,
  }),
}, { requiredKeys: ["path", "op"] });

const controlArb = fc.record({
  policy: policyArb,
  evidenceType: fc.constantFrom(...EvidenceType.options, null),
  rule: fc.option(ruleArb, { nil: null }),
  // fast-check builds records without a prototype; controls read from KV have one.
}).map(({ policy, evidenceType, rule }) =>
  control({ ...policy, evidenceType, rule: rule && { ...rule } })
);

interface Scenario {
  control: TrustControl;
  observation: Observation | null;
  t1: number;
  t2: number;
}

/**
 * A control, maybe an observation, and two instants T1 ≤ T2. Instants are offsets from
 * the observation (negative: clock skew), not absolute: with absolute times, shrinking a
 * counterexample that needs `T − L` in a narrow band moves both by tiny steps for minutes.
 */
const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  control: controlArb,
  present: fc.boolean(),
  payload: fc.jsonValue(),
  at: fc.integer({ min: L_MS - 30 * DAY_MS, max: L_MS + 30 * DAY_MS }),
  age: fc.integer({ min: -5 * DAY_MS, max: 200 * DAY_MS }),
  later: fc.integer({ min: 0, max: 200 * DAY_MS }),
}).map(({ control, present, payload, at, age, later }) => ({
  control,
  observation: present ? observed(payload, new Date(at).toISOString()) : null,
  t1: at + age,
  t2: at + age + later,
}));

/** 0 while the probe decides, 1 once degraded by age, 2 once stale. */
function phase(state: ControlState, { control, observation }: Scenario): number {
  if (observation === null) return 0;
  if (state === probeFor(control).run(observation.payload, control.rule).outcome) return 0;
  return state === "degraded" ? 1 : 2;
}

function both({ control, observation, t1, t2 }: Scenario) {
  return [
    evaluateControl(control, observation, new Date(t1)),
    evaluateControl(control, observation, new Date(t2)),
  ] as const;
}

Deno.test("[evaluate] evaluateControl() is deterministic and leaves inputs untouched", () => {
  fc.assert(
    fc.property(scenarioArb, ({ control, observation, t1 }) => {
      const copy = structuredClone({ control, observation });
      const first = evaluateControl(control, observation, new Date(t1));
      assert.deepEqual(evaluateControl(copy.control, copy.observation, new Date(t1)), first);
      assert.deepEqual({ control, observation }, copy);
    }),
    { numRuns: 300 },
  );
});

Deno.test("[evaluate] evaluateControl() returns well-formed results for any JSON payload", () => {
  fc.assert(
    fc.property(scenarioArb, ({ control, observation, t1 }) => {
      const r = evaluateControl(control, observation, new Date(t1));
      assert.ok(ControlState.options.includes(r.state));
      assert.ok(r.confidence >= 0 && r.confidence <= 1);
      assert.equal(r.confidence, CONFIDENCE[r.state]);
      assert.ok(r.reason.length > 0 && !/[\r\n]/.test(r.reason), r.reason);
      for (const stamp of [r.latestEvidenceAt, r.freshUntil, r.nextCheckAt]) {
        assert.ok(stamp === null || new Date(stamp).toISOString() === stamp);
      }
      assert.ok(r.nextCheckAt === null || Date.parse(r.nextCheckAt) > t1);
      if (observation === null) assert.equal(r.state, "unknown");
      else assert.equal(r.freshUntil === null, control.freshnessPolicyJson.kind === "none");
    }),
    { numRuns: 500 },
  );
});

Deno.test("[evaluate] aging never improves a state without new evidence", async (t) => {
  const check = (predicate: (s: Scenario) => void) =>
    fc.assert(fc.property(scenarioArb, predicate), { numRuns: 1000 });

  await t.step("a state that is not pass never ages into pass", () =>
    check((s) => {
      const [r1, r2] = both(s);
      if (r1.state !== "pass") assert.notEqual(r2.state, "pass");
    }));

  await t.step(
    "freshness only moves forward: probe, then degraded, then stale",
    () =>
      check((s) => {
        const [r1, r2] = both(s);
        assert.ok(phase(r2.state, s) >= phase(r1.state, s), `${r1.state} -> ${r2.state}`);
      }),
  );

  await t.step("the worst-order rank never goes down", () =>
    check((s) => {
      const [r1, r2] = both(s);
      assert.ok(stateRank(r2.state) >= stateRank(r1.state), `${r1.state} -> ${r2.state}`);
    }));
});

Deno.test("[evaluate] overallState() equals the worst of the control states", () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...ControlState.options), { maxLength: 20 }), (states) => {
      const expected = WORST_FIRST.find((s) => states.includes(s)) ?? "unknown";
      assert.equal(overallState(states), expected);
      assert.equal(overallState([...states].reverse()), expected);
      for (const s of states) assert.ok(stateRank(s) <= stateRank(overallState(states)));
    }),
    { numRuns: 500 },
  );
});

Deno.test("[evaluate] every probe answers any value without throwing", () => {
  fc.assert(
    fc.property(fc.anything(), ruleArb, (payload, rule) => {
      for (const probe of PROBES) {
        const result = probe.run(payload, { ...rule });
        assert.ok(["pass", "fail", "unknown"].includes(result.outcome));
        assert.ok(result.reason.length > 0 && !/[\r\n]/.test(result.reason), result.reason);
      }
    }),
    { numRuns: 500 },
  );
});
