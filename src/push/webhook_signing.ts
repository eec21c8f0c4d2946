/**
 * Standard Webhooks signatures: the signed content is `${webhook-id}.${webhook-timestamp}.${body}`;
 * `v1,<base64 HMAC-SHA256>` with the endpoint's `whsec_…` secret, or `v1a,<base64 Ed25519>`
 * with the service's webhook key, published as `whpk_…` and in the JWKS.
 */
import type { SigningKey } from "../auth/keys.ts";
import type { WebhookRecord } from "../domain/webhooks.ts";
import { decodeBase64Url, encodeBase64 } from "../lib/encoding.ts";

const SECRET_BYTES = 32;

/** A new HMAC secret: `whsec_` and the base64 of 32 random bytes. */
export function newHmacSecret(): string {
  return `whsec_${encodeBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)))}`;
}

/** The Standard Webhooks form of an Ed25519 public key: `whpk_` and its raw bytes in base64. */
export function standardPublicKey(key: SigningKey): string {
  return `whpk_${encodeBase64(decodeBase64Url(key.publicJwk.x))}`;
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const bytes = Uint8Array.from(atob(secret.slice("whsec_".length)), (c) => c.charCodeAt(0));
  return new Uint8Array(bytes);
}

async function hmac(secret: string, content: Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    secretBytes(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return `v1,${encodeBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, content)))}`;
}

/**
 * The `webhook-signature` header for one attempt: space-separated signatures (two HMAC ones
 * while a rotated secret's previous value is still honoured, until `now` passes its end).
 */
export async function signatureHeader(
  webhook: Pick<WebhookRecord, "signing" | "secret" | "previousSecret">,
  message: { id: string; timestamp: number; body: string; key: SigningKey; now: Date },
): Promise<string> {
  const content = new TextEncoder().encode(`${message.id}.${message.timestamp}.${message.body}`);
  if (webhook.signing === "ed25519") {
    const signature = await crypto.subtle.sign("Ed25519", message.key.privateKey, content);
    return `v1a,${encodeBase64(new Uint8Array(signature))}`;
  }
  const secrets = [webhook.secret!];
  const previous = webhook.previousSecret;
  if (previous && Date.parse(previous.until) > message.now.getTime()) secrets.push(previous.value);
  return (await Promise.all(secrets.map((secret) => hmac(secret, content)))).join(" ");
}
