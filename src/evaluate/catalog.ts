/**
 * The default control catalog seeded into every new project (DESIGN.md §8).
 * Keys are stable API: trust pages, badges and feeds refer to them.
 */
import type {
  ControlCategory,
  DegradationPolicy,
  EvidenceType,
  FreshnessPolicy,
  TrustControl,
} from "../domain/control.ts";
import type { ProbeId } from "./probes/types.ts";
import { compareCodePoints } from "../lib/order.ts";

export interface CatalogEntry {
  key: string;
  category: ControlCategory;
  publicName: string;
  evidenceType: EvidenceType | null;
  /** The probe that evaluates the control's latest observation (see registry.ts). */
  probeId: ProbeId;
  freshness: FreshnessPolicy;
  degradation: DegradationPolicy;
}

const HOUR = 3600;
const DAY = 24 * HOUR;

/** Fresh for `fresh`, degraded after it, stale after `stale` (seconds). */
function ages(fresh: number, stale: number) {
  return {
    freshness: { kind: "time_window", windowSeconds: fresh } as const,
    degradation: { staleAfterSeconds: stale, degradedAfterSeconds: null },
  };
}

export const DEFAULT_CATALOG: readonly CatalogEntry[] = [
  {
    key: "collector.heartbeat",
    category: "collector",
    publicName: "Collector heartbeat",
    evidenceType: null,
    probeId: "hasActiveCollector",
    ...ages(DAY, 7 * DAY),
  },
  {
    key: "evidence.sbom",
    category: "evidence",
    publicName: "Software bill of materials",
    evidenceType: "sbom",
    probeId: "isSbomDocument",
    ...ages(7 * DAY, 30 * DAY),
  },
  {
    key: "evidence.vulnerability_scan",
    category: "evidence",
    publicName: "Vulnerability scan",
    evidenceType: "vulnerability_scan",
    probeId: "hasNoFindingAbove",
    ...ages(DAY, 7 * DAY),
  },
  {
    key: "evidence.build_provenance",
    category: "evidence",
    publicName: "Build provenance",
    evidenceType: "build_provenance",
    probeId: "hasSlsaProvenance",
    ...ages(30 * DAY, 90 * DAY),
  },
  {
    key: "evidence.dependency_inventory",
    category: "evidence",
    publicName: "Dependency inventory",
    evidenceType: "dependency_inventory",
    probeId: "listsDependencies",
    ...ages(7 * DAY, 30 * DAY),
  },
  {
    key: "evidence.deployment_snapshot",
    category: "evidence",
    publicName: "Deployment snapshot",
    evidenceType: "deployment_snapshot",
    probeId: "isDeploymentHealthy",
    ...ages(DAY, 7 * DAY),
  },
  {
    key: "evidence.policy_result",
    category: "evidence",
    publicName: "Policy checks",
    evidenceType: "policy_result",
    probeId: "didPoliciesPass",
    ...ages(7 * DAY, 30 * DAY),
  },
];

/** The default catalog as fresh control records for a new project. */
export function catalogControls(now: Date): TrustControl[] {
  return DEFAULT_CATALOG.map((entry) => ({
    id: crypto.randomUUID(),
    key: entry.key,
    category: entry.category,
    publicName: entry.publicName,
    freshnessPolicyJson: entry.freshness,
    degradationPolicyJson: entry.degradation,
    enabled: true,
    createdAt: now.toISOString(),
    evidenceType: entry.evidenceType,
    rule: null,
    required: false,
  }));
}

const CATALOG_POSITION = new Map(DEFAULT_CATALOG.map((entry, i) => [entry.key, i]));

/**
 * `controls` in the order readers see them: default catalog entries first, in catalog
 * order, then custom controls by creation time (key order among equals).
 */
export function inCatalogOrder<T extends Pick<TrustControl, "key" | "createdAt">>(
  controls: T[],
): T[] {
  const last = CATALOG_POSITION.size;
  return [...controls].sort((a, b) =>
    (CATALOG_POSITION.get(a.key) ?? last) - (CATALOG_POSITION.get(b.key) ?? last) ||
    compareCodePoints(a.createdAt, b.createdAt) || compareCodePoints(a.key, b.key)
  );
}
