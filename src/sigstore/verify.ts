/**
 * Sigstore verification of signed evidence with the maintained npm libraries
 * (`@sigstore/bundle`, `@sigstore/verify`) against a trusted root: the Sigstore
 * public-good root shipped in trusted_root.json, or the one SIGSTORE_TRUSTED_ROOT names.
 * Offline: a bundle carries its certificate chain and its Rekor entry with the signed
 * entry timestamp and/or inclusion proof, so nothing is fetched.
 */
import { bundleFromJSON } from "@sigstore/bundle";
import { TrustedRoot } from "@sigstore/protobuf-specs";
import { toSignedEntity, toTrustMaterial, Verifier } from "@sigstore/verify";
import {
  type SignatureCheck,
  type SigstoreIdentity,
  subjectMatches,
  type SubjectRule,
} from "../domain/sigstore.ts";
import { isBundle, isEnvelope, isObject, type JsonObject } from "./claims.ts";
import { useNodeDefaultDigest } from "./node_crypto.ts";
import { checkSubjects } from "./subjects.ts";
import PUBLIC_GOOD_ROOT from "./trusted_root.json" with { type: "json" };

useNodeDefaultDigest();

/** Checks the Sigstore signature a payload carries, if it carries one. */
export interface SigstoreVerifier {
  /**
   * `null` when `payload` is neither a Sigstore bundle nor a DSSE envelope (nothing
   * claims a signature); otherwise whether it verifies for one of `identities` and, for
   * SLSA provenance, whether its subjects satisfy `subjects` (absent: not required).
   */
  check(
    payload: unknown,
    identities: readonly SigstoreIdentity[],
    subjects?: SubjectRule,
  ): SignatureCheck | null;
}

/**
 * A verifier for `root`, a Sigstore `trusted_root.json` document. Throws an Error whose
 * message says what is wrong when the document is not a usable trusted root.
 */
export function createSigstoreVerifier(root: unknown): SigstoreVerifier {
  if (!isObject(root) || typeof root.mediaType !== "string") {
    throw new Error("Not a Sigstore trusted root (no mediaType)");
  }
  if (!root.mediaType.startsWith("application/vnd.dev.sigstore.trustedroot")) {
    throw new Error(`mediaType ${JSON.stringify(root.mediaType)} is not a Sigstore trusted root`);
  }
  let verifier: Verifier;
  try {
    verifier = new Verifier(toTrustMaterial(TrustedRoot.fromJSON(root)));
  } catch (error) {
    throw new Error(`Unreadable Sigstore trusted root: ${(error as Error).message}`);
  }
  if (!Array.isArray(root.tlogs) || root.tlogs.length === 0) {
    throw new Error("The trusted root lists no transparency log");
  }
  if (!Array.isArray(root.certificateAuthorities) || root.certificateAuthorities.length === 0) {
    throw new Error("The trusted root lists no certificate authority");
  }
  return {
    check: (payload, identities, subjects) => check(verifier, payload, identities, subjects),
  };
}

const VERIFIERS = new WeakMap<object, SigstoreVerifier>();

/**
 * The verifier for `root` (null: the shipped public-good root), built once per root
 * document and shared by ingest and recompute.
 */
export function sigstoreVerifierFor(root: JsonObject | null): SigstoreVerifier {
  const document = root ?? PUBLIC_GOOD_ROOT;
  let verifier = VERIFIERS.get(document);
  if (!verifier) {
    verifier = createSigstoreVerifier(document);
    VERIFIERS.set(document, verifier);
  }
  return verifier;
}

export { claimsSignature } from "./claims.ts";

