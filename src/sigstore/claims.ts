/**
 * Whether a payload claims a Sigstore signature, decided without the Sigstore libraries: the
 * ingest and recompute paths ask this of every payload and load the verifier (src/sigstore/load.ts)
 * only for one that does.
 */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A Sigstore bundle: `verificationMaterial`, or a Sigstore bundle media type. */
export function isBundle(payload: JsonObject): boolean {
  return Object.hasOwn(payload, "verificationMaterial") ||
    (typeof payload.mediaType === "string" &&
      payload.mediaType.startsWith("application/vnd.dev.sigstore.bundle"));
}

/** A DSSE envelope: `payloadType` and `signatures`. */
export function isEnvelope(payload: JsonObject): boolean {
  return Object.hasOwn(payload, "payloadType") && Object.hasOwn(payload, "signatures");
}

/**
 * Whether `payload` claims a signature (a Sigstore bundle or a DSSE envelope), the only
 * payloads a verifier's `check` answers for; cheap, so callers read identities only when needed.
 */
export function claimsSignature(payload: unknown): boolean {
  return isObject(payload) && (isBundle(payload) || isEnvelope(payload));
}
