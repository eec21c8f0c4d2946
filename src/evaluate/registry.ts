/**
 * The probe registry: every probe with its documentation and remediation. Evaluation
 * looks probes up here and the published evaluation rules (docs.ts) are generated from
 * here, so what runs and what is documented cannot drift apart.
 */
import type { ControlRule, EvidenceType } from "../domain/control.ts";
import { closestFormatHint } from "./formats.ts";
import type { SignatureCheck } from "../domain/sigstore.ts";
import { hasSlsaProvenance } from "./probes/build_provenance.ts";
import { doesRuleHold } from "./probes/custom_rule.ts";
import { listsDependencies } from "./probes/dependency_inventory.ts";
import { isDeploymentHealthy } from "./probes/deployment_snapshot.ts";
import { hasActiveCollector } from "./probes/heartbeat.ts";
import { didPoliciesPass } from "./probes/policy_result.ts";
import { isSbomDocument } from "./probes/sbom.ts";
import type { BuyerGroupId, ProbeId, ProbeResult } from "./probes/types.ts";
import { unknown } from "./probes/types.ts";
import { hasNoFindingAbove } from "./probes/vulnerability_scan.ts";
import { MAX_VEX_DOCUMENTS, type VexEvidence } from "./probes/vex_match.ts";

/** The observation stream a probe reads. */
export type ProbeInput = EvidenceType | "collector_heartbeat" | "any_evidence";

/** A registered probe: what it asks, what it reads, how it is documented, how it runs. */
export interface ProbeDefinition {
  id: ProbeId;
  name: string;
  reads: ProbeInput;
  /** The buyer category of controls it reads for; null for custom rules (their evidence's). */
  group: BuyerGroupId | null;
  /** "What this checks": one plain-language line for a buyer reading a trust page. */
  checks: string;
  /** One line for tables: when the probe passes. */
  passesWhen: string;
  /** Accepted formats and edge cases, one paragraph of Markdown. */
  documentation: string;
  /** What a vendor does when the probe does not pass, one paragraph of Markdown. */
  remediation: string;
  run(payload: unknown, rule: ControlRule | null, context?: ProbeContext): ProbeResult;
}

/**
 * What a probe may read beside the payload: the project's latest VEX documents, and the
 * verification of the Sigstore signature the payload carries (null when it claims none,
 * absent when nobody checked).
 */
export interface ProbeContext {
  vex: readonly VexEvidence[];
  signature?: SignatureCheck | null;
}

