/**
 * Sigstore signer identities a project expects, and what verifying a signed payload
 * concluded. The evaluator reads `SignatureCheck`; the verification itself (crypto
 * against a trusted root) happens where ingest and recompute run, never in a probe.
 */
import { z } from "@hono/zod-openapi";
import {
  MAX_WILDCARD_PATTERN,
  MAX_WILDCARDS,
  wildcardLimitProblem,
  wildcardMatches,
} from "../lib/wildcard.ts";

/** Most identities one project may list. */
export const MAX_SIGSTORE_IDENTITIES = 20;

/** Refuses a pattern over the wildcard limits (checked when written; matching is linear anyway). */
function withinWildcardLimits(value: string, ctx: z.RefinementCtx) {
  const problem = wildcardLimitProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
}

const WILDCARD_LIMITS = `At most ${MAX_WILDCARDS} \`*\`, and a pattern with \`*\` at most ` +
  `${MAX_WILDCARD_PATTERN} characters.`;

export const SigstoreIdentity = z.strictObject({
  issuer: z.url({ protocol: /^https?$/ }).max(500).openapi({
    description: "OIDC issuer recorded in the Fulcio certificate, compared exactly",
    example: "https://token.actions.githubusercontent.com",
  }),
  subject: z.string().trim().min(1).max(500).superRefine(withinWildcardLimits).openapi({
    description: "Certificate subject alternative name (SAN): compared exactly, except that " +
      "each `*` matches any run of characters other than `/` and `@` (including none), so " +
      "`…/release.yml@refs/tags/*` matches tags but never `refs/pull/1/merge`. " +
      WILDCARD_LIMITS,
    example: "https://github.com/acme/app/.github/workflows/release.yml@refs/heads/main",
  }),
}).openapi("SigstoreIdentity");
export type SigstoreIdentity = z.infer<typeof SigstoreIdentity>;

export const SigstoreIdentitiesRequest = z.strictObject({
  identities: z.array(SigstoreIdentity).max(MAX_SIGSTORE_IDENTITIES),
}).openapi("SigstoreIdentitiesRequest");

export const SigstoreIdentitiesResponse = z.object({
  identities: z.array(SigstoreIdentity),
}).openapi("SigstoreIdentitiesResponse");

/** Where the digests of the artifacts a project reports come from. */
export const ARTIFACT_SOURCES = ["deployment_snapshot", "sbom"] as const;
export type ArtifactSource = (typeof ARTIFACT_SOURCES)[number];

/** Most artifact name patterns one project may list. */
export const MAX_ARTIFACT_NAMES = 20;

const ArtifactNamePattern = z.string().trim().min(1).max(300).regex(
  // deno-lint-ignore no-control-regex -- exactly what the check refuses
  /^[^\u0000-\u001f\u007f]+$/,
  "Must not contain control characters",
).superRefine(withinWildcardLimits).openapi({
  description: "An artifact name as provenance subjects name it, compared exactly except " +
    "that each `*` matches any run of characters other than `/` and `@`. " + WILDCARD_LIMITS,
  example: "ghcr.io/acme/app",
});

const ProvenanceSubjectsShape = {
  requireMatch: z.boolean().openapi({
    description: "When true, build provenance passes only when one of its subjects is an " +
      "artifact the project reports: its digest is in the latest evidence of a source in " +
      "`digestsFrom`, or its name matches one of `artifactNames`",
  }),
  digestsFrom: z.array(z.enum(ARTIFACT_SOURCES)).max(ARTIFACT_SOURCES.length).openapi({
    description: "Evidence whose artifact digests count: `deployment_snapshot` (the digests " +
      "in workload `image`/`imageID` references of the latest snapshot) and `sbom` (the " +
      "digests of the component the latest SBOM describes)",
  }),
  artifactNames: z.array(ArtifactNamePattern).max(MAX_ARTIFACT_NAMES),
};

/** How build provenance subjects must relate to the artifacts the project reports. */
export const ProvenanceSubjects = z.strictObject(ProvenanceSubjectsShape)
  .refine(
    (value) =>
      !value.requireMatch || value.digestsFrom.length > 0 || value.artifactNames.length > 0,
    {
      message: "requireMatch needs at least one source in digestsFrom or one artifactNames pattern",
      path: ["requireMatch"],
    },
  )
  .refine((value) => new Set(value.digestsFrom).size === value.digestsFrom.length, {
    message: "digestsFrom lists a source twice",
    path: ["digestsFrom"],
  })
  .openapi("ProvenanceSubjects");
export type ProvenanceSubjects = z.infer<typeof ProvenanceSubjects>;

export const ProvenanceSubjectsResponse = z.object(ProvenanceSubjectsShape)
  .openapi("ProvenanceSubjectsResponse");

/** The setting of a project that never chose one: subjects are not matched. */
export const NO_SUBJECT_RULE: ProvenanceSubjects = {
  requireMatch: false,
  digestsFrom: [],
  artifactNames: [],
};

/**
 * The subject rule as verification applies it: the project's setting and, per source it
 * names, the digests (`sha256:<hex>`, lowercase) the latest evidence of that source
 * reports, or null when the project has no such evidence.
 */
export interface SubjectRule {
  setting: ProvenanceSubjects;
  reported: Partial<Record<ArtifactSource, string[] | null>>;
}

/**
 * The outcome of verifying a payload's Sigstore signature: `verified` only when the
 * signature, the certificate chain to the trusted root, the transparency-log inclusion,
 * the signer's identity and (when the project requires it) the provenance subjects all
 * check out; otherwise the reason says which did not. `signedAt` is the earliest verified
 * timestamp of the signature (Rekor's integrated time under a signed entry timestamp, or
 * an RFC 3161 timestamp), ISO 8601: the evidence cannot have been observed later than
 * that. It is also given when the signature verified but the identity or the subjects did
 * not. `subjects` says which subject rule decided.
 */
export type SignatureCheck =
  | {
    verified: true;
    issuer: string;
    subject: string;
    logIndex: string;
    signedAt: string;
    subjects: string;
  }
  | { verified: false; reason: string; signedAt?: string };

/**
 * Whether `subject` matches `pattern`: exact, each `*` matching any run of characters
 * except `/` and `@`, so a wildcard stays within one path segment or ref component. Linear
 * in both lengths, whatever the pattern (src/lib/wildcard.ts): patterns stored before the
 * limits were checked still match in bounded time.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  return wildcardMatches(pattern, subject);
}
