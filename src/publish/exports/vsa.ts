/** The SLSA Verification Summary of one version: an in-toto Statement in a signed DSSE envelope. */
import type { SigningKey } from "../../auth/keys.ts";
import { encoder, type ExportInput, hexOf, resolve, serialize } from "./_input.ts";

export const DSSE_PAYLOAD_TYPE = "application/vnd.in-toto+json";
export const IN_TOTO_STATEMENT = "https://in-toto.io/Statement/v1";
export const VSA_PREDICATE = "https://slsa.dev/verification_summary/v1";
/**
 * `verifiedLevels` of a passing version. The service checks a trust profile, not a SLSA
 * build track, so it claims no SLSA level; the VSA spec allows custom values that do not
 * start with `SLSA_`.
 */
export const VSA_PASS_LEVEL = "TRUST_PROFILE_PASS";

/** The in-toto Statement (SLSA Verification Summary v1) of one version. */
export function vsaStatement(given: ExportInput): Record<string, unknown> {
  const input = resolve(given);
  const { profile, urls } = input;
  const passed = profile.summary.overallState === "pass";
  const inputAttestations = profile.controls.flatMap((control) => {
    const hex = hexOf(control.evidence?.digest);
    return hex ? [{ name: control.key, digest: { sha256: hex } }] : [];
  });
  const predicate: Record<string, unknown> = {
    verifier: { id: input.baseUrl },
    timeVerified: profile.publishedAt,
    resourceUri: urls.page,
    policy: { uri: urls.evaluationRules },
  };
  if (inputAttestations.length) predicate.inputAttestations = inputAttestations;
  predicate.verificationResult = passed ? "PASSED" : "FAILED";
  predicate.verifiedLevels = [passed ? VSA_PASS_LEVEL : "FAILED"];
  return {
    _type: IN_TOTO_STATEMENT,
    subject: [{ name: urls.versionTrustJson, digest: { sha256: hexOf(input.trustJsonDigest)! } }],
    predicateType: VSA_PREDICATE,
    predicate,
  };
}

/** DSSE pre-authentication encoding: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body. */
export function pae(payloadType: string, payload: Uint8Array): Uint8Array<ArrayBuffer> {
  const type = encoder.encode(payloadType);
  const head = encoder.encode(`DSSEv1 ${type.length} ${payloadType} ${payload.length} `);
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  out.set(payload, head.length);
  return out;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** A DSSE envelope of `statement`, signed (Ed25519) with the publication key. */
export async function signDsse(key: SigningKey, statement: unknown): Promise<Uint8Array> {
  const payload = encoder.encode(JSON.stringify(statement));
  const signature = new Uint8Array(
    await crypto.subtle.sign("Ed25519", key.privateKey, pae(DSSE_PAYLOAD_TYPE, payload)),
  );
  return serialize({
    payloadType: DSSE_PAYLOAD_TYPE,
    payload: base64(payload),
    signatures: [{ keyid: key.kid, sig: base64(signature) }],
  });
}
