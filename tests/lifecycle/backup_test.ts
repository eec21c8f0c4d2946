/**
 * Backup and restore of the whole service, run as the README shows (`deno task backup <file>`,
 * `deno task restore <file>` as subprocesses): a 50,000-entry KV round trip compared byte for
 * byte in SQLite, every value type, an external blob store (s3rver), a killed backup, truncated
 * and corrupted files, a non-empty target, and a KV that changes while the backup lists it.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { deserialize, serialize } from "node:v8";
import { S3rver } from "../deps.ts";
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import { createS3BlobStore, type S3BlobStoreOptions } from "../../src/blobs/s3.ts";
import {
  BackupNotConsistentError,
  listBlobKeys,
  restoreBackup,
  verifyBackup,
  writeBackup,
} from "../../src/lifecycle/backup.ts";
import { BackupFormatError } from "../../src/lifecycle/backup_format.ts";
import { clockEnv } from "../support/process.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const ENTRIES = 50_000;

interface TaskRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `deno task <name> <file>` in the repository, with `env` added to a clean environment. */
async function task(name: string, file: string, env: Record<string, string>): Promise<TaskRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", name, file],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** PATH and HOME, and the test's clock when it runs moved (clockEnv). */
function baseEnv(): Record<string, string> {
  return { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "/tmp", ...clockEnv() };
}

/** A value of one of the types the KV stores, chosen by `i`. */
function valueFor(i: number): unknown {
  switch (i % 12) {
    case 0:
      return `text ${i} ✓`;
    case 1:
      return i * 1.5;
    case 2:
      return BigInt(i) * 10_000_000_000_000n;
    case 3:
      return new Deno.KvU64(BigInt(i) * 3n);
    case 4:
      return new Uint8Array([i & 255, (i >> 8) & 255, 0, 255]);
    case 5:
      return new Date(1_700_000_000_000 + i);
    case 6:
      return { id: `r${i}`, nested: { list: [1, "two", null, { deep: true }], at: new Date(i) } };
    case 7:
      return [i, `s${i}`, false, undefined, NaN, -0, Infinity];
    case 8:
      return new Map<unknown, unknown>([["k", i], [2, new Set([1, 2, 3])]]);
    case 9:
      return null;
    case 10:
      return i % 2 === 0;
    default:
      return { bytes: new Uint8Array(200).fill(i & 255), big: BigInt(-i) };
  }
}

/** A key whose parts cover every key part type. */
function keyFor(i: number): Deno.KvKey {
  switch (i % 5) {
    case 0:
      return ["strings", `k${i}`];
    case 1:
      return ["numbers", i, i + 0.25];
    case 2:
      return ["bigints", BigInt(i) - 20_000n];
    case 3:
      return ["booleans", i % 2 === 0, `k${i}`];
    default:
      return ["bytes", new Uint8Array([i >> 16, (i >> 8) & 255, i & 255])];
  }
}

/** `size` bytes that do not repeat (random 64 KiB at a time). */
function randomBytes(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i += 65_536) crypto.getRandomValues(out.subarray(i, i + 65_536));
  return out;
}

/** Fills a KV with `count` entries of every type and a few blobs (inline and chunked). */
async function populate(kv: Deno.Kv, count: number): Promise<string[]> {
  for (let first = 0; first < count; first += 500) {
    const op = kv.atomic();
    for (let i = first; i < Math.min(first + 500, count); i++) op.set(keyFor(i), valueFor(i));
    await op.commit();
  }
  const blobs = createKvBlobStore(kv);
  const keys: string[] = [];
  for (const size of [10, 40_000, 200_000]) {
    keys.push(await blobs.put("evidence", randomBytes(size)));
  }
  return keys;
}

