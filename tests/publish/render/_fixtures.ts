/**
 * Publication fixtures for renderer tests: a realistic seven-control profile, hostile
 * vendor text, and the links a trust page is rendered with.
 */
import type { PublishedTrustControl, PublishedVersion } from "../../../src/domain/publish.ts";
import { buildTrustProfile, type TrustPageLinks } from "../../../src/publish/render/mod.ts";

export const PUBLISHED_AT = "2026-03-14T09:30:00.000Z";
export const HOSTILE_NAME = "<img src=x onerror=alert(1)>";
export const HOSTILE_CONTROL = '"</style><script>alert(1)</script>';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** `PUBLISHED_AT` shifted by `ms` (negative: earlier). */
export function at(ms: number): string {
  return new Date(Date.parse(PUBLISHED_AT) + ms).toISOString();
}

/** One control of the default catalog as published, evidence `age` ms before publication. */
function control(
  key: string,
  name: string,
  state: PublishedTrustControl["state"],
  confidence: number,
  age: number | null,
  window: number,
  staleAfter: number,
): PublishedTrustControl {
  return {
    key,
    category: key.startsWith("collector.") ? "collector" : "evidence",
    name,
    state,
    confidence,
    latestEvidenceAt: age === null ? null : at(-age),
    freshUntil: age === null ? null : at(window - age),
    nextCheckAt: age === null || age >= staleAfter
      ? null
      : at(age < window ? window - age : staleAfter - age),
  };
}

/** Seven controls covering every state, as a publish would produce them. */
export const SEVEN_CONTROLS: PublishedTrustControl[] = [
  control("collector.heartbeat", "Collector heartbeat", "pass", 1, 20 * 60_000, DAY, 7 * DAY),
  control("evidence.sbom", "Software bill of materials", "pass", 1, 3 * HOUR, 7 * DAY, 30 * DAY),
  control("evidence.vulnerability_scan", "Vulnerability scan", "fail", 1, 5 * HOUR, DAY, 7 * DAY),
  control("evidence.build_provenance", "Build provenance", "pass", 1, 2 * DAY, 30 * DAY, 90 * DAY),
  control(
    "evidence.dependency_inventory",
    "Dependency inventory",
    "degraded",
    0.5,
    9 * DAY,
    7 * DAY,
    30 * DAY,
  ),
  control(
    "evidence.deployment_snapshot",
    "Deployment snapshot",
    "stale",
    0.25,
    8 * DAY,
    DAY,
    7 * DAY,
  ),
  control("evidence.policy_result", "Policy results", "unknown", 0, null, DAY, 7 * DAY),
];

export const LINKS: TrustPageLinks = {
  trustJson: "https://trust.example.com/trust/acme/trust.json",
  signature: "https://trust.example.com/trust/acme/trust.json.jws",
  feed: "https://trust.example.com/trust/acme/feed.xml",
  evaluationRules: "https://trust.example.com/docs/evaluation.md",
  versions: "https://trust.example.com/trust/acme/versions",
  badge: "https://trust.example.com/trust/acme/badge.svg",
};

/** The realistic profile: Acme Cloud, version 7. */
export function acmeProfile(controls: PublishedTrustControl[] = SEVEN_CONTROLS) {
  return buildTrustProfile({
    project: { slug: "acme", name: "Acme Cloud", hostedSubdomain: "acme" },
    version: 7,
    publishedAt: PUBLISHED_AT,
    controls,
  });
}

/** The same profile with vendor text an attacker controls. */
export function hostileProfile() {
  const controls = SEVEN_CONTROLS.map((c, i) => i === 0 ? { ...c, name: HOSTILE_CONTROL } : c);
  const profile = acmeProfile(controls);
  return { ...profile, project: { ...profile.project, name: HOSTILE_NAME } };
}

/** Three versions, newest first, with the changes /versions reports. */
export const VERSIONS: PublishedVersion[] = [
  {
    version: 3,
    publishedAt: PUBLISHED_AT,
    digest: `sha256:${"c".repeat(64)}`,
    previousDigest: `sha256:${"b".repeat(64)}`,
    overallState: "fail",
    changes: [{
      key: "evidence.vulnerability_scan",
      name: "Vulnerability scan",
      from: "pass",
      to: "fail",
    }],
  },
  {
    version: 2,
    publishedAt: at(-DAY),
    digest: `sha256:${"b".repeat(64)}`,
    previousDigest: `sha256:${"a".repeat(64)}`,
    overallState: "pass",
    changes: [],
  },
  {
    version: 1,
    publishedAt: at(-30 * DAY),
    digest: `sha256:${"a".repeat(64)}`,
    previousDigest: null,
    overallState: "pass",
    changes: [{ key: "evidence.sbom", name: "Software bill of materials", from: null, to: "pass" }],
  },
];