/** Every probe, in the order of the default catalog, custom rules last. */
const DEFINITIONS: readonly ProbeDefinition[] = [
  {
    id: "hasActiveCollector",
    name: "Active collector seen",
    reads: "collector_heartbeat",
    group: "liveness",
    checks: "The vendor's evidence collector has reported in recently",
    passesWhen: "an active collector has been seen",
    documentation:
      "The observation is the newest `lastSeenAt` of the project's active collectors; there " +
      "is no payload. Any observation passes, and the freshness policy turns a silent " +
      "collector into `degraded` and then `stale`. Revoked collectors are not observed.",
    remediation:
      "Run the collector CLI on a schedule (for example a daily CI job) with an active " +
      "collector secret; rotate a revoked or lost secret and update the CI configuration.",
    run: (payload) => hasActiveCollector(payload),
  },
  {
    id: "isSbomDocument",
    name: "SBOM document",
    reads: "sbom",
    group: "supply_chain",
    checks: "A machine-readable list of the software's components (SBOM) is published",
    passesWhen: "the payload is a CycloneDX or SPDX JSON document",
    documentation:
      'CycloneDX JSON: `bomFormat: "CycloneDX"`, a `specVersion` of the form `1.x` and a ' +
      "`components[]` list whose entries have a `name`. SPDX 2.x JSON: `spdxVersion` of the " +
      "form `SPDX-2.x` and a `packages[]` list whose entries have a `name`. An empty list " +
      "passes (a dependency-free artifact still has an SBOM). A document that names one of " +
      "the formats but breaks it fails; anything else (including SPDX 3 JSON-LD and XML) " +
      "is `unknown`.",
    remediation: "Generate the SBOM in CI with a CycloneDX or SPDX tool (for example `syft -o " +
      "cyclonedx-json` or `cdxgen`) and upload the JSON file as `sbom` evidence.",
    run: (payload) => isSbomDocument(payload),
  },
  {
    id: "hasNoFindingAbove",
    name: "No finding above medium",
    reads: "vulnerability_scan",
    group: "vulnerability_management",
    checks: "The latest vulnerability scan found no high or critical vulnerability",
    passesWhen: "the scan reports no finding above `medium` (no high or critical finding)",
    documentation:
      "Accepted: a normalized `{ summary: { critical, high, medium, low } }` (a missing count " +
      "is 0); OSV-Scanner JSON (`results[].packages[]`, one finding per `groups[]` entry " +
      "rated by its CVSS `max_severity`, else by the worst of its advisories, or one per " +
      "`vulnerabilities[]` entry without groups; an advisory is rated by the CVSS v3.0, " +
      "v3.1 or v4.0 vectors in its `severity[]`, scored with the FIRST formulas, else by " +
      "its `database_specific.severity`); Grype JSON (`matches[].vulnerability.severity`); " +
      "Trivy JSON (`Results[].Vulnerabilities[].Severity`); `npm audit --json` (v2), the v1 " +
      "report `pnpm audit --json` prints, `yarn npm audit --json` lines, `pip-audit -f json`, " +
      "`cargo audit --json`, the `govulncheck -json` stream, `snyk test --json` and SARIF " +
      "2.1.0 (CodeQL, Semgrep, Trivy and other SARIF writers), each counted as the evidence " +
      "formats table below says. A JSON array payload is read as a govulncheck stream, Yarn " +
      "audit lines or Snyk's `--all-projects` output. A Trivy report without any " +
      "vulnerability result (a secret-only or misconfiguration-only scan, `Results: []`, " +
      "or no `Results`) is `unknown`: there was no vulnerability scanning in it; a package " +
      "result (`Class` os-pkgs or lang-pkgs) without vulnerabilities is a clean scan. CVSS " +
      "9.0+ is critical, 7.0+ high, 4.0+ medium, lower is low (0.0 counts as low); a vector " +
      "missing a base metric, and CVSS v2, rate nothing; moderate reads as medium and " +
      "negligible as low. Findings without a usable severity are reported as unrated and " +
      "do not fail, except where the tool never rates its findings (pip-audit; govulncheck, " +
      "whose database has no severities): there unrated findings fail, since nothing shows " +
      "them at or below the threshold. The reason lists the counts per severity and what " +
      "was left out (npm packages vulnerable only through a dependency, cargo-audit " +
      "warnings, govulncheck findings below the scan level, suppressed SARIF results, Snyk " +
      "license issues). " +
      "**VEX**: OpenVEX, CycloneDX VEX (a BOM with `vulnerabilities[].analysis.state`) and CSAF " +
      "VEX (`document.category` `csaf_vex`) documents sent as `vulnerability_scan` evidence are " +
      "not scans: the latest scan stays the observation, and the " +
      `${MAX_VEX_DOCUMENTS} newest VEX documents are applied to it.` +
      " A finding is left out of the counts when the latest statement (by its " +
      "timestamp, else its document's, else its observation time) that names one of the " +
      "finding's ids or aliases and covers its package is `not_affected` or `fixed` " +
      "(CycloneDX `not_affected`/`false_positive` and `resolved`; CSAF `known_not_affected` " +
      "and `fixed`); `affected` and `under_investigation` suppress nothing. A product covers " +
      "a package when it names its purl (a purl without version or qualifiers matches every " +
      "version or qualifier set, as OpenVEX specifies) or `name@version`, or names the scanned " +
      "image (Trivy `RepoDigests`, Grype `repoDigests`, as `pkg:oci` purls) with the package " +
      "among its `subcomponents`. The reason says how many findings each statement suppressed, " +
      "with the document's id, author, status and timestamp. A normalized summary names no " +
      "findings, so VEX cannot apply to it.",
    remediation: "Upgrade or patch the affected packages (the scanner names the fixed versions), " +
      "rebuild, rescan and upload the new report as `vulnerability_scan` evidence. When a " +
      "finding does not affect the product, send an OpenVEX (or CycloneDX or CSAF VEX) " +
      "document saying so as `vulnerability_scan` evidence.",
    run: (payload, _rule, context) => hasNoFindingAbove(payload, "medium", context?.vex),
  },
  {
    id: "hasSlsaProvenance",
    name: "SLSA build provenance",
    reads: "build_provenance",
    group: "supply_chain",
    checks: "Builds carry signed SLSA provenance saying where and how each artifact was built",
    passesWhen:
      "a Sigstore bundle from an expected signer whose in-toto statement is SLSA provenance",
    documentation:
      "An in-toto Statement (`_type` `https://in-toto.io/Statement/v0.1` or `/v1`) with " +
      "`predicateType` `https://slsa.dev/provenance/v0.2` or `/v1`, a builder id " +
      "(`predicate.builder.id` in v0.2, `predicate.runDetails.builder.id` in v1) and at " +
      "least one `subject[]` whose `digest` holds a hex digest (32 to 128 hex digits), " +
      "carried in a Sigstore bundle's `dsseEnvelope`. The service verifies the bundle " +
      "offline with the Sigstore libraries against its trusted root (the Sigstore " +
      "public-good root unless `SIGSTORE_TRUSTED_ROOT` names another): the DSSE signature, " +
      "the Fulcio certificate chain, the Rekor entry (signed entry timestamp and/or " +
      "inclusion proof) and the signer's identity, which must match one of the project's " +
      "expected identities (`PUT /projects/{id}/sigstore-identities`: issuer exactly, " +
      "subject exactly or with `*` wildcards that match within one `/` segment and never " +
      "across `@`). When the project requires it (`PUT /projects/{id}/provenance-subjects`), " +
      "one of the statement's subjects must also be an artifact the project reports: a " +
      "digest in the images of its latest deployment snapshot or of the component its " +
      "latest SBOM describes, or a name matching one of its artifact name patterns. Only " +
      "then does it pass, and the reason names the signer's SAN, its issuer, the Rekor log " +
      "index, the verified log time and which subject rule decided. Signed evidence is as " +
      "old as its signature: its age counts from the earlier of its `observedAt` and its " +
      "verified log time (Rekor's integrated time under a signed entry timestamp, or an " +
      "RFC 3161 timestamp), so a bundle sent again later is not fresh. Anything else fails " +
      "with the reason: a bare statement (not signed), a DSSE envelope without Sigstore " +
      "material (its key is unknown), a bundle that does not verify, whose signer is not " +
      "expected or whose subjects are not the project's artifacts when that is required. " +
      "Any other evidence carried in a bundle or envelope whose signature does " +
      "not verify fails the same way, whichever control reads it. An envelope whose " +
      "payload does not decode is `unknown`.",
    remediation: "Generate signed provenance in the build job (for example " +
      "`actions/attest-build-provenance` or the SLSA GitHub generator), upload its Sigstore " +
      "bundle as `build_provenance` evidence, and list the workflow identity that signs it " +
      "(issuer and subject) in the project's Sigstore identities.",
    run: (payload, _rule, context) => hasSlsaProvenance(payload, context?.signature),
  },
  {
    id: "listsDependencies",
    name: "Non-empty dependency inventory",
    reads: "dependency_inventory",
    group: "supply_chain",
    checks: "The software's dependencies are inventoried",
    passesWhen: "the inventory lists at least one package",
    documentation:
      "An object whose `packages`, `components` or `dependencies` field is a non-empty array " +
      "or a non-empty map of package names (as in package.json or an npm lockfile, whose " +
      '`""` root entry is not counted). Fields are read in that order and the first ' +
      "non-empty one decides (a CycloneDX document's `dependencies` graph is not read, its " +
      "`components` are); all present fields empty fails; none present is `unknown`.",
    remediation:
      "Export the resolved dependency list from the package manager or lockfile in CI and " +
      "upload it as `dependency_inventory` evidence.",
    run: (payload) => listsDependencies(payload),
  },
  {
    id: "isDeploymentHealthy",
    name: "Healthy deployment",
    reads: "deployment_snapshot",
    group: "runtime",
    checks: "The deployed services and workloads report themselves healthy",
    passesWhen: "the snapshot does not report itself unhealthy",
    documentation:
      "Fails when `healthy` is false, when `status` is unhealthy, failed, degraded or down " +
      "(any case), or when an entry of `services[]` or `workloads[]` is unhealthy by the " +
      "same rules or has fewer `readyReplicas` than `replicas`. Kubernetes output is read " +
      "too: `kubectl get deploy -o json` (a `List` with `items[]`) or one workload; a " +
      "Deployment, StatefulSet or ReplicaSet fails with fewer `status.readyReplicas` than " +
      "`spec.replicas` (1 of 3 ready fails), a DaemonSet with fewer `status.numberReady` " +
      "than `status.desiredNumberScheduled`, and a Deployment also when its `Available` " +
      "condition is False or its rollout exceeded its progress deadline; other kinds in a " +
      "List are skipped. A snapshot with none of these signals (an empty object, a List " +
      "without workloads, a manifest without `status`) is `unknown`.",
    remediation: "Restore the failing services or workloads, then send a new deployment snapshot.",
    run: (payload) => isDeploymentHealthy(payload),
  },
  {
    id: "didPoliciesPass",
    name: "Policy checks passed",
    reads: "policy_result",
    group: "policy",
    checks: "Automated policy checks (such as OPA or conftest) pass",
    passesWhen:
      "`passed: true`, `result`/`status` pass, conftest/OPA output without failures, or SARIF " +
      "without high or critical results",
    documentation:
      "Accepted: `passed: true|false`; `result` or `status` equal to pass, passed or success " +
      "(or fail, failed, failure), any case; conftest JSON (an array of `{ filename, " +
      "namespace, successes, failures[], warnings[] }`, failing on any failure; warnings do " +
      "not fail); `opa eval` JSON (`result[].expressions[].value`: a boolean is the " +
      "decision, an array is a deny set that fails when non-empty, an object is read for " +
      "`allow`, `deny[]` and `violation[]`); the OPA Data API's `{ result: … }` with the same " +
      "value rules; a SARIF 2.1.0 log (CodeQL, Semgrep, Trivy…), whose results are rated as " +
      "for vulnerability scans and which fails on any high or critical result (GitHub code " +
      "scanning's default for failing a check). Any failing verdict fails; no readable " +
      "verdict is `unknown`.",
    remediation:
      "Fix the resources the policy denies (the reason names the first failure), rerun the " +
      "policy checks and upload the new result as `policy_result` evidence.",
    run: (payload) => didPoliciesPass(payload),
  },
  {
    id: "doesRuleHold",
    name: "Custom rule",
    reads: "any_evidence",
    group: null,
    checks: "A rule the vendor defined holds on its latest evidence",
    passesWhen: "the control's `rule: { path, op, value }` holds on the latest payload",
    documentation:
      "`path` is dot-separated; whole-number segments index arrays (`results.0.status`). " +
      "`exists` passes when the value is present and not null; `truthy` when it is not " +
      'false, 0, "" or null; for both a missing path fails. `eq`/`ne` use strict equality ' +
      '(the string "1" is not the number 1); `lt`, `lte`, `gt`, `gte` need two finite ' +
      "numbers. Comparisons on a missing path or non-numbers, and any rule on a payload " +
      "that is not a JSON object or array, are `unknown`.",
    remediation:
      "Check that the evidence the collector uploads contains the field the rule names " +
      "with a value that satisfies it, or correct the rule.",
    run: (payload, rule) =>
      rule === null ? unknown("Control has no rule") : doesRuleHold(payload, rule),
  },
];

