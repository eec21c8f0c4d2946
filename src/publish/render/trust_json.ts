/**
 * trust.json: the machine-readable publication (SPEC.md "Published trust profile (public)").
 * Its bytes are what gets signed and hash-chained, so they must be a pure function of the
 * data: keys in the table's order, controls in input order, fixed indentation.
 */
import type {
  PublishedTrustControl,
  PublishedTrustProfile,
  PublishedTrustSummary,
} from "../../domain/publish.ts";
import type { Vendor } from "../../domain/vendor.ts";
import type { DeclaredByVendor, DeclaredCertification } from "../../domain/certifications.ts";
import { summarizeStates } from "../../evaluate/mod.ts";
import { headlineVerdict } from "./_format.ts";

/** What a publication is built from; every value is already validated. */
export interface TrustProfileInput {
  project: { slug: string; name: string; hostedSubdomain: string | null };
  version: number;
  publishedAt: string;
  controls: readonly PublishedTrustControl[];
  /** The organization's profile at publication; null (or absent) when it has none. */
  vendor?: Vendor | null;
  /** What the vendor declares at publication (its certifications); absent when nothing. */
  declaredByVendor?: DeclaredByVendor | null;
}

/**
 * Builds the PublishedTrustProfile for one version: schemaVersion 1, the project, version
 * and publication time as given, the controls in input order, and a summary computed from
 * their states (overall state `unknown` without controls, otherwise the worst of fail >
 * stale > degraded > unknown > pass, the evaluator's own rule). Only the fields of the
 * typed contract are copied, so extra properties on the input never reach the artifact.
 */
export function buildTrustProfile(input: TrustProfileInput): PublishedTrustProfile {
  const controls = input.controls.map(pickControl);
  return {
    schemaVersion: 1,
    project: {
      slug: input.project.slug,
      name: input.project.name,
      hostedSubdomain: input.project.hostedSubdomain,
    },
    version: input.version,
    publishedAt: input.publishedAt,
    summary: pickSummary(summarize(controls)),
    controls,
    vendor: pickVendor(input.vendor ?? null),
    ...declaredOf(input.declaredByVendor ?? null),
  };
}

/**
 * The exact bytes of trust.json: UTF-8 JSON, two-space indentation, a trailing newline, and
 * keys in SPEC.md's fixed order at every level whatever order the object was built in. The
 * same profile always gives the same bytes, which is what lets a version be signed, hashed
 * into the next version's `prev`, and served again byte for byte.
 */
export function serializeTrustJson(profile: PublishedTrustProfile): Uint8Array {
  // Rebuilding in a literal fixes the key order: JSON.stringify follows insertion order
  // for non-numeric keys, and none of the contract's keys is numeric.
  const ordered: PublishedTrustProfile = {
    schemaVersion: profile.schemaVersion,
    project: {
      slug: profile.project.slug,
      name: profile.project.name,
      hostedSubdomain: profile.project.hostedSubdomain,
    },
    version: profile.version,
    publishedAt: profile.publishedAt,
    summary: pickSummary(profile.summary),
    controls: profile.controls.map(pickControl),
    // Additions after SPEC.md's fields, in a fixed order.
    vendor: pickVendor(profile.vendor ?? null),
    ...declaredOf(profile.declaredByVendor ?? null),
  };
  return new TextEncoder().encode(JSON.stringify(ordered, null, 2) + "\n");
}

/**
 * SPEC.md's summary (the evaluator's counts and overall state) and this service's additions:
 * how many of the controls not reported are required, and the headline's verdict.
 */
function summarize(controls: readonly PublishedTrustControl[]): PublishedTrustSummary {
  const counts = summarizeStates(controls.map((c) => c.state));
  const requiredUnknownCount =
    controls.filter((c) => c.required === true && c.state === "unknown").length;
  return {
    ...counts,
    requiredUnknownCount,
    verdict: headlineVerdict(counts, requiredUnknownCount),
  };
}

/** SPEC.md's fields in order, then the additions (left out when absent, as in older versions). */
function pickSummary(summary: PublishedTrustSummary): PublishedTrustSummary {
  const picked: PublishedTrustSummary = {
    overallState: summary.overallState,
    totalControls: summary.totalControls,
    passCount: summary.passCount,
    failCount: summary.failCount,
    staleCount: summary.staleCount,
    degradedCount: summary.degradedCount,
    unknownCount: summary.unknownCount,
  };
  if (summary.requiredUnknownCount !== undefined) {
    picked.requiredUnknownCount = summary.requiredUnknownCount;
  }
  if (summary.verdict !== undefined) picked.verdict = summary.verdict;
  return picked;
}

/**
 * SPEC.md's control fields in their order, then this service's additions in a fixed order
 * (reason, evidence, group, description, required); an addition the input lacks is left out, so a
 * profile built before the additions serializes to the same bytes as then.
 */
function pickControl(control: PublishedTrustControl): PublishedTrustControl {
  const picked: PublishedTrustControl = {
    key: control.key,
    category: control.category,
    name: control.name,
    state: control.state,
    confidence: control.confidence,
    latestEvidenceAt: control.latestEvidenceAt,
    freshUntil: control.freshUntil,
    nextCheckAt: control.nextCheckAt,
  };
  if (control.reason !== undefined) picked.reason = control.reason;
  if (control.evidence !== undefined) {
    picked.evidence = { digest: control.evidence.digest, observedAt: control.evidence.observedAt };
  }
  if (control.group !== undefined) picked.group = control.group;
  if (control.description !== undefined) picked.description = control.description;
  if (control.required === true) picked.required = true;
  return picked;
}

function pickVendor(vendor: Vendor | null): Vendor | null {
  if (vendor === null) return null;
  return {
    name: vendor.name,
    description: vendor.description,
    website: vendor.website,
    logoUrl: vendor.logoUrl,
    securityContact: { email: vendor.securityContact.email, url: vendor.securityContact.url },
    brandColor: vendor.brandColor,
  };
}

/**
 * The `declaredByVendor` section in its fixed key order, or nothing when the vendor declared
 * nothing, so a version without claims keeps the bytes it had before the section existed.
 */
function declaredOf(section: DeclaredByVendor | null): { declaredByVendor?: DeclaredByVendor } {
  if (section === null || section.certifications.length === 0) return {};
  return {
    declaredByVendor: {
      notice: section.notice,
      certifications: section.certifications.map(pickCertification),
    },
  };
}

function pickCertification(c: DeclaredCertification): DeclaredCertification {
  return {
    id: c.id,
    framework: c.framework,
    frameworkName: c.frameworkName,
    status: c.status,
    auditor: c.auditor,
    auditPeriod: c.auditPeriod && { start: c.auditPeriod.start, end: c.auditPeriod.end },
    issuedAt: c.issuedAt,
    expiresAt: c.expiresAt,
    scope: c.scope,
    registryUrl: c.registryUrl,
    project: c.project && { slug: c.project.slug, name: c.project.name },
    document: c.document && {
      id: c.document.id,
      title: c.document.title,
      visibility: c.document.visibility,
      digest: c.document.digest,
    },
  };
}
