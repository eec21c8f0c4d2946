/**
 * A KV Connect server for the tests, written from denokv's published protocol
 * (proto/kv-connect.md, proto/schema/datapath.proto, the metadata exchange JSON schemas and
 * proto/limits.rs in github.com/denoland/denokv): `Deno.openKv("http://127.0.0.1:<port>")` with
 * `DENO_KV_ACCESS_TOKEN` reaches it exactly as it reaches denokv or Deno Deploy's database.
 *
 * - Metadata exchange: POST / with `Authorization: Bearer <access token>` and
 *   `{"supportedVersions":[…]}` answers protocol version 3 (or 2), the database id, one strong
 *   endpoint `/v2`, a data-path token and an expiry a day ahead; a wrong token is 401.
 * - Data path (protobuf bodies, encoded and decoded here by hand): `snapshot_read` and
 *   `atomic_write` (checks by versionstamp; set, delete, and sum/min/max on LE64 `Deno.KvU64`).
 *   `watch`, enqueues, V8 sums and `setSuffixVersionstampedKey` are answered 400: Deno's client
 *   sends no enqueue over KV Connect, and the service calls none of the others.
 * - Storage: a local SQLite KV (`Deno.openKv(path)`) in the test process. An entry is stored
 *   under the one-part key `[<the encoded key bytes>]`, which sorts as the bytes do, so a byte
 *   range of the protocol is a `list({ start, end })` there; values are kept as the types the
 *   backing KV stores (V8 values decoded with `node:v8`, LE64 as `Deno.KvU64`, bytes as
 *   `Uint8Array`), and versionstamps are the backing store's own.
 * - Limits, in two modes: `denokv` (proto/limits.rs) and `deploy` (Deno Deploy's documented
 *   ones). A request over one is answered 400 with denokv's plain-text message and recorded in
 *   `violations`, so a test asserts none happened.
 * - Faults: `failNext` answers the next data-path requests 500 before doing anything (Deno's
 *   client retries 5xx and network errors without end), `restart` closes the listener and opens
 *   it again on the same port and data.
 *
 * Keys use the tuple encoding Deno's KV uses (`decodeKey`/`encodeKey` below, for the tests and
 * for naming keys in violations): byte strings (0x01), strings (0x02), bigints (0x0c–0x1c, up to
 * 8 bytes), numbers (0x21, IEEE 754 with the sign flipped) and booleans (0x26, 0x27).
 */
import { deserialize, Serializer } from "node:v8";

/** The limits one KV Connect backend enforces per request. */
export interface KvLimits {
  maxWriteKeyBytes: number;
  maxReadKeyBytes: number;
  maxValueBytes: number;
  maxReadRanges: number;
  maxReadEntries: number;
  maxChecks: number;
  maxMutations: number;
  /** Keys of checks and mutations plus values, in one atomic write. */
  maxTotalMutationBytes: number;
  maxWatchedKeys: number;
}

/** denokv's limits: proto/limits.rs (denokv 0.12.0). */
export const DENOKV_LIMITS: KvLimits = {
  maxWriteKeyBytes: 2048,
  maxReadKeyBytes: 2049,
  maxValueBytes: 65_536,
  maxReadRanges: 10,
  maxReadEntries: 1000,
  maxChecks: 10,
  maxMutations: 1000,
  maxTotalMutationBytes: 819_200,
  maxWatchedKeys: 10,
};

/**
 * Deno Deploy's documented limits (docs.deno.com, KV transactions: keys 2 KiB, values 64 KiB,
 * 100 checks, 1,000 mutations, 800 KiB per atomic operation); reads as Deno's own client
 * bounds them (10 ranges, 1,000 entries per read).
 */
export const DEPLOY_LIMITS: KvLimits = {
  ...DENOKV_LIMITS,
  maxChecks: 100,
};

export type LimitMode = "denokv" | "deploy";

/** One request that went over a limit (and was refused with 400). */
export interface LimitViolation {
  endpoint: string;
  limit: keyof KvLimits;
  /** What the request had, e.g. 12 (checks). */
  actual: number;
  allowed: number;
  /** The first keys of the request (of its checks, for too many checks), decoded. */
  keys: string[];
}

/** The largest request of each kind seen, to state the headroom under the limits. */
export interface KvConnectPeaks {
  readRanges: number;
  readEntries: number;
  checks: number;
  mutations: number;
  mutationBytes: number;
  keyBytes: number;
  valueBytes: number;
}

