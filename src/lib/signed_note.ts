/**
 * C2SP signed notes (https://c2sp.org/signed-note) with Ed25519 signatures,
 * and tlog checkpoints (https://c2sp.org/tlog-checkpoint) as their text.
 * A note is its text, a blank line, then one line per signature:
 * `— <key name> <base64(key hash || signature)>`, where the key hash is the
 * first 4 bytes of SHA-256(key name || 0x0A || 0x01 || public key).
 */
import { createHash } from "node:crypto";
import { encodeBase64 } from "./encoding.ts";

/** The signature type byte of Ed25519 in signed notes. */
const ED25519 = 0x01;
const encoder = new TextEncoder();

/** The 4-byte key hash that names an Ed25519 key `name` with raw public key `publicKey`. */
export function noteKeyHash(name: string, publicKey: Uint8Array): Uint8Array {
  const digest = createHash("sha256")
    .update(encoder.encode(name))
    .update(Uint8Array.of(0x0a, ED25519))
    .update(publicKey)
    .digest();
  return new Uint8Array(digest.subarray(0, 4));
}

/** The verifier key, `<name>+<hex key hash>+<base64(0x01 || public key)>`. */
export function noteVerifierKey(name: string, publicKey: Uint8Array): string {
  const hash = [...noteKeyHash(name, publicKey)].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const key = new Uint8Array(1 + publicKey.length);
  key[0] = ED25519;
  key.set(publicKey, 1);
  return `${name}+${hash}+${encodeBase64(key)}`;
}

/** The text of a tlog checkpoint: origin, tree size and base64 root hash, one per line. */
export function checkpointText(origin: string, size: number, root: Uint8Array): string {
  return `${origin}\n${size}\n${encodeBase64(root)}\n`;
}

/** What signs a note: the key's name, raw public key, and an Ed25519 private CryptoKey. */
export interface NoteSigner {
  name: string;
  publicKey: Uint8Array;
  privateKey: CryptoKey;
}

/** `text` (ending in a newline, no blank line) signed by `signer` as a signed note. */
export async function signNote(text: string, signer: NoteSigner): Promise<string> {
  if (!text.endsWith("\n") || text.includes("\n\n")) {
    throw new Error("A note's text ends with one newline and has no blank line");
  }
  const signature = new Uint8Array(
    await crypto.subtle.sign("Ed25519", signer.privateKey, encoder.encode(text)),
  );
  const blob = new Uint8Array(4 + signature.length);
  blob.set(noteKeyHash(signer.name, signer.publicKey));
  blob.set(signature, 4);
  return `${text}\n\u2014 ${signer.name} ${encodeBase64(blob)}\n`;
}
