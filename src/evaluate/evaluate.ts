/**
 * The evaluation state machine (DESIGN.md §8): one control, one observation, one instant.
 * Pure: time is an argument and nothing here reads a clock, storage or the network.
 */
import type { ControlState, TrustControl } from "../domain/control.ts";
import type { SignatureCheck } from "../domain/sigstore.ts";
import { formatAge, formatSeconds } from "../lib/duration.ts";
import { DEFAULT_CATALOG } from "./catalog.ts";
import type { ProbeResult } from "./probes/types.ts";
import type { VexEvidence } from "./probes/vex_match.ts";
import { defaultProbeFor, probeById, type ProbeDefinition } from "./registry.ts";

/** The latest observation of a control's stream: evidence, or a collector's `lastSeenAt`. */
export interface Observation {
  /** Observation time `L`, an ISO 8601 date-time. */
  at: string;
  /** The evidence payload; absent for the collector heartbeat. */
  payload?: unknown;
  evidenceRecordId: string | null;
  /**
   * The project's latest VEX documents, oldest observation first, for probes that apply
   * them (vulnerability scans); absent or empty when there are none.
   */
  vex?: readonly VexEvidence[];
  /**
   * The verification of the Sigstore signature the payload carries, made before
   * evaluation (null: it claims none; absent: not checked).
   */
  signature?: SignatureCheck | null;
}

/** One control's state at one instant, with the timestamps that explain and schedule it. */
export interface EvaluationResult {
  state: ControlState;
  confidence: number;
  reason: string;
  latestEvidenceAt: string | null;
  freshUntil: string | null;
  nextCheckAt: string | null;
}

/** States from worst to best: the order `overallState` and the published summary use. */
export const WORST_FIRST: readonly ControlState[] = [
  "fail",
  "stale",
  "degraded",
  "unknown",
  "pass",
];

/** How much a state says about the control right now. */
export const CONFIDENCE: Readonly<Record<ControlState, number>> = {
  pass: 1,
  fail: 1,
  degraded: 0.5,
  stale: 0.25,
  unknown: 0,
};

/** Largest instant a JavaScript Date can hold (ECMA-262 §21.4.1.1). */
const MAX_DATE_MS = 8.64e15;

/** How bad a state is: 0 for `pass` up to 4 for `fail`, following `WORST_FIRST`. */
export function stateRank(state: ControlState): number {
  return WORST_FIRST.length - 1 - WORST_FIRST.indexOf(state);
}

/**
 * The probe that judges `control`'s observations. A control with a `rule` is judged by
 * that rule (the operator asked for exactly it); a default catalog control by the probe
 * its catalog entry names, as long as it still reads the catalog's evidence type; any
 * other control by the default probe of its evidence type, or the heartbeat probe when
 * it reads no evidence type.
 */
export function probeFor(control: TrustControl): ProbeDefinition {
  if (control.rule !== null) return probeById("doesRuleHold");
  const entry = DEFAULT_CATALOG.find((e) => e.key === control.key);
  if (entry && entry.evidenceType === control.evidenceType) return probeById(entry.probeId);
  return defaultProbeFor(control.evidenceType);
}

/**
 * Evaluates `control` at instant `at` from its latest `observation`, following DESIGN.md §8
 * in order: no observation is `unknown`; with `age = at − L` (0 when the observation lies
 * in the future, as clock skew can make it), `age ≥ S` is `stale`, `age ≥ D` is
 * `degraded`, `age ≥ W` is `degraded` when S is set and `stale` otherwise; only fresh
 * observations reach the probe, whose `pass`, `fail` or `unknown` becomes the state.
 * `freshUntil` is `L + W`, `nextCheckAt` the earliest of `L + W`, `L + D`, `L + S` after
 * `at`. L is the observation's time, or the verified log time of its Sigstore signature
 * when that is earlier (signed evidence cannot be newer than its signature). Never throws:
 * an unreadable time, payload or failing probe yields `unknown`.
 */