function check(
  verifier: Verifier,
  payload: unknown,
  identities: readonly SigstoreIdentity[],
  subjects: SubjectRule | undefined,
): SignatureCheck | null {
  if (!isObject(payload)) return null;
  if (!isBundle(payload)) {
    if (isEnvelope(payload)) {
      return unverified(
        "DSSE envelope carries no Sigstore verification material (certificate and " +
          "transparency-log entry), so its signature cannot be verified; upload the Sigstore bundle",
      );
    }
    return null;
  }
  let bundle: ReturnType<typeof bundleFromJSON>;
  try {
    bundle = bundleFromJSON(payload);
  } catch (error) {
    return unverified(`Sigstore bundle is malformed: ${(error as Error).message}`);
  }
  if (bundle.content.$case !== "dsseEnvelope") {
    return unverified(
      "Sigstore bundle signs an artifact digest, not an attestation; upload the bundle " +
        "whose DSSE envelope holds the in-toto statement",
    );
  }
  let signer;
  let entity: ReturnType<typeof toSignedEntity>;
  try {
    entity = toSignedEntity(bundle);
    signer = verifier.verify(entity);
  } catch (error) {
    return unverified(failureReason(error));
  }
  const signedAt = earliestTimestamp(entity);
  if (signedAt === null) {
    return unverified("Sigstore signature verifies but carries no verified timestamp");
  }
  const issuer = signer.identity?.extensions?.issuer;
  const subject = signer.identity?.subjectAlternativeName;
  if (!issuer || !subject) {
    return unverified(
      "Sigstore signature verifies but its certificate names no issuer and SAN",
      signedAt,
    );
  }
  const who = `${JSON.stringify(subject)} (issuer ${JSON.stringify(issuer)})`;
  if (identities.length === 0) {
    return unverified(
      `Sigstore signature by ${who} verifies, but the project expects no signer identity; ` +
        "list the expected issuer and subject in its Sigstore identities",
      signedAt,
    );
  }
  if (!identities.some((id) => id.issuer === issuer && subjectMatches(id.subject, subject))) {
    return unverified(
      `Sigstore signature verifies, but its signer ${who} is not an expected identity`,
      signedAt,
    );
  }
  const subjectCheck = checkSubjects(bundle.content.dsseEnvelope, subjects);
  if (!subjectCheck.ok) return unverified(subjectCheck.reason, signedAt);
  return {
    verified: true,
    issuer,
    subject,
    logIndex: logIndexOf(bundle),
    signedAt,
    subjects: subjectCheck.clause,
  };
}

/**
 * The earliest of the entity's timestamps, all verified once `Verifier.verify` returned:
 * a Rekor entry's integrated time counts only under its signed entry timestamp (an
 * inclusion proof alone does not sign a time), an RFC 3161 timestamp by its signing time.
 * Null when there is none (the verifier requires one, so this does not happen).
 */
function earliestTimestamp(entity: ReturnType<typeof toSignedEntity>): string | null {
  const times: number[] = [];
  for (const timestamp of entity.timestamps) {
    if (timestamp.$case === "transparency-log") {
      if (timestamp.tlogEntry.inclusionPromise) {
        times.push(Number(timestamp.tlogEntry.integratedTime) * 1000);
      }
    } else {
      times.push(timestamp.timestamp.signingTime.getTime());
    }
  }
  const finite = times.filter(Number.isFinite);
  return finite.length === 0 ? null : new Date(Math.min(...finite)).toISOString();
}

/**
 * The Rekor log index to cite: the entry's own index when a signed entry timestamp (which
 * signs it) verified, else the leaf index the verified inclusion proof proves.
 */
function logIndexOf(bundle: ReturnType<typeof bundleFromJSON>): string {
  const entry = bundle.verificationMaterial.tlogEntries[0];
  if (!entry) return "unknown";
  if (entry.inclusionPromise) return String(entry.logIndex);
  return String(entry.inclusionProof?.logIndex ?? entry.logIndex);
}

const STAGES: Record<string, string> = {
  SIGNATURE_ERROR: "the signature does not verify",
  CERTIFICATE_ERROR: "the certificate does not chain to the trusted root",
  PUBLIC_KEY_ERROR: "the signing key is not trusted",
  TIMESTAMP_ERROR: "no trusted timestamp verifies",
  TLOG_ERROR: "the transparency-log entry does not verify",
  TLOG_BODY_ERROR: "the transparency-log entry does not match the signed envelope",
  TLOG_INCLUSION_PROOF_ERROR: "the transparency-log inclusion proof does not verify",
  TLOG_INCLUSION_PROMISE_ERROR: "the transparency-log signed entry timestamp does not verify",
  TLOG_MISSING_INCLUSION_ERROR: "the bundle proves no transparency-log inclusion",
};

function failureReason(error: unknown): string {
  const code = isObject(error) && typeof error.code === "string" ? error.code : "";
  const detail = error instanceof Error ? error.message : String(error);
  const stage = STAGES[code] ?? "verification failed";
  return `Sigstore bundle does not verify: ${stage} (${detail})`;
}

function unverified(reason: string, signedAt?: string): SignatureCheck {
  return signedAt === undefined
    ? { verified: false, reason }
    : { verified: false, reason, signedAt };
}
