/**
 * An independent verifier for the publication log, written from the
 * specifications rather than from the service's code: RFC 6962 tree hashing
 * by its recursive definition, RFC 9162 §2.1.3.2 inclusion and §2.1.4.2
 * consistency verification, and C2SP signed notes / tlog checkpoints checked
 * with WebCrypto Ed25519. Hashes use WebCrypto, not node:crypto.
 */

const encoder = new TextEncoder();

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", joined));
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

export function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/** RFC 6962 §2.1: the leaf hash of an entry. */
export function rfcLeafHash(entry: Uint8Array | string): Promise<Uint8Array> {
  return sha256(Uint8Array.of(0), typeof entry === "string" ? encoder.encode(entry) : entry);
}

/** RFC 6962 §2.1: an interior node's hash. */
export function rfcNode(left: Uint8Array, right: Uint8Array): Promise<Uint8Array> {
  return sha256(Uint8Array.of(1), left, right);
}

/** RFC 6962 §2.1 MTH over leaf hashes, by the recursive definition (k = largest power of 2 < n). */
export async function rfcRoot(leaves: Uint8Array[]): Promise<Uint8Array> {
  if (leaves.length === 0) return await sha256();
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return await sha256(
    Uint8Array.of(1),
    await rfcRoot(leaves.slice(0, k)),
    await rfcRoot(leaves.slice(k)),
  );
}

/** RFC 9162 §2.1.3.2, step by step. */
export async function verifyInclusion(
  leafIndex: number,
  treeSize: number,
  path: Uint8Array[],
  leafHash: Uint8Array,
  rootHash: Uint8Array,
): Promise<boolean> {
  if (leafIndex >= treeSize) return false;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = leafHash;
  for (const p of path) {
    if (sn === 0) return false;
    if ((fn & 1) === 1 || fn === sn) {
      r = await sha256(Uint8Array.of(1), p, r);
      if ((fn & 1) === 0) {
        while ((fn & 1) === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      r = await sha256(Uint8Array.of(1), r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && equalBytes(r, rootHash);
}

/** RFC 9162 §2.1.4.2, step by step (equal sizes: an empty proof and equal hashes). */
export async function verifyConsistency(
  firstSize: number,
  secondSize: number,
  proof: Uint8Array[],
  firstHash: Uint8Array,
  secondHash: Uint8Array,
): Promise<boolean> {
  if (firstSize > secondSize || firstSize < 1) return false;
  if (firstSize === secondSize) return proof.length === 0 && equalBytes(firstHash, secondHash);
  if (proof.length === 0) return false;
  const path = (firstSize & (firstSize - 1)) === 0 ? [firstHash, ...proof] : [...proof];
  let fn = firstSize - 1;
  let sn = secondSize - 1;
  while ((fn & 1) === 1) {
    fn >>= 1;
    sn >>= 1;
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if ((fn & 1) === 1 || fn === sn) {
      fr = await sha256(Uint8Array.of(1), c, fr);
      sr = await sha256(Uint8Array.of(1), c, sr);
      if ((fn & 1) === 0) {
        while ((fn & 1) === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      sr = await sha256(Uint8Array.of(1), sr, c);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return equalBytes(fr, firstHash) && equalBytes(sr, secondHash) && sn === 0;
}

/** A checkpoint whose signature verified: its origin, size and root. */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
}

/**
 * Verifies a C2SP signed note against a verifier key (`name+hash+base64(0x01||key)`) and
 * parses its text as a tlog checkpoint; throws on any mismatch.
 */
export async function verifyCheckpoint(note: string, vkey: string): Promise<Checkpoint> {
  // name+hash+key, where the base64 key may itself contain "+".
  const match = vkey.match(/^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/);
  if (!match) throw new Error("bad vkey");
  const [, name, hashHex, keyB64] = match;
  const keyBytes = fromBase64(keyB64);
  if (keyBytes[0] !== 1 || keyBytes.length !== 33) throw new Error("not an Ed25519 vkey");
  const publicKey = keyBytes.slice(1);
  const keyHash = (await sha256(encoder.encode(name), Uint8Array.of(0x0a, 1), publicKey))
    .slice(0, 4);
  if ([...keyHash].map((b) => b.toString(16).padStart(2, "0")).join("") !== hashHex) {
    throw new Error("vkey hash does not match its key");
  }
  const split = note.indexOf("\n\n");
  if (split < 0 || !note.endsWith("\n")) throw new Error("not a signed note");
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split("\n");
  const cryptoKey = await crypto.subtle.importKey("raw", publicKey, "Ed25519", false, ["verify"]);
  let verified = false;
  for (const line of lines) {
    const match = line.match(/^\u2014 (\S+) (\S+)$/);
    if (!match) throw new Error(`bad signature line ${JSON.stringify(line)}`);
    const blob = fromBase64(match[2]);
    if (match[1] !== name || !equalBytes(blob.slice(0, 4), keyHash)) continue;
    verified = await crypto.subtle.verify(
      "Ed25519",
      cryptoKey,
      blob.slice(4),
      encoder.encode(text),
    );
  }
  if (!verified) throw new Error("no valid signature by the verifier key");
  // Lines after the third are extension lines, which this log does not write.
  const [origin, size, root] = text.slice(0, -1).split("\n");
  if (origin !== name) throw new Error("origin is not the key name");
  if (!/^\d+$/.test(size)) throw new Error("bad tree size");
  return { origin, size: Number(size), root: fromBase64(root) };
}