/** Every row of the SQLite file's kv table: key, value and value encoding bytes, in key order. */
function rawRows(path: string): { k: Uint8Array; v: Uint8Array; v_encoding: number }[] {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare("SELECT k, v, v_encoding FROM kv ORDER BY k").all() as never;
  } finally {
    db.close();
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** The entry and blob frames of a backup file: after its magic and header, before its trailer. */
async function framesAfterHeader(path: string): Promise<Uint8Array> {
  const bytes = await Deno.readFile(path);
  const magic = new TextEncoder().encode("TRUST-PROFILE-BACKUP 1\n").length;
  const headerLength = new DataView(bytes.buffer, magic + 1).getUint32(0);
  return bytes.subarray(magic + 5 + headerLength, bytes.length - 37);
}

async function listAll(kv: Deno.Kv): Promise<Deno.KvEntry<unknown>[]> {
  return await Array.fromAsync(kv.list({ prefix: [] }));
}

async function kvEntryCount(path: string): Promise<number> {
  const kv = await Deno.openKv(path);
  try {
    return (await listAll(kv)).length;
  } finally {
    kv.close();
  }
}

Deno.test("[lifecycle] deno task backup/restore: 50,000 entries of every type come back byte-identical", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "backup_" });
  try {
    const source = `${dir}/source.sqlite3`;
    const kv = await Deno.openKv(source);
    const blobKeys = await populate(kv, ENTRIES);
    const sourceEntries = await listAll(kv);
    kv.close();
    const file = `${dir}/service.backup`;

    await t.step("backup writes one complete file and reports its counts", async () => {
      const run = await task("backup", file, { ...baseEnv(), KV_PATH: source });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`${sourceEntries.length} KV entries, 0 blobs`));
      assert.match(run.stdout, /2 listings, 0 entries re-read/);
      const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
      assert.deepEqual(names, ["service.backup", "source.sqlite3"]);
      const header = await verifyBackup(file);
      assert.equal(header.kvEntries, sourceEntries.length);
      console.log(`  ${run.stdout}`);
    });

    const target = `${dir}/restored/target.sqlite3`;
    await t.step("restore loads it into an empty KV", async () => {
      const run = await task("restore", file, { ...baseEnv(), KV_PATH: target });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`Restored ${sourceEntries.length} KV entries`));
      console.log(`  ${run.stdout}`);
    });

    await t.step(
      "every key and value is byte-identical in SQLite (values in V8's canonical form)",
      () => {
        const before = rawRows(source);
        const after = rawRows(target);
        assert.equal(after.length, before.length);
        assert.ok(before.length > ENTRIES);
        let identical = 0;
        for (let i = 0; i < before.length; i++) {
          assert.deepEqual(after[i].k, before[i].k, `key ${i}`);
          assert.equal(after[i].v_encoding, before[i].v_encoding, `encoding of key ${i}`);
          if (equalBytes(after[i].v, before[i].v)) {
            identical++;
            continue;
          }
          // V8 writes an integral number held as a double (Math.ceil's result) as a double; read
          // back it is an integer and is written as one. Same value, canonical bytes: any
          // read-modify-write by the service itself does the same.
          const [a, b] = [deserialize(after[i].v), deserialize(before[i].v)];
          assert.deepEqual(a, b, `value of key ${i}`);
          assert.ok(equalBytes(serialize(a), serialize(b)), `canonical value of key ${i}`);
        }
        console.log(`  ${identical} of ${before.length} stored values byte-identical as stored`);
      },
    );

    await t.step("a backup of the restored KV holds exactly the same bytes", async () => {
      const again = `${dir}/again.backup`;
      const run = await task("backup", again, { ...baseEnv(), KV_PATH: target });
      assert.equal(run.code, 0, run.stderr);
      assert.ok(equalBytes(await framesAfterHeader(again), await framesAfterHeader(file)));
      await Deno.remove(again);
    });

    await t.step(
      "values decode to the same types; versionstamps are the target's own",
      async () => {
        const restored = await Deno.openKv(target);
        try {
          const after = await listAll(restored);
          assert.equal(after.length, sourceEntries.length);
          let u64 = 0;
          for (let i = 0; i < after.length; i++) {
            assert.deepEqual(after[i].key, sourceEntries[i].key);
            const [a, b] = [after[i].value, sourceEntries[i].value];
            if (b instanceof Deno.KvU64) {
              assert.ok(a instanceof Deno.KvU64);
              assert.equal(a.value, b.value);
              u64++;
            } else {
              assert.deepEqual(a, b);
            }
          }
          assert.ok(u64 > 4000);
          // The restore wrote the entries in its own commits: versionstamps are not carried over.
          assert.notDeepEqual(
            after.map((e) => e.versionstamp),
            sourceEntries.map((e) => e.versionstamp),
          );
          const blobs = createKvBlobStore(restored);
          for (const key of blobKeys) assert.ok(await blobs.get(key), key);
        } finally {
          restored.close();
        }
      },
    );

    await t.step(
      "restore into a KV that holds anything is refused, and changes nothing",
      async () => {
        const run = await task("restore", file, { ...baseEnv(), KV_PATH: target });
        assert.equal(run.code, 1);
        assert.match(run.stderr, /restore failed: the target KV is not empty/);
        assert.equal(await kvEntryCount(target), sourceEntries.length);
      },
    );

    await t.step(
      "truncated or corrupted files are refused before anything is written",
      async () => {
        const bytes = await Deno.readFile(file);
        const flipped = bytes.slice();
        flipped[Math.floor(bytes.length / 2)] ^= 1;
        const damaged: [string, Uint8Array][] = [
          ["one byte short", bytes.subarray(0, bytes.length - 1)],
          ["half", bytes.subarray(0, Math.floor(bytes.length / 2))],
          ["without its trailer", bytes.subarray(0, bytes.length - 37)],
          ["one bit flipped", flipped],
          ["a byte appended", new Uint8Array([...bytes.subarray(bytes.length - 100), 0])],
        ];
        for (const [name, data] of damaged) {
          const path = `${dir}/damaged.backup`;
          await Deno.writeFile(path, data);
          const empty = `${dir}/empty-${crypto.randomUUID()}.sqlite3`;
          const run = await task("restore", path, { ...baseEnv(), KV_PATH: empty });
          assert.equal(run.code, 1, `${name}: ${run.stdout}`);
          assert.match(run.stderr, /restore failed: /, name);
          assert.equal(await kvEntryCount(empty), 0, `${name}: nothing written`);
        }
      },
    );

    await t.step("a backup killed mid-run leaves no file that restore accepts", async () => {
      const killed = `${dir}/killed.backup`;
      // The task's own command line, run directly: killing `deno task` would orphan its child.
      const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks;
      const [deno, ...args] = (tasks.backup as string).split(" ");
      assert.equal(deno, "deno");
      const child = new Deno.Command(Deno.execPath(), {
        args: [...args, killed],
        cwd: ROOT,
        env: { ...baseEnv(), KV_PATH: source },
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      // Kill it as soon as the first listing has been written to its spool file.
      const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let seen = "";
      while (!seen.includes("listing 1:")) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += value;
      }
      assert.match(seen, /listing 1: \d+ entries/);
      child.kill("SIGKILL");
      await child.status.catch(() => {});
      await reader.cancel();
      assert.equal(await Deno.stat(killed).then(() => true, () => false), false);
      const leftovers = [...Deno.readDirSync(dir)].filter((e) => e.name.startsWith("killed."));
      assert.ok(leftovers.length > 0, "the run left its partial files behind");
      for (const leftover of leftovers) {
        await assert.rejects(verifyBackup(`${dir}/${leftover.name}`), BackupFormatError);
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[lifecycle] a backup taken while the KV changes holds the state after the changes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "backup_" });
  try {
    const kv = await Deno.openKv(":memory:");
    await populate(kv, 1_000);
    const file = `${dir}/moving.backup`;
    const passes: number[] = [];
    const result = await writeBackup({
      kv,
      blobs: null,
      path: file,
      kvLabel: "memory",
      onPass: async ({ pass, changed }) => {
        passes.push(changed);
        if (pass === 1) {
          // Writers between the listings: a change, a deletion, a new entry.
          await kv.set(keyFor(0), "changed");
          await kv.delete(keyFor(1));
          await kv.set(["new", 1], new Deno.KvU64(9n));
        }
      },
    });
    assert.deepEqual(passes, [0, 3, 0]);
    assert.equal(result.passes, 3);
    assert.equal(result.changedDuringBackup, 3);
    const target = await Deno.openKv(":memory:");
    await restoreBackup({
      kv: target,
      blobs: createKvBlobStore(target),
      blobStore: "kv",
      path: file,
    });
    const strip = (entries: Deno.KvEntry<unknown>[]) =>
      entries.map(({ key, value }) => ({
        key,
        value: value instanceof Deno.KvU64 ? `u64:${value.value}` : value,
      }));
    assert.deepEqual(strip(await listAll(target)), strip(await listAll(kv)));
    assert.equal((await target.get(keyFor(0))).value, "changed");
    assert.equal((await target.get(keyFor(1))).versionstamp, null);
    kv.close();
    target.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[lifecycle] a KV that never holds still fails the backup and leaves no file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "backup_" });
  try {
    const kv = await Deno.openKv(":memory:");
    await populate(kv, 100);
    let n = 0;
    await assert.rejects(
      writeBackup({
        kv,
        blobs: null,
        path: `${dir}/never.backup`,
        kvLabel: "memory",
        maxPasses: 3,
        onPass: async () => {
          await kv.set(["counter"], n++);
        },
      }),
      BackupNotConsistentError,
    );
    assert.deepEqual([...Deno.readDirSync(dir)], []);
    kv.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const ACCESS = "S3RVER";

function s3Options(endpoint: string, bucket: string): S3BlobStoreOptions {
  return {
    endpoint,
    bucket,
    region: "us-east-1",
    accessKeyId: ACCESS,
    secretAccessKey: ACCESS,
    forcePathStyle: true,
  };
}

function s3Env(endpoint: string, bucket: string): Record<string, string> {
  return {
    BLOB_STORE: "s3",
    S3_ENDPOINT: endpoint,
    S3_BUCKET: bucket,
    S3_ACCESS_KEY_ID: ACCESS,
    S3_SECRET_ACCESS_KEY: ACCESS,
    S3_FORCE_PATH_STYLE: "true",
  };
}

Deno.test("[lifecycle] deno task backup/restore with BLOB_STORE=s3 carries every blob of the bucket", async () => {
  const dir = await Deno.makeTempDir({ prefix: "backup_s3_" });
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: `${dir}/s3`,
    configureBuckets: [{ name: "source" }, { name: "target" }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    const source = `${dir}/source.sqlite3`;
    const kv = await Deno.openKv(source);
    await populate(kv, 300);
    kv.close();
    const bucket = createS3BlobStore(s3Options(endpoint, "source"));
    const stored = new Map<string, Uint8Array>();
    // More than one listing page (1,000 keys) of one kind, and the other kinds.
    for (let i = 0; i < 1_050; i++) {
      const bytes = new TextEncoder().encode(`evidence ${i}`);
      stored.set(await bucket.put("evidence", bytes), bytes);
    }
    for (const kind of ["artifact", "logo", "document"] as const) {
      const bytes = randomBytes(70_000);
      stored.set(await bucket.put(kind, bytes), bytes);
    }

    const file = `${dir}/s3.backup`;
    const backup = await task("backup", file, {
      ...baseEnv(),
      KV_PATH: source,
      ...s3Env(endpoint, "source"),
    });
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, new RegExp(`, ${stored.size} blobs`));
    console.log(`  ${backup.stdout}`);

    const target = `${dir}/target.sqlite3`;
    const restore = await task("restore", file, {
      ...baseEnv(),
      KV_PATH: target,
      ...s3Env(endpoint, "target"),
    });
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, new RegExp(`and ${stored.size} blobs`));

    const restored = createS3BlobStore(s3Options(endpoint, "target"));
    const keys = await Array.fromAsync(listBlobKeys(restored));
    assert.deepEqual(keys.sort(), [...stored.keys()].sort());
    for (const [key, bytes] of stored) assert.deepEqual(await restored.get(key), bytes);
    assert.deepEqual(rawRows(target).map((r) => r.k), rawRows(source).map((r) => r.k));

    const intoKv = await task("restore", file, { ...baseEnv(), KV_PATH: `${dir}/kv.sqlite3` });
    assert.equal(intoKv.code, 0, "blobs from S3 may move into a KV blob store");
    const kvBackup = `${dir}/kv.backup`;
    assert.equal((await task("backup", kvBackup, { ...baseEnv(), KV_PATH: source })).code, 0);
    const refused = await task("restore", kvBackup, {
      ...baseEnv(),
      KV_PATH: `${dir}/other.sqlite3`,
      ...s3Env(endpoint, "target"),
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /keeps its blobs in the KV/);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
