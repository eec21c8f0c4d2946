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
] as const;

export type EvidenceFormat = typeof EVIDENCE_FORMATS[number];