/**
 * The probes as they run: a probe that reads an evidence type and recognizes no format in
 * a payload ends its `unknown` reason with the closest supported format and the command
 * that produces it (formats.ts).
 */
export const PROBES: readonly ProbeDefinition[] = DEFINITIONS.map((probe) => {
  const reads = probe.reads;
  if (reads === "collector_heartbeat" || reads === "any_evidence") return probe;
  return {
    ...probe,
    run(payload, rule, context) {
      const result = probe.run(payload, rule, context);
      if (result.outcome !== "unknown" || result.format !== undefined) return result;
      return { ...result, reason: `${result.reason}; ${closestFormatHint(payload, reads)}` };
    },
  };
});

const BY_ID = new Map(PROBES.map((probe) => [probe.id, probe]));

/** The registered probe with `id`; ids are checked by the `ProbeId` type, so one always exists. */
export function probeById(id: ProbeId): ProbeDefinition {
  return BY_ID.get(id)!;
}

/**
 * The probe that reads an observation stream by default: the one registered for the
 * evidence type, or the heartbeat probe when `evidenceType` is null (collector controls).
 */
export function defaultProbeFor(evidenceType: EvidenceType | null): ProbeDefinition {
  const reads: ProbeInput = evidenceType ?? "collector_heartbeat";
  return PROBES.find((probe) => probe.reads === reads)!;
}
