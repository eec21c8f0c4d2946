/**
 * The evidence formats the probes recognize, as the `reading.format` of ingest responses
 * and evidence listings names them: part of the API contract, which the probes follow.
 */

/** Stable format ids, one per document shape a probe reads. */
export const EVIDENCE_FORMATS = [
  "scan-summary",
  "osv-scanner",
  "grype",
  "trivy",
  "npm-audit",
  "pnpm-audit",
  "yarn-audit",
  "pip-audit",
  "cargo-audit",
  "govulncheck",
  "snyk",
  "sarif",
  "cyclonedx",
  "spdx",
  "in-toto-statement",
  "dsse-envelope",
  "sigstore-bundle",
  "npm-lockfile",
  "package-list",
  "kubernetes",
  "health-snapshot",
  "conftest",
  "opa-eval",
  "opa-data-api",
  "policy-verdict",
  "openvex",
  "cyclonedx-vex",
  "csaf-vex",
] as const;

export type EvidenceFormat = typeof EVIDENCE_FORMATS[number];

/** The formats of VEX documents: sent as `vulnerability_scan` evidence, applied to the scans. */
export const VEX_FORMATS: readonly EvidenceFormat[] = ["openvex", "cyclonedx-vex", "csaf-vex"];
