/**
 * The shape every probe answers with (DESIGN.md §8): an outcome and a one-line reason.
 */
import type { EvidenceFormat } from "../../domain/evidence_formats.ts";

/** What a probe concluded; `unknown` means it could not read the payload. */
export type ProbeOutcome = "pass" | "fail" | "unknown";

/**
 * A probe's answer: scoring reads only `outcome`; `reason` is for people; `format` names
 * the document shape the probe recognized, when it recognized one (even if it then could
 * not conclude), and is what ingest reports as the record's reading.
 */
export interface ProbeResult {
  outcome: ProbeOutcome;
  reason: string;
  format?: EvidenceFormat;
}

/** Stable probe ids: the names of the probe functions, questions answered yes or no. */
/** The buyer category a probe's controls are shown under (see ../groups.ts). */
export type BuyerGroupId =
  | "supply_chain"
  | "vulnerability_management"
  | "runtime"
  | "policy"
  | "liveness";

export type ProbeId =
  | "hasActiveCollector"
  | "isSbomDocument"
  | "hasNoFindingAbove"
  | "hasSlsaProvenance"
  | "listsDependencies"
  | "isDeploymentHealthy"
  | "didPoliciesPass"
  | "doesRuleHold";

export function pass(reason: string): ProbeResult {
  return { outcome: "pass", reason };
}

export function fail(reason: string): ProbeResult {
  return { outcome: "fail", reason };
}

export function unknown(reason: string): ProbeResult {
  return { outcome: "unknown", reason };
}

/** `result` tagged with the format the probe recognized. */
export function inFormat(format: EvidenceFormat, result: ProbeResult): ProbeResult {
  return { ...result, format };
}
