/**
 * Standard exports of a published version, rendered at publish time beside trust.json and
 * stored the same way (immutable blobs served as stored bytes):
 *
 * - OSCAL Assessment Results (NIST OSCAL 1.0.6 JSON): one result per version, each control
 *   an observation (its reason and evidence digest) and a finding (its state);
 * - an in-toto Statement with a SLSA Verification Summary (v1) predicate whose subject is
 *   this version's trust.json, in a DSSE envelope signed with the publication key;
 * - an OpenSSF Security Insights (v2) document in its JSON form, with only the fields the
 *   service can vouch for.
 *
 * Each format is rendered in exports/. The OSCAL and Security Insights documents are signed like trust.json (a compact JWS over
 * their exact bytes). Everything here is a pure function of its input and the key, so a
 * version renders the same bytes forever (UUIDs are name-based, v5).
 */
import type { SigningKey } from "../auth/keys.ts";
import type { VerifyLinks } from "./render/_links.ts";
import {
  encoder,
  EXPORT_FILES,
  type ExportInput,
  type ExportName,
  serialize,
} from "./exports/_input.ts";
import { renderOscalAssessmentResults } from "./exports/oscal.ts";
import { renderSecurityInsights } from "./exports/security_insights.ts";
import { signDsse, vsaStatement } from "./exports/vsa.ts";
import { signDocument } from "./sign.ts";
import type { publicUrls } from "./urls.ts";

export { EXPORT_FILES, type ExportInput, type ExportName } from "./exports/_input.ts";

/** The trust page's links to the exports (latest), the verifier kit and the log. */
export function verifyLinksOf(urls: ReturnType<typeof publicUrls>): VerifyLinks {
  return {
    verifyKit: urls.verifyKit,
    log: urls.log,
    logCheckpoint: urls.logCheckpoint,
    oscal: urls.document(EXPORT_FILES.oscal),
    oscalSignature: urls.document(EXPORT_FILES.oscalJws),
    attestation: urls.document(EXPORT_FILES.attestation),
    securityInsights: urls.document(EXPORT_FILES.securityInsights),
    securityInsightsSignature: urls.document(EXPORT_FILES.securityInsightsJws),
  };
}

/** Every export of one version, as the bytes to store. */
export async function renderExports(
  key: SigningKey,
  input: ExportInput,
): Promise<Record<ExportName, Uint8Array>> {
  const version = input.profile.version;
  const oscal = serialize(renderOscalAssessmentResults(input));
  const securityInsights = serialize(renderSecurityInsights(input));
  return {
    oscal,
    oscalJws: encoder.encode(await signDocument(key, oscal, { version, cty: "application/json" })),
    attestation: await signDsse(key, vsaStatement(input)),
    securityInsights,
    securityInsightsJws: encoder.encode(
      await signDocument(key, securityInsights, { version, cty: "application/json" }),
    ),
  };
}
