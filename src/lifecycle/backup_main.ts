/**
 * `deno task backup <file>`, `deno task restore <file>` and `deno task import <archive>`: the
 * operator's commands around ./backup.ts and ./org_import.ts. They open the KV and the blob store exactly as the service does (KV_PATH: a
 * SQLite file, or a KV Connect URL with DENO_KV_ACCESS_TOKEN; BLOB_STORE and the S3_*
 * settings), print counts, and exit 0, 1 (failed or refused: one line saying why) or 2 (usage).
 */
import { openBlobStore } from "../blobs/open.ts";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { withKvRetry } from "../store/kv_retry.ts";
import { DEFAULT_MAX_PASSES, listBlobKeys, restoreBackup, writeBackup } from "./backup.ts";
import { type ImportInclude, importOrganization } from "./org_import.ts";

const USAGE = `usage: deno task backup <file> [--max-passes N]
       deno task restore <file>
       deno task import <organization export archive> [--include log|keys-and-log]
The KV and blob store come from the environment, as for the service (KV_PATH, BLOB_STORE, S3_*).
An import writes only the organization's data unless --include lets it write the publication
log and public keys (log) and the private signing keys too (keys-and-log), and then only into
an instance that has never started.`;

/** How the KV at `path` is reached, for the header and the messages. */
export function kvLabel(path: string | undefined): string {
  if (path === undefined) return "default";
  if (path === ":memory:") return "memory";
  return /^https?:\/\//.test(path) ? "remote" : "sqlite";
}

async function openKv(config: Config, mustExist: boolean): Promise<Deno.Kv> {
  const path = config.kvPath;
  if (path && kvLabel(path) === "sqlite") {
    const exists = await Deno.stat(path).then(() => true, () => false);
    if (mustExist && !exists) throw new Error(`no KV database at ${path} (KV_PATH)`);
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
    await Deno.mkdir(dir || "/", { recursive: true });
  }
  return withKvRetry(await Deno.openKv(path));
}

async function backup(config: Config, file: string, maxPasses: number): Promise<void> {
  const kv = await openKv(config, true);
  try {
    const started = performance.now();
    const store = openBlobStore(config, kv);
    const result = await writeBackup({
      kv,
      // With the KV blob store the blobs are KV entries and travel as such.
      blobs: config.blobStore.kind === "s3" ? { store, keys: () => listBlobKeys(store) } : null,
      path: file,
      kvLabel: kvLabel(config.kvPath),
      maxPasses,
      onPass: ({ pass, entries, changed }) =>
        console.error(`listing ${pass}: ${entries} entries, ${changed} changed since the last`),
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `Backup written to ${result.path}: ${result.kvEntries} KV entries, ${result.blobs} blobs ` +
        `(${result.blobBytes} bytes), ${result.bytes} bytes in ${seconds} s; ` +
        `${result.passes} listings, ${result.changedDuringBackup} entries re-read; sha256 ${result.sha256}`,
    );
  } finally {
    kv.close();
  }
}

async function restore(config: Config, file: string): Promise<void> {
  await Deno.stat(file).catch(() => {
    throw new Error(`no backup file at ${file}`);
  });
  const kv = await openKv(config, false);
  try {
    const started = performance.now();
    const result = await restoreBackup({
      kv,
      blobs: openBlobStore(config, kv),
      blobStore: config.blobStore.kind,
      path: file,
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `Restored ${result.kvEntries} KV entries in ${result.commits} atomic commits and ` +
        `${result.blobs} blobs (${result.blobBytes} bytes) from ${file} ` +
        `(taken ${result.header.createdAt}) in ${seconds} s`,
    );
  } finally {
    kv.close();
  }
}

async function importArchive(config: Config, file: string, include: ImportInclude): Promise<void> {
  await Deno.stat(file).catch(() => {
    throw new Error(`no archive at ${file}`);
  });
  const kv = await openKv(config, false);
  try {
    const started = performance.now();
    const result = await importOrganization({
      kv,
      blobs: openBlobStore(config, kv),
      path: file,
      include,
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `Imported organization ${result.manifest.organizationId}: ${result.kvEntries} KV entries in ` +
        `${result.commits} atomic commits and ${result.blobs} blobs, every entry matching its ` +
        `SHA-256 in the manifest, in ${seconds} s` +
        (include === "keys-and-log" && result.manifest.keys
          ? "; with the signing keys and the publication log"
          : include !== "none" && result.manifest.log
          ? "; with the publication log"
          : "; without the publication log"),
    );
  } finally {
    kv.close();
  }
}

/** Runs `backup <file>`, `restore <file>` or `import <archive>`; resolves with the exit code. */
export async function main(args: string[]): Promise<number> {
  const [command, file, ...rest] = args;
  let maxPasses = DEFAULT_MAX_PASSES;
  if (rest[0] === "--max-passes" && /^\d+$/.test(rest[1] ?? "") && Number(rest[1]) >= 2) {
    maxPasses = Number(rest[1]);
    rest.splice(0, 2);
  }
  let include: ImportInclude = "none";
  const flag = rest[0]?.startsWith("--include=") ? rest[0].slice("--include=".length) : null;
  if (command === "import" && (flag !== null || rest[0] === "--include")) {
    const value = flag ?? rest[1];
    if (value !== "log" && value !== "keys-and-log") {
      console.error(USAGE);
      return 2;
    }
    include = value;
    rest.splice(0, flag !== null ? 1 : 2);
  }
  if (
    !file || file.startsWith("-") || rest.length > 0 ||
    !["backup", "restore", "import"].includes(command)
  ) {
    console.error(USAGE);
    return 2;
  }
  try {
    const config = loadConfig(Deno.env.toObject());
    if (command === "backup") await backup(config, file, maxPasses);
    else if (command === "restore") await restore(config, file);
    else await importArchive(config, file, include);
    return 0;
  } catch (error) {
    const message = error instanceof ConfigError
      ? error.message
      : `${command} failed: ${(error as Error).message}`;
    console.error(message);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