export interface KvConnectServer {
  /** The URL to give `Deno.openKv` / `KV_PATH`. */
  url: string;
  port: number;
  /** The access token (`DENO_KV_ACCESS_TOKEN`). */
  token: string;
  mode: LimitMode;
  limits: KvLimits;
  violations: LimitViolation[];
  peaks: KvConnectPeaks;
  /** Requests answered, by endpoint (`metadata`, `snapshot_read`, `atomic_write`, `unauthorized`, `injected`). */
  counts: Record<string, number>;
  /** The store behind the server (for assertions; keys are `[encoded key bytes]`). */
  backing(): Deno.Kv;
  /** Answers the next `count` data-path requests with a 500, before doing anything. */
  failNext(count: number, endpoint?: "snapshot_read" | "atomic_write"): void;
  /** Stops listening for `downMs` (connections refused), then listens again on the same port. */
  restart(downMs?: number): Promise<void>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface KvConnectServerOptions {
  mode: LimitMode;
  /** The backing SQLite file (default: a new temporary file, removed on close). */
  path?: string;
  token?: string;
  port?: number;
}

// ---------------------------------------------------------------------------------------------
// Protobuf: the few messages of com.deno.kv.datapath, by field number.

class Reader {
  #pos = 0;
  constructor(readonly bytes: Uint8Array) {}
  get done() {
    return this.#pos >= this.bytes.length;
  }
  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.#pos >= this.bytes.length) throw new Error("truncated varint");
      const byte = this.bytes[this.#pos++];
      result += (byte & 0x7f) * scale;
      scale *= 128;
      if (byte < 0x80) return result;
    }
    throw new Error("varint too long");
  }
  bytesField(): Uint8Array {
    const length = this.varint();
    if (this.#pos + length > this.bytes.length) throw new Error("truncated field");
    const out = this.bytes.subarray(this.#pos, this.#pos + length);
    this.#pos += length;
    return out;
  }
  /** Each field as [number, wire type, value]; unknown wire types are an error. */
  *fields(): Generator<[number, number, number | Uint8Array]> {
    while (!this.done) {
      const tag = this.varint();
      const field = Math.floor(tag / 8);
      const wire = tag & 7;
      if (wire === 0) yield [field, wire, this.varint()];
      else if (wire === 2) yield [field, wire, this.bytesField()];
      else if (wire === 1) {
        this.#pos += 8;
        yield [field, wire, 0];
      } else if (wire === 5) {
        this.#pos += 4;
        yield [field, wire, 0];
      } else throw new Error(`unsupported wire type ${wire}`);
    }
  }
}

class Writer {
  #parts: number[] = [];
  varint(value: number | bigint): this {
    let v = BigInt(value);
    if (v < 0n) v += 1n << 64n;
    do {
      const byte = Number(v & 0x7fn);
      v >>= 7n;
      this.#parts.push(v > 0n ? byte | 0x80 : byte);
    } while (v > 0n);
    return this;
  }
  uint(field: number, value: number): this {
    if (value) this.varint(field * 8).varint(value);
    return this;
  }
  bytes(field: number, value: Uint8Array): this {
    this.varint(field * 8 + 2).varint(value.length);
    for (const b of value) this.#parts.push(b);
    return this;
  }
  finish(): Uint8Array {
    return new Uint8Array(this.#parts);
  }
}

interface ReadRange {
  start: Uint8Array;
  end: Uint8Array;
  limit: number;
  reverse: boolean;
}

interface Check {
  key: Uint8Array;
  versionstamp: Uint8Array;
}

interface Mutation {
  key: Uint8Array;
  value: { data: Uint8Array; encoding: number } | null;
  type: number;
  expireAtMs: number;
  sumMin: Uint8Array;
  sumMax: Uint8Array;
}

function decodeSnapshotRead(body: Uint8Array): ReadRange[] {
  const ranges: ReadRange[] = [];
  for (const [field, , value] of new Reader(body).fields()) {
    if (field !== 1 || !(value instanceof Uint8Array)) continue;
    const range: ReadRange = {
      start: new Uint8Array(),
      end: new Uint8Array(),
      limit: 0,
      reverse: false,
    };
    for (const [f, , v] of new Reader(value).fields()) {
      if (f === 1 && v instanceof Uint8Array) range.start = v;
      else if (f === 2 && v instanceof Uint8Array) range.end = v;
      else if (f === 3 && typeof v === "number") range.limit = v > 2 ** 31 ? -1 : v;
      else if (f === 4) range.reverse = v === 1;
    }
    ranges.push(range);
  }
  return ranges;
}

function decodeAtomicWrite(body: Uint8Array) {
  const checks: Check[] = [];
  const mutations: Mutation[] = [];
  let enqueues = 0;
  for (const [field, , value] of new Reader(body).fields()) {
    if (!(value instanceof Uint8Array)) continue;
    if (field === 1) {
      const check: Check = { key: new Uint8Array(), versionstamp: new Uint8Array() };
      for (const [f, , v] of new Reader(value).fields()) {
        if (f === 1 && v instanceof Uint8Array) check.key = v;
        else if (f === 2 && v instanceof Uint8Array) check.versionstamp = v;
      }
      checks.push(check);
    } else if (field === 2) {
      const m: Mutation = {
        key: new Uint8Array(),
        value: null,
        type: 0,
        expireAtMs: 0,
        sumMin: new Uint8Array(),
        sumMax: new Uint8Array(),
      };
      for (const [f, , v] of new Reader(value).fields()) {
        if (f === 1 && v instanceof Uint8Array) m.key = v;
        else if (f === 2 && v instanceof Uint8Array) {
          m.value = { data: new Uint8Array(), encoding: 0 };
          for (const [vf, , vv] of new Reader(v).fields()) {
            if (vf === 1 && vv instanceof Uint8Array) m.value.data = vv;
            else if (vf === 2 && typeof vv === "number") m.value.encoding = vv;
          }
        } else if (f === 3 && typeof v === "number") m.type = v;
        else if (f === 4 && typeof v === "number") m.expireAtMs = v;
        else if (f === 5 && v instanceof Uint8Array) m.sumMin = v;
        else if (f === 6 && v instanceof Uint8Array) m.sumMax = v;
      }
      mutations.push(m);
    } else if (field === 3) enqueues++;
  }
  return { checks, mutations, enqueues };
}

const VE_V8 = 1;
const VE_LE64 = 2;
const VE_BYTES = 3;
const M_SET = 1;
const M_DELETE = 2;
const M_SUM = 3;
const M_MAX = 4;
const M_MIN = 5;

/**
 * V8's own serialization of `value`, as Deno writes it. node:v8's `serialize` is not used: its
 * serializer writes typed arrays as Node host objects, which Deno cannot read back ("could not
 * deserialize value"); the base `Serializer` leaves them to V8.
 */
function serializeV8(value: unknown): Uint8Array {
  const serializer = new Serializer();
  serializer.writeHeader();
  serializer.writeValue(value);
  return new Uint8Array(serializer.releaseBuffer());
}

/** A stored value as the protocol's (bytes, encoding). */
function encodeValue(value: unknown): { data: Uint8Array; encoding: number } {
  if (value instanceof Deno.KvU64) {
    const data = new Uint8Array(8);
    new DataView(data.buffer).setBigUint64(0, value.value, true);
    return { data, encoding: VE_LE64 };
  }
  if (value instanceof Uint8Array) return { data: value, encoding: VE_BYTES };
  return { data: serializeV8(value), encoding: VE_V8 };
}

/** The protocol's (bytes, encoding) as a value the backing KV stores. */
function decodeValue(data: Uint8Array, encoding: number): unknown {
  if (encoding === VE_LE64) {
    if (data.length !== 8) throw new RequestError("Invalid mutation kind or arguments.");
    return new Deno.KvU64(new DataView(data.buffer, data.byteOffset, 8).getBigUint64(0, true));
  }
  if (encoding === VE_BYTES) return data.slice();
  if (encoding === VE_V8) return deserialize(data);
  throw new RequestError(`The value encoding ${encoding} is unknown.`);
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function unhex(text: string): Uint8Array {
  return new Uint8Array(text.match(/../g)!.map((h) => parseInt(h, 16)));
}

function encodeEntry(entry: Deno.KvEntry<unknown>): Uint8Array {
  const { data, encoding } = encodeValue(entry.value);
  return new Writer()
    .bytes(1, entry.key[0] as Uint8Array)
    .bytes(2, data)
    .uint(3, encoding)
    .bytes(4, unhex(entry.versionstamp))
    .finish();
}

// ---------------------------------------------------------------------------------------------
// Keys: Deno KV's tuple encoding.

/** The parts of an encoded KV key (see the module comment for the types supported). */
export function decodeKey(bytes: Uint8Array): Deno.KvKeyPart[] {
  const parts: Deno.KvKeyPart[] = [];
  let i = 0;
  const escaped = () => {
    const out: number[] = [];
    while (i < bytes.length) {
      const b = bytes[i++];
      if (b !== 0) out.push(b);
      else if (bytes[i] === 0xff) {
        out.push(0);
        i++;
      } else return new Uint8Array(out);
    }
    throw new Error("unterminated key part");
  };
  while (i < bytes.length) {
    const tag = bytes[i++];
    if (tag === 0x01) parts.push(escaped());
    else if (tag === 0x02) parts.push(new TextDecoder().decode(escaped()));
    else if (tag >= 0x0c && tag <= 0x1c) {
      const n = tag - 0x14;
      const length = Math.abs(n);
      let value = 0n;
      for (let k = 0; k < length; k++) value = (value << 8n) | BigInt(bytes[i++]);
      parts.push(n >= 0 ? value : value - ((1n << BigInt(8 * length)) - 1n));
    } else if (tag === 0x21) {
      const b = bytes.slice(i, i + 8);
      i += 8;
      if (b[0] & 0x80) b[0] ^= 0x80;
      else for (let k = 0; k < 8; k++) b[k] ^= 0xff;
      parts.push(new DataView(b.buffer).getFloat64(0));
    } else if (tag === 0x26) parts.push(false);
    else if (tag === 0x27) parts.push(true);
    else throw new Error(`unsupported key part type 0x${tag.toString(16)}`);
  }
  return parts;
}

/** The encoded bytes of a KV key (the inverse of decodeKey). */
export function encodeKey(key: Deno.KvKey): Uint8Array {
  const out: number[] = [];
  const escape = (bytes: Uint8Array) => {
    for (const b of bytes) out.push(...(b === 0 ? [0, 0xff] : [b]));
    out.push(0);
  };
  for (const part of key) {
    if (part instanceof Uint8Array) {
      out.push(0x01);
      escape(part);
    } else if (typeof part === "string") {
      out.push(0x02);
      escape(new TextEncoder().encode(part));
    } else if (typeof part === "bigint") {
      const negative = part < 0n;
      let magnitude = negative ? -part : part;
      const bytes: number[] = [];
      while (magnitude > 0n) {
        bytes.unshift(Number(magnitude & 0xffn));
        magnitude >>= 8n;
      }
      if (bytes.length > 8) throw new Error("bigint key parts over 8 bytes are not supported");
      out.push(0x14 + (negative ? -bytes.length : bytes.length));
      out.push(...(negative ? bytes.map((b) => b ^ 0xff) : bytes));
    } else if (typeof part === "number") {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setFloat64(0, part);
      if (b[0] & 0x80) { for (let k = 0; k < 8; k++) b[k] ^= 0xff; }
      else b[0] ^= 0x80;
      out.push(0x21, ...b);
    } else if (typeof part === "boolean") out.push(part ? 0x27 : 0x26);
    else throw new Error(`unsupported key part ${String(part)}`);
  }
  return new Uint8Array(out);
}

function describeKey(bytes: Uint8Array): string {
  try {
    return JSON.stringify(
      decodeKey(bytes),
      (_, v) => typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? hex(v) : v,
    );
  } catch {
    return hex(bytes);
  }
}

// ---------------------------------------------------------------------------------------------
// The server.

/** A request the server refuses with a 4xx and denokv's message. */
class RequestError extends Error {
  constructor(message: string, readonly status = 400) {
    super(message);
  }
}

/** Starts a KV Connect server on 127.0.0.1; close it (or `await using`) when done. */
export async function startKvConnectServer(
  options: KvConnectServerOptions,
): Promise<KvConnectServer> {
  const ownsPath = !options.path;
  const path = options.path ?? `${await Deno.makeTempDir({ prefix: "kv_connect_" })}/kv.sqlite3`;
  const token = options.token ?? `kv-connect-${crypto.randomUUID()}`;
  const dataToken = `data-${crypto.randomUUID()}`;
  const databaseId = crypto.randomUUID();
  const limits = options.mode === "denokv" ? DENOKV_LIMITS : DEPLOY_LIMITS;
  const violations: LimitViolation[] = [];
  const counts: Record<string, number> = {};
  const peaks: KvConnectPeaks = {
    readRanges: 0,
    readEntries: 0,
    checks: 0,
    mutations: 0,
    mutationBytes: 0,
    keyBytes: 0,
    valueBytes: 0,
  };
  const failures: ("snapshot_read" | "atomic_write" | undefined)[] = [];
  let kv = await Deno.openKv(path);
  // One request at a time against the backing store: a snapshot read of several ranges sees one
  // state, and a write lands between reads, never inside one.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  };

  const over = (
    endpoint: string,
    limit: keyof KvLimits,
    actual: number,
    keys: Uint8Array[],
    message: string,
  ) => {
    if (actual <= limits[limit]) return;
    violations.push({
      endpoint,
      limit,
      actual,
      allowed: limits[limit],
      keys: keys.slice(0, 12).map(describeKey),
    });
    throw new RequestError(message);
  };

  const snapshotRead = async (body: Uint8Array): Promise<Uint8Array> => {
    const ranges = decodeSnapshotRead(body);
    const keys = ranges.map((r) => r.start);
    peaks.readRanges = Math.max(peaks.readRanges, ranges.length);
    over(
      "snapshot_read",
      "maxReadRanges",
      ranges.length,
      keys,
      "Too many read ranges requested in one read request.",
    );
    let total = 0;
    for (const range of ranges) {
      if (range.limit <= 0) {
        throw new RequestError("The read range limit of the snapshot read request is invalid.");
      }
      for (const key of [range.start, range.end]) {
        over(
          "snapshot_read",
          "maxReadKeyBytes",
          key.length,
          [key],
          "A key exceeds the key size limit.",
        );
      }
      total += range.limit;
    }
    peaks.readEntries = Math.max(peaks.readEntries, total);
    over(
      "snapshot_read",
      "maxReadEntries",
      total,
      keys,
      "The total number of entries requested across read ranges in the read request is too large.",
    );
    const out = new Writer();
    await serially(async () => {
      for (const range of ranges) {
        const entries = kv.list(
          { start: [range.start], end: [range.end] },
          { limit: range.limit, reverse: range.reverse, batchSize: Math.min(range.limit, 500) },
        );
        const rangeOut = new Writer();
        for await (const entry of entries) rangeOut.bytes(1, encodeEntry(entry));
        out.bytes(1, rangeOut.finish());
      }
    });
    // read_is_strongly_consistent = true, status = SR_SUCCESS.
    return out.uint(4, 1).uint(8, 1).finish();
  };

  const atomicWrite = async (body: Uint8Array): Promise<Uint8Array> => {
    const { checks, mutations, enqueues } = decodeAtomicWrite(body);
    const keys = [...checks.map((c) => c.key), ...mutations.map((m) => m.key)];
    peaks.checks = Math.max(peaks.checks, checks.length);
    peaks.mutations = Math.max(peaks.mutations, mutations.length + enqueues);
    over(
      "atomic_write",
      "maxChecks",
      checks.length,
      checks.map((c) => c.key),
      "Too many checks included in atomic write.",
    );
    over(
      "atomic_write",
      "maxMutations",
      mutations.length + enqueues,
      keys,
      "Too many mutations / enqueues included in atomic write.",
    );
    if (enqueues > 0) throw new RequestError("Enqueues are not supported by this server.");
    let size = 0;
    for (const check of checks) {
      over(
        "atomic_write",
        "maxReadKeyBytes",
        check.key.length,
        [check.key],
        "A key exceeds the key size limit.",
      );
      size += check.key.length;
    }
    for (const m of mutations) {
      peaks.keyBytes = Math.max(peaks.keyBytes, m.key.length);
      over(
        "atomic_write",
        "maxWriteKeyBytes",
        m.key.length,
        [m.key],
        "A key exceeds the key size limit.",
      );
      const valueSize = m.value?.data.length ?? 0;
      peaks.valueBytes = Math.max(peaks.valueBytes, valueSize);
      over(
        "atomic_write",
        "maxValueBytes",
        valueSize,
        [m.key],
        "A value exceeds the value size limit.",
      );
      size += m.key.length + valueSize;
    }
    peaks.mutationBytes = Math.max(peaks.mutationBytes, size);
    over(
      "atomic_write",
      "maxTotalMutationBytes",
      size,
      keys,
      "The total size of the atomic write is too large.",
    );
    const op = kv.atomic();
    for (const check of checks) {
      if (check.versionstamp.length !== 0 && check.versionstamp.length !== 10) {
        throw new RequestError("Invalid versionstamp.");
      }
      op.check({
        key: [check.key],
        versionstamp: check.versionstamp.length ? hex(check.versionstamp) : null,
      });
    }
    for (const m of mutations) {
      const key = [m.key];
      if (m.type === M_DELETE) {
        op.delete(key);
        continue;
      }
      if (!m.value) throw new RequestError("Invalid mutation kind or arguments.");
      const value = decodeValue(m.value.data, m.value.encoding);
      if (m.type === M_SET) {
        const expireIn = m.expireAtMs > 0 ? Math.max(1, m.expireAtMs - Date.now()) : undefined;
        op.set(key, value, expireIn === undefined ? undefined : { expireIn });
      } else if ([M_SUM, M_MIN, M_MAX].includes(m.type) && value instanceof Deno.KvU64) {
        if (m.sumMin.length || m.sumMax.length) {
          throw new RequestError("Invalid mutation kind or arguments.");
        }
        if (m.type === M_SUM) op.sum(key, value.value);
        else if (m.type === M_MIN) op.min(key, value.value);
        else op.max(key, value.value);
      } else {
        throw new RequestError("Invalid mutation kind or arguments.");
      }
    }
    const result = await serially(() => op.commit()).catch((error) => {
      throw new RequestError(error instanceof Error ? error.message : String(error));
    });
    if (!result.ok) return new Writer().uint(1, 2).finish(); // AW_CHECK_FAILURE
    return new Writer().uint(1, 1).bytes(2, unhex(result.versionstamp)).finish();
  };

  const plain = (status: number, text: string) =>
    new Response(text, { status, headers: { "content-type": "text/plain" } });
  const count = (name: string) => counts[name] = (counts[name] ?? 0) + 1;

  const bearer = (req: Request) => {
    const [scheme, value] = (req.headers.get("authorization") ?? "").split(" ");
    return scheme?.toLowerCase() === "bearer" ? value : null;
  };

  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const body = new Uint8Array(await req.arrayBuffer());
    if (req.method !== "POST") return plain(404, "Resource not found.");
    if (url.pathname === "/") {
      let versions: number[] = [1];
      try {
        if (body.length) versions = JSON.parse(new TextDecoder().decode(body)).supportedVersions;
      } catch {
        return plain(400, "Request body is invalid.");
      }
      const version = versions.includes(3) ? 3 : versions.includes(2) ? 2 : 0;
      if (!version) {
        return plain(
          400,
          "The server could not negotiate a protocol version. The server requires protocol version 2 or 3.",
        );
      }
      if (bearer(req) !== token) {
        count("unauthorized");
        return plain(401, "Invalid access token.");
      }
      count("metadata");
      return Response.json({
        version,
        databaseId,
        endpoints: [{ url: "/v2", consistency: "strong" }],
        token: dataToken,
        expiresAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
      });
    }
    const endpoint = url.pathname.slice("/v2/".length);
    if (!url.pathname.startsWith("/v2/")) return plain(404, "Resource not found.");
    if (bearer(req) !== dataToken) {
      count("unauthorized");
      return plain(401, "Invalid access token.");
    }
    if (req.headers.get("x-denokv-database-id") !== databaseId) {
      return plain(400, "Invalid database id.");
    }
    const injected = failures.findIndex((f) => f === undefined || f === endpoint);
    if (injected >= 0) {
      failures.splice(injected, 1);
      count("injected");
      return plain(500, "An internal server error occurred.");
    }
    try {
      let out: Uint8Array;
      if (endpoint === "snapshot_read") out = await snapshotRead(body);
      else if (endpoint === "atomic_write") out = await atomicWrite(body);
      else if (endpoint === "watch") {
        throw new RequestError("watch is not supported by this server.");
      } else return plain(404, "Resource not found.");
      count(endpoint);
      return new Response(out as Uint8Array<ArrayBuffer>, {
        headers: { "content-type": "application/x-protobuf" },
      });
    } catch (error) {
      count(`${endpoint} refused`);
      if (error instanceof RequestError) return plain(error.status, error.message);
      return plain(400, `Request protobuf is invalid: ${(error as Error).message}.`);
    }
  };

  const listen = (port: number) =>
    Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, handler);
  let server = listen(options.port ?? 0);
  const port = server.addr.port;

  const close = async () => {
    await server.shutdown();
    await queue;
    kv.close();
    if (ownsPath) await Deno.remove(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    token,
    mode: options.mode,
    limits,
    violations,
    peaks,
    counts,
    backing: () => kv,
    failNext(n, endpoint) {
      for (let i = 0; i < n; i++) failures.push(endpoint);
    },
    async restart(downMs = 300) {
      await server.shutdown();
      await queue;
      kv.close();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      kv = await Deno.openKv(path);
      server = listen(port);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
