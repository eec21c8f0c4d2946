/**
 * Probe for `evidence.build_provenance`: an in-toto Statement carrying SLSA provenance,
 * signed with Sigstore. The probe is pure: the signature is verified before it runs (at
 * ingest and recompute, against the trusted root and the project's expected identities)
 * and reaches it as a `SignatureCheck`.
 */
import type { SignatureCheck } from "../../domain/sigstore.ts";
import { count, isObject, type JsonObject, notAnObject, own, show } from "./_read.ts";
import { fail, inFormat, pass, type ProbeResult, unknown } from "./types.ts";

const STATEMENT_TYPES = ["https://in-toto.io/Statement/v0.1", "https://in-toto.io/Statement/v1"];
const SLSA_V02 = "https://slsa.dev/provenance/v0.2";
const SLSA_V1 = "https://slsa.dev/provenance/v1";
const IN_TOTO_PAYLOAD = "application/vnd.in-toto+json";
/** md5 (32) up to sha512 (128) hex digits: anything shorter identifies nothing. */
const HEX_DIGEST = /^[0-9a-fA-F]{32,128}$/;

/**
 * Answers whether `payload` is verified build provenance: an in-toto Statement (`_type`
 * `https://in-toto.io/Statement/v0.1` or `/v1`) whose `predicateType` is SLSA provenance
 * (`https://slsa.dev/provenance/v0.2` or `/v1`) with a builder id in the predicate and at
 * least one `subject[]` whose `digest` holds a hex digest, inside a Sigstore bundle whose
 * `signature` check verified (signature, certificate chain, transparency-log inclusion and
 * an expected signer identity, and the project's provenance subject rule). The pass reason
 * names the signer's SAN and issuer, the Rekor log index, the verified log time and which
 * subject rule decided. A statement that is not signed, a DSSE envelope without Sigstore
 * material, and a signature that did not verify (or was not checked: `signature`
 * missing) all fail with the reason, never reading as signed. Undecodable envelopes and
 * unrecognized payloads are `unknown`.
 */
export function hasSlsaProvenance(
  payload: unknown,
  signature?: SignatureCheck | null,
): ProbeResult {
  if (!isObject(payload)) return unknown(notAnObject(payload, "an in-toto statement"));
  const bundled = own(payload, "dsseEnvelope");
  if (isObject(bundled)) {
    const read = readEnvelope(bundled, "a Sigstore bundle's DSSE envelope");
    return inFormat("sigstore-bundle", signed(read, signature));
  }
  if (own(payload, "payloadType") !== undefined) {
    const read = readEnvelope(payload, "a DSSE envelope");
    return inFormat("dsse-envelope", signed(read, signature));
  }
  if (own(payload, "_type") !== undefined) {
    const read = readStatement(payload, "in-toto statement");
    if (read.outcome !== "pass") return inFormat("in-toto-statement", read);
    return inFormat(
      "in-toto-statement",
      fail(
        `${read.reason}, but not signed: provenance passes only in a Sigstore bundle that verifies`,
      ),
    );
  }
  return unknown("Payload is neither an in-toto statement nor a DSSE envelope");
}

/**
 * The statement's reading combined with its signature check: an unreadable statement stays
 * `unknown`, a signature that did not verify fails, and only a verified signature lets a
 * passing statement pass, with the signer and log index in the reason.
 */
function signed(read: ProbeResult, signature: SignatureCheck | null | undefined): ProbeResult {
  if (read.outcome === "unknown") return read;
  if (!signature) {
    return fail(`${read.reason}; the signature was not verified`);
  }
  if (!signature.verified) return fail(signature.reason);
  if (read.outcome === "fail") return read;
  return pass(
    `${read.reason}; signed by ${show(signature.subject, 200)} (issuer ${
      show(signature.issuer, 200)
    }), Rekor log index ${signature.logIndex}, logged ${signature.signedAt}` +
      (signature.subjects ? `; ${signature.subjects}` : ""),
  );
}

/** An envelope's statement; `where` names the wrapping for the reason. */
function readEnvelope(envelope: JsonObject, where: string): ProbeResult {
  const type = own(envelope, "payloadType");
  if (type !== IN_TOTO_PAYLOAD) {
    return fail(`DSSE payloadType is ${show(type)}, expected "${IN_TOTO_PAYLOAD}"`);
  }
  const signatures = own(envelope, "signatures");
  const sigs = Array.isArray(signatures)
    ? signatures.filter((s) => isObject(s) && typeof own(s, "sig") === "string" && own(s, "sig"))
      .length
    : 0;
  if (sigs === 0) return fail("DSSE envelope has no signature");
  const statement = decodeJson(own(envelope, "payload"));
  if (statement === undefined) return unknown("DSSE payload is not base64-encoded JSON");
  if (!isObject(statement)) return unknown(notAnObject(statement, "an in-toto statement"));
  return readStatement(statement, `in-toto statement in ${where} with ${count(sigs, "signature")}`);
}

function readStatement(statement: JsonObject, label: string): ProbeResult {
  const type = own(statement, "_type");
  if (typeof type !== "string" || !STATEMENT_TYPES.includes(type)) {
    return fail(`_type is ${show(type)}, not an in-toto Statement v0.1 or v1`);
  }
  const predicateType = own(statement, "predicateType");
  if (predicateType !== SLSA_V02 && predicateType !== SLSA_V1) {
    return fail(`predicateType is ${show(predicateType)}, not SLSA provenance v0.2 or v1`);
  }
  const builder = builderId(own(statement, "predicate"), predicateType === SLSA_V1);
  if (builder === null) return fail("SLSA predicate names no builder id");
  const subjects = own(statement, "subject");
  const digested = Array.isArray(subjects) ? subjects.filter(hasHexDigest).length : 0;
  if (digested === 0) return fail("Statement has no subject with a hex digest");
  const version = predicateType === SLSA_V1 ? "v1" : "v0.2";
  return pass(
    `${label} with SLSA ${version} provenance from ${show(builder, 200)} for ` +
      count(digested, "subject"),
  );
}

/** SLSA v1 keeps the builder under `runDetails`, v0.2 at the top of the predicate. */
function builderId(predicate: unknown, v1: boolean): string | null {
  if (!isObject(predicate)) return null;
  const holder = v1 ? own(predicate, "runDetails") : predicate;
  const builder = isObject(holder) ? own(holder, "builder") : undefined;
  const id = isObject(builder) ? own(builder, "id") : undefined;
  return typeof id === "string" && id !== "" ? id : null;
}

function hasHexDigest(subject: unknown): boolean {
  const digest = isObject(subject) ? own(subject, "digest") : undefined;
  return isObject(digest) &&
    Object.values(digest).some((value) => typeof value === "string" && HEX_DIGEST.test(value));
}

/** Base64 (standard or URL-safe) UTF-8 JSON, or undefined when any step fails. */
function decodeJson(encoded: unknown): unknown {
  if (typeof encoded !== "string") return undefined;
  try {
    const binary = atob(encoded.replace(/-/g, "+").replace(/_/g, "/").replace(/\s/g, ""));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}
