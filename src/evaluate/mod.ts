/**
 * The evaluator's public API: the default catalog, the probes and their registry, the
 * state machine and the generated evaluation rules. Pure; no I/O anywhere below.
 */
export { catalogControls, type CatalogEntry, DEFAULT_CATALOG, inCatalogOrder } from "./catalog.ts";
export { renderEvaluationMarkdown } from "./docs.ts";
export {
  CONFIDENCE,
  evaluateControl,
  type EvaluationResult,
  type Observation,
  overallState,
  probeFor,
  stateRank,
  summarizeStates,
  WORST_FIRST,
} from "./evaluate.ts";
export {
  BUYER_GROUPS,
  type BuyerGroup,
  buyerGroup,
  type BuyerGroupId,
  describeControl,
  type DescribedControl,
  groupOf,
} from "./groups.ts";
export { hasSlsaProvenance } from "./probes/build_provenance.ts";
export { doesRuleHold } from "./probes/custom_rule.ts";
export { listsDependencies } from "./probes/dependency_inventory.ts";
export { isDeploymentHealthy } from "./probes/deployment_snapshot.ts";
export { hasActiveCollector } from "./probes/heartbeat.ts";
export { didPoliciesPass } from "./probes/policy_result.ts";
export { isSbomDocument } from "./probes/sbom.ts";
export type { ProbeId, ProbeOutcome, ProbeResult } from "./probes/types.ts";
export { hasNoFindingAbove, SEVERITIES, type Severity } from "./probes/vulnerability_scan.ts";
export {
  defaultProbeFor,
  probeById,
  type ProbeContext,
  type ProbeDefinition,
  type ProbeInput,
  PROBES,
} from "./registry.ts";
export { type EvidenceReading, readEvidence } from "./reading.ts";
export {
  applyVex,
  MAX_VEX_DOCUMENTS,
  parsePurl,
  purlMatches,
  type VexEvidence,
} from "./probes/vex_match.ts";
export { readVex, vexFormatOf, type VexReading, type VexStatement } from "./probes/vex.ts";
export { EVIDENCE_FORMATS, type EvidenceFormat, VEX_FORMATS } from "../domain/evidence_formats.ts";
