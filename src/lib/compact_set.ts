/**
 * A set of strings kept as UTF-8 bytes in pages of 64 KiB with an open-addressing index in two
 * typed arrays: exact (a lookup compares the bytes), in insertion order, and without one object
 * per member. A `Set<string>` of 60,000 KV keys holds 60,000 strings in the JS heap, and the
 * heap grows several times what it holds between collections; this holds about the strings'
 * bytes plus 16 bytes per member outside the objects the collector walks. For walks whose
 * bookkeeping grows with the data (src/store/tenant_keys.ts, src/lifecycle/org_export.ts).
 */

const PAGE_BYTES = 64 * 1024;
const MAX_TEXT_BYTES = PAGE_BYTES - 2;

export class CompactStringSet {
  #pages: Uint8Array[] = [];
  #used = PAGE_BYTES;
  /** Per slot: 0 when empty, else the member's page × 65,536 + offset + 1. */
  #refs = new Int32Array(1024);
  #hashes = new Int32Array(1024);
  #encoder = new TextEncoder();
  #decoder = new TextDecoder();
  /** Members held. */
  size = 0;

  /** Adds `text`; whether it was not a member already. */
  add(text: string): boolean {
    const bytes = this.#encoder.encode(text);
    if (bytes.length > MAX_TEXT_BYTES) throw new RangeError("member longer than 65,534 bytes");
    if ((this.size + 1) * 2 > this.#refs.length) this.#grow();
    const hash = fnv1a(bytes);
    const mask = this.#refs.length - 1;
    let slot = hash & mask;
    while (this.#refs[slot] !== 0) {
      if (this.#hashes[slot] === hash && this.#equals(this.#refs[slot], bytes)) return false;
      slot = (slot + 1) & mask;
    }
    this.#refs[slot] = this.#store(bytes);
    this.#hashes[slot] = hash;
    this.size++;
    return true;
  }

  /** The members in the order added. */
  *[Symbol.iterator](): Generator<string> {
    for (let p = 0; p < this.#pages.length; p++) {
      const page = this.#pages[p];
      const end = p === this.#pages.length - 1 ? this.#used : PAGE_BYTES;
      let at = 0;
      while (at + 2 <= end) {
        const length = (page[at] << 8) | page[at + 1];
        if (length === 0xffff) break; // the rest of the page is unused
        yield this.#decoder.decode(page.subarray(at + 2, at + 2 + length));
        at += 2 + length;
      }
    }
  }

  #store(bytes: Uint8Array): number {
    if (this.#used + 2 + bytes.length > PAGE_BYTES) {
      const last = this.#pages.at(-1);
      if (last && this.#used + 2 <= PAGE_BYTES) last[this.#used] = last[this.#used + 1] = 0xff;
      this.#pages.push(new Uint8Array(PAGE_BYTES));
      this.#used = 0;
    }
    const page = this.#pages.at(-1)!;
    const offset = this.#used;
    page[offset] = bytes.length >> 8;
    page[offset + 1] = bytes.length & 0xff;
    page.set(bytes, offset + 2);
    this.#used += 2 + bytes.length;
    return (this.#pages.length - 1) * PAGE_BYTES + offset + 1;
  }

  #equals(ref: number, bytes: Uint8Array): boolean {
    const page = this.#pages[Math.floor((ref - 1) / PAGE_BYTES)];
    const offset = (ref - 1) % PAGE_BYTES;
    if (((page[offset] << 8) | page[offset + 1]) !== bytes.length) return false;
    for (let i = 0; i < bytes.length; i++) if (page[offset + 2 + i] !== bytes[i]) return false;
    return true;
  }

  #grow() {
    const refs = this.#refs;
    const hashes = this.#hashes;
    this.#refs = new Int32Array(refs.length * 2);
    this.#hashes = new Int32Array(refs.length * 2);
    const mask = this.#refs.length - 1;
    for (let i = 0; i < refs.length; i++) {
      if (refs[i] === 0) continue;
      let slot = hashes[i] & mask;
      while (this.#refs[slot] !== 0) slot = (slot + 1) & mask;
      this.#refs[slot] = refs[i];
      this.#hashes[slot] = hashes[i];
    }
  }
}

/** FNV-1a over the bytes, as a 32-bit integer. */
function fnv1a(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return hash | 0;
}
