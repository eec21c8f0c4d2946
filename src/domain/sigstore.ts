/**
 * Sigstore signer identities a project expects, and what verifying a signed payload
 * concluded. The evaluator reads `SignatureCheck`; the verification itself (crypto
 * against a trusted root) happens where ingest and recompute run, never in a probe.
 */
import { z } from "@hono/zod-openapi";

/** Most identities one project may list. */
export const MAX_SIGSTORE_IDENTITIES = 20;

export const SigstoreIdentity = z.strictObject({
  issuer: z.url({ protocol: /^https?$/ }).max(500).openapi({
    description: "OIDC issuer recorded in the Fulcio certificate, compared exactly",
    example: "https://token.actions.githubusercontent.com",
  }),
  subject: z.string().trim().min(1).max(500).openapi({
    description: "Certificate subject alternative name (SAN): compared exactly, except that " +
      "each `*` matches any run of characters (including none)",
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

/**
 * The outcome of verifying a payload's Sigstore signature: `verified` only when the
 * signature, the certificate chain to the trusted root, the transparency-log inclusion and
 * the signer's identity all check out; otherwise the reason says which did not.
 */
export type SignatureCheck =
  | { verified: true; issuer: string; subject: string; logIndex: string }
  | { verified: false; reason: string };

/** Whether `subject` matches `pattern`: exact, each `*` matching any run of characters. */
export function subjectMatches(pattern: string, subject: string): boolean {
  if (!pattern.includes("*")) return pattern === subject;
  const source = pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`, "s").test(subject);
}
