/**
 * The publication log's proofs, checked offline: RFC 9162 inclusion and consistency proofs,
 * the leaf hash of an entry, and C2SP signed-note checkpoints with an Ed25519 verifier key.
 *
 * @module
 */
import { encoder, equal, fromBase64, hex, sha256 } from "./bytes.ts";

/** A C2SP signed-note verifier key: name+hex(key hash)+base64(type || key). */
export const VKEY = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/;

const node = (left: Uint8Array, right: Uint8Array) => sha256(Uint8Array.of(1), left, right);

/** RFC 9162 §2.1.3.2: whether `path` proves `leaf` at `index` in the tree of `size` with `root`. */
export async function verifyInclusion(
  index: number,
  size: number,
  path: Uint8Array[],
  leaf: Uint8Array,
  root: Uint8Array,
): Promise<boolean> {
  if (index >= size) return false;
  let fn = index, sn = size - 1, r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await node(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = await node(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/** RFC 9162 §2.1.4.2: whether `proof` shows the tree of `m` (`first`) is a prefix of `n` (`second`). */
export async function verifyConsistency(
  m: number,
  n: number,
  proof: Uint8Array[],
  first: Uint8Array,
  second: Uint8Array,
): Promise<boolean> {
  if (m < 1 || m > n) return false;
  if (m === n) return proof.length === 0 && equal(first, second);
  if (proof.length === 0) return false;
  const path = (m & (m - 1)) === 0 ? [first, ...proof] : proof;
  let fn = m - 1, sn = n - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0], sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = await node(c, fr);
      sr = await node(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else sr = await node(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(fr, first) && equal(sr, second);
}

export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  note: string;
}

/**
 * Verifies a C2SP signed note with an Ed25519 verifier key
 * (`name+hex(key hash)+base64(0x01 || key)`) and reads it as a tlog checkpoint.
 */
export async function verifyCheckpoint(note: string, vkey: string): Promise<Checkpoint> {
  const parts = vkey.trim().match(VKEY);
  if (!parts) throw new Error("the log's verifier key is malformed");
  const [, name, keyHashHex, keyBase64] = parts;
  const key = fromBase64(keyBase64);
  if (key.length !== 33 || key[0] !== 1) throw new Error("the verifier key is not Ed25519");
  const publicKey = key.slice(1);
  const keyHash = (await sha256(encoder.encode(name), Uint8Array.of(0x0a, 1), publicKey)).slice(
    0,
    4,
  );
  if (hex(keyHash) !== keyHashHex) throw new Error("the verifier key's hash does not match");
  const blank = note.indexOf("\n\n");
  if (blank < 0 || !note.endsWith("\n")) throw new Error("the checkpoint is not a signed note");
  const text = note.slice(0, blank + 1);
  const verifier = await crypto.subtle.importKey("raw", publicKey, "Ed25519", false, ["verify"]);
  let signed = false;
  for (const line of note.slice(blank + 2, -1).split("\n")) {
    const match = line.match(/^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/);
    if (!match || match[1] !== name) continue;
    const blob = fromBase64(match[2]);
    if (blob.length !== 68 || !equal(blob.slice(0, 4), keyHash)) continue;
    if (await crypto.subtle.verify("Ed25519", verifier, blob.slice(4), encoder.encode(text))) {
      signed = true;
    }
  }
  if (!signed) throw new Error("the checkpoint carries no valid signature by the log's key");
  const [origin, size, root] = text.split("\n");
  if (origin !== name) throw new Error("the checkpoint's origin is not the key's name");
  if (!/^(0|[1-9][0-9]*)$/.test(size)) throw new Error("the checkpoint's tree size is malformed");
  const rootBytes = fromBase64(root);
  if (rootBytes.length !== 32) throw new Error("the checkpoint's root hash is malformed");
  return { origin, size: Number(size), root: rootBytes, note };
}

export const leafHashOf = (entry: string) => sha256(Uint8Array.of(0), encoder.encode(entry));