export function evaluateControl(
  control: TrustControl,
  observation: Observation | null,
  at: Date,
): EvaluationResult {
  const now = at.getTime();
  if (!Number.isFinite(now)) return unknownResult("Evaluation time is not a valid date");
  const subject = control.evidenceType === null
    ? "collector heartbeat"
    : `${control.evidenceType} evidence`;
  if (observation === null) {
    return unknownResult(
      control.evidenceType === null
        ? "No active collector has been seen"
        : `No ${subject} has been received`,
    );
  }
  const claimed = Date.parse(observation.at);
  if (!Number.isFinite(claimed)) {
    return unknownResult(`Observation time ${JSON.stringify(observation.at)} is not a date-time`);
  }
  // Signed evidence is as old as its signature: the verified log time caps the claimed one.
  const signedAt = observation.signature?.signedAt
    ? Date.parse(observation.signature.signedAt)
    : NaN;
  const bySignature = Number.isFinite(signedAt) && signedAt <= claimed;
  const observed = bySignature ? signedAt : claimed;

  const freshness = control.freshnessPolicyJson;
  const w = freshness.kind === "time_window" ? freshness.windowSeconds * 1000 : null;
  const d = msOrNull(control.degradationPolicyJson.degradedAfterSeconds);
  const s = msOrNull(control.degradationPolicyJson.staleAfterSeconds);
  const age = Math.max(0, now - observed);
  const old = `Latest ${subject} is ${formatAge(age)} old` +
    (bySignature ? ` (counted from its signature's log time, ${iso(observed)})` : "");

  let state: ControlState;
  let reason: string;
  if (s !== null && age >= s) {
    [state, reason] = ["stale", `${old}; stale after ${formatSeconds(s / 1000)}`];
  } else if (d !== null && age >= d) {
    [state, reason] = ["degraded", `${old}; degraded after ${formatSeconds(d / 1000)}`];
  } else if (w !== null && age >= w) {
    // With D set, W only degrades: `stale` at W would turn back into `degraded` at D.
    state = s !== null || d !== null ? "degraded" : "stale";
    reason = `${old}; past its ${formatSeconds(w / 1000)} freshness window`;
  } else {
    const result = runProbe(probeFor(control), control, observation);
    [state, reason] = [result.outcome, result.reason];
  }
  if (state === "degraded" || state === "stale") {
    // Failing evidence stays `fail` as it ages: `degraded` and `stale` rank better, and a
    // failure must not look better because no newer evidence arrived.
    const result = runProbe(probeFor(control), control, observation);
    if (result.outcome === "fail") {
      [state, reason] = ["fail", `${result.reason} (${old.toLowerCase()})`];
    }
  }

  const checks = [w, d, s]
    .filter((offset): offset is number => offset !== null)
    .map((offset) => observed + offset)
    .filter((instant) => instant > now);
  return {
    state,
    confidence: CONFIDENCE[state],
    reason,
    latestEvidenceAt: iso(observed),
    freshUntil: w === null ? null : iso(observed + w),
    nextCheckAt: checks.length === 0 ? null : iso(Math.min(...checks)),
  };
}

/**
 * The project's overall state from the states of its enabled controls: `unknown` when
 * there are none, otherwise the worst of them in the order fail, stale, degraded,
 * unknown, pass (so one failing control makes the whole profile fail).
 */
export function overallState(states: readonly ControlState[]): ControlState {
  if (states.length === 0) return "unknown";
  return states.reduce((worst, state) => stateRank(state) > stateRank(worst) ? state : worst);
}

/** Counts per state and the overall state of enabled controls (SPEC.md PublishedTrustSummary). */
export function summarizeStates(states: readonly ControlState[]) {
  const tally = (state: ControlState) => states.filter((s) => s === state).length;
  return {
    overallState: overallState(states),
    totalControls: states.length,
    passCount: tally("pass"),
    failCount: tally("fail"),
    staleCount: tally("stale"),
    degradedCount: tally("degraded"),
    unknownCount: tally("unknown"),
  };
}

/**
 * A probe's answer. A payload whose Sigstore signature does not verify fails whichever
 * probe reads it: signed evidence is never read as trustworthy when its signature is not.
 * A probe that throws (a bug) must not take the recompute down with it.
 */
function runProbe(
  probe: ProbeDefinition,
  control: TrustControl,
  observation: Observation,
): ProbeResult {
  const { payload, signature } = observation;
  if (signature && !signature.verified) return { outcome: "fail", reason: signature.reason };
  try {
    return probe.run(payload, control.rule, { vex: observation.vex ?? [], signature });
  } catch {
    return { outcome: "unknown", reason: `Probe ${probe.id} could not read the payload` };
  }
}

function unknownResult(reason: string): EvaluationResult {
  return {
    state: "unknown",
    confidence: CONFIDENCE.unknown,
    reason,
    latestEvidenceAt: null,
    freshUntil: null,
    nextCheckAt: null,
  };
}

function msOrNull(seconds: number | null): number | null {
  return seconds === null ? null : seconds * 1000;
}

/** ISO string, or null for an instant beyond what a Date can represent. */
function iso(ms: number): string | null {
  return Math.abs(ms) <= MAX_DATE_MS ? new Date(ms).toISOString() : null;
}
