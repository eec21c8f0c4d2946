/**
 * RFC 6962 / RFC 9162 Merkle tree hashing over a log stored as its complete
 * subtrees: node (level, index) is the hash of leaves
 * [index·2^level, (index+1)·2^level). Every hash a proof or a root needs is
 * a range of leaves; a range is computed from the stored complete subtrees
 * inside it, so any proof or root of a tree of size n reads O(log n) nodes.
 * Planning (which nodes) and hashing (from the nodes read) are separate, so
 * the reads can be batched.
 */
import { createHash } from "node:crypto";

/** A node of the stored tree: the complete subtree of 2^level leaves starting at index·2^level. */
export interface NodeId {
  level: number;
  index: number;
}

/** A range of leaves [start, end). */
export type Range = readonly [start: number, end: number];

function sha256(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

/** The hash of an empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT = sha256();

/** RFC 6962 §2.1 leaf hash: SHA-256(0x00 || entry). */
export function leafHash(entry: Uint8Array): Uint8Array<ArrayBuffer> {
  return sha256(Uint8Array.of(0), entry);
}

/** RFC 6962 §2.1 interior node hash: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array<ArrayBuffer> {
  return sha256(Uint8Array.of(1), left, right);
}

/** The largest power of two strictly below `n` (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && Number.isInteger(Math.log2(n)) && 2 ** Math.log2(n) === n;
}

/** The stored node that is exactly `range`, or null when the range is not one complete subtree. */
function nodeOf([start, end]: Range): NodeId | null {
  const size = end - start;
  if (!isPowerOfTwo(size) || start % size !== 0) return null;
  return { level: Math.log2(size), index: start / size };
}

/** The stored nodes whose hashes make up `range`'s hash (RFC 6962 MTH of those leaves). */
export function nodesOfRange(range: Range, out: NodeId[] = []): NodeId[] {
  if (range[1] <= range[0]) return out;
  const node = nodeOf(range);
  if (node) {
    out.push(node);
    return out;
  }
  const [start, end] = range;
  const k = splitPoint(end - start);
  nodesOfRange([start, start + k], out);
  nodesOfRange([start + k, end], out);
  return out;
}

/** Reads a stored node's hash from what was fetched; throws when it is missing. */
export type NodeSource = (node: NodeId) => Uint8Array;

/** The RFC 6962 MTH of the leaves in `range`, from the stored nodes. */
export function hashRange(range: Range, nodes: NodeSource): Uint8Array {
  const [start, end] = range;
  if (end === start) return EMPTY_ROOT;
  const node = nodeOf(range);
  if (node) return nodes(node);
  const k = splitPoint(end - start);
  return nodeHash(hashRange([start, start + k], nodes), hashRange([start + k, end], nodes));
}

/**
 * The ranges whose hashes form the inclusion proof of leaf `index` in a tree of `size`
 * leaves (RFC 9162 §2.1.3.1 PATH), in proof order: closest sibling first.
 */
export function inclusionRanges(index: number, size: number): Range[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`Leaf ${index} is outside tree ${size}`);
  const path: Range[] = [];
  const walk = (m: number, start: number, end: number) => {
    const n = end - start;
    if (n <= 1) return;
    const k = splitPoint(n);
    if (m < k) {
      walk(m, start, start + k);
      path.push([start + k, end]);
    } else {
      walk(m - k, start + k, end);
      path.push([start, start + k]);
    }
  };
  walk(index, 0, size);
  return path;
}

/**
 * The ranges whose hashes form the consistency proof between trees of `from` and `to`
 * leaves (RFC 9162 §2.1.4.1 PROOF/SUBPROOF), in proof order; empty when `from` is 0 or
 * equals `to`.
 */
export function consistencyRanges(from: number, to: number): Range[] {
  if (!(from >= 0 && from <= to)) throw new RangeError(`No consistency from ${from} to ${to}`);
  const proof: Range[] = [];
  if (from === 0 || from === to) return proof;
  const sub = (m: number, start: number, end: number, complete: boolean) => {
    const n = end - start;
    if (m === n) {
      if (!complete) proof.push([start, end]);
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      sub(m, start, start + k, complete);
      proof.push([start + k, end]);
    } else {
      sub(m - k, start + k, end, false);
      proof.push([start, start + k]);
    }
  };
  sub(from, 0, to, true);
  return proof;
}

/**
 * The complete subtrees of a tree of `size` leaves, largest (leftmost) first: one per set
 * bit of `size`. Their hashes (the "frontier") are all an append needs.
 */
export function frontierNodes(size: number): NodeId[] {
  const nodes: NodeId[] = [];
  let start = 0;
  for (let level = Math.floor(Math.log2(Math.max(size, 1))); level >= 0; level--) {
    const width = 2 ** level;
    if (start + width <= size) {
      nodes.push({ level, index: start / width });
      start += width;
    }
  }
  return nodes;
}

/** The root of a tree whose frontier (largest subtree first) is `frontier`. */
export function rootOfFrontier(frontier: readonly Uint8Array[]): Uint8Array {
  if (frontier.length === 0) return EMPTY_ROOT;
  let root = frontier[frontier.length - 1];
  for (let i = frontier.length - 2; i >= 0; i--) root = nodeHash(frontier[i], root);
  return root;
}

/**
 * Appends a leaf to a tree of `size` leaves with `frontier`: the nodes that become complete
 * (the leaf itself first, then each subtree it completes) and the new frontier.
 */
export function appendLeaf(
  size: number,
  frontier: readonly Uint8Array[],
  leaf: Uint8Array,
): { nodes: Array<NodeId & { hash: Uint8Array }>; frontier: Uint8Array[] } {
  const levels = frontierNodes(size).map((n) => n.level);
  if (levels.length !== frontier.length) {
    throw new Error(
      `A tree of ${size} leaves has ${levels.length} frontier nodes, not ${frontier.length}`,
    );
  }
  const stack = frontier.map((hash, i) => ({ level: levels[i], hash }));
  let current = { level: 0, index: size, hash: leaf };
  const nodes = [current];
  while (stack.length > 0 && stack[stack.length - 1].level === current.level) {
    const left = stack.pop()!;
    current = {
      level: current.level + 1,
      index: Math.floor(current.index / 2),
      hash: nodeHash(left.hash, current.hash),
    };
    nodes.push(current);
  }
  return { nodes, frontier: [...stack.map((s) => s.hash), current.hash] };
}
