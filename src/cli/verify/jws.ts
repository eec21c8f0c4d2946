/**
 * Keys and signatures: the JWKS's Ed25519 keys, each under its RFC 7638 thumbprint (only the
 * pinned ones when keys are pinned), and compact JWS verified over the exact bytes.
 *
 * @module
 */
import type { Pins } from "./args.ts";
import { decoder, encoder, fromBase64, sha256, toBase64Url } from "./bytes.ts";
import { getJson, type Io } from "./net.ts";
import type { Report } from "./report.ts";

/** RFC 7638 thumbprint (SHA-256, base64url) of an Ed25519 public JWK: the id it should have. */
async function jwkThumbprint(jwk: { crv: string; kty: string; x: string }): Promise<string> {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  return toBase64Url(await sha256(encoder.encode(canonical)));
}

export interface JwsHeader {
  alg?: string;
  kid?: string;
  ver?: number;
  prev?: string | null;
}

/** The keys a JWS may be verified with, and the served ones that are not pinned. */
export interface Keyring {
  keys: Map<string, CryptoKey>;
  unpinned: Set<string>;
}

/** Verifies a compact JWS with an attached payload; returns its header and payload bytes. */
export async function verifyJws(
  jws: string,
  ring: Keyring,
): Promise<{ header: JwsHeader; payload: Uint8Array }> {
  const segments = jws.trim().split(".");
  if (segments.length !== 3) throw new Error("the signature is not a compact JWS");
  let header: JwsHeader;
  try {
    header = JSON.parse(decoder.decode(fromBase64(segments[0])));
  } catch {
    throw new Error("the JWS header is not JSON");
  }
  if (header.alg !== "EdDSA") throw new Error(`unexpected JWS algorithm "${header.alg}"`);
  const kid = String(header.kid);
  const key = ring.keys.get(kid);
  if (!key) {
    throw new Error(
      ring.unpinned.has(kid)
        ? `signed by key "${kid}", which is not pinned`
        : `signed by key "${kid}", which the JWKS does not hold`,
    );
  }
  const ok = await crypto.subtle.verify(
    "Ed25519",
    key,
    fromBase64(segments[2]),
    encoder.encode(`${segments[0]}.${segments[1]}`),
  );
  if (!ok) throw new Error(`the JWS signature does not verify with key "${kid}"`);
  return { header, payload: fromBase64(segments[1]) };
}

/**
 * The JWKS's Ed25519 keys that may verify a JWS: each must be served under its own RFC 7638
 * thumbprint, and with pinned key ids only those are used (a pinned one not served fails).
 */
export async function readKeys(
  io: Io,
  server: string,
  pins: Pins,
  report: Report,
): Promise<Keyring> {
  const url = `${server}/.well-known/jwks.json`;
  return await keyringOf(await getJson<{ keys?: unknown }>(io, url), url, pins, report);
}

/** The keys of a JWKS document read from `url` (or a file), checked as readKeys says. */
export async function keyringOf(
  jwks: { keys?: unknown },
  url: string,
  pins: Pins,
  report: Report,
): Promise<Keyring> {
  const before = report.failures;
  const ring: Keyring = { keys: new Map(), unpinned: new Set() };
  const served = new Set<string>();
  for (const jwk of Array.isArray(jwks.keys) ? jwks.keys : []) {
    const { kty, crv, x, kid } = (jwk ?? {}) as Record<string, unknown>;
    if (kty !== "OKP" || crv !== "Ed25519" || typeof x !== "string") continue;
    const thumbprint = await jwkThumbprint({ kty, crv, x });
    if (kid !== thumbprint) {
      report.fail(
        `JWKS: key "${kid}" is not the key its id names (its RFC 7638 thumbprint differs)`,
      );
      continue;
    }
    served.add(thumbprint);
    if (pins.jwks && !pins.jwks.includes(thumbprint)) {
      ring.unpinned.add(thumbprint);
      continue;
    }
    try {
      ring.keys.set(
        thumbprint,
        await crypto.subtle.importKey("jwk", { kty, crv, x }, "Ed25519", false, ["verify"]),
      );
    } catch {
      report.fail(`JWKS: key "${kid}" is not a valid Ed25519 key`);
    }
  }
  for (const kid of pins.jwks ?? []) {
    if (!served.has(kid)) report.fail(`JWKS: the pinned key "${kid}" is not served`);
  }
  if (report.failures > before) return ring;
  report.pass(
    pins.jwks
      ? `JWKS: ${ring.keys.size} pinned Ed25519 key(s) of ${served.size} from ${url}`
      : `JWKS: ${ring.keys.size} Ed25519 key(s) from ${url}, trusted on first use`,
  );
  return ring;
}
