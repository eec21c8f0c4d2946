/**
 * SIGSTORE_TRUSTED_ROOT: the trusted root the service verifies signed evidence against.
 * A path that cannot be read, a file that is not JSON, or a document that is not a
 * Sigstore trusted root stops start-up with one line naming the variable.
 */
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { freePort, startService } from "../support/process.ts";

const ROOT_PATH = new URL("../fixtures/sigstore/trusted_root.public-good.json", import.meta.url)
  .pathname;

Deno.test("[config] SIGSTORE_TRUSTED_ROOT reads the trusted root document", () => {
  assert.equal(loadConfig({}).sigstoreTrustedRoot, null);
  const config = loadConfig({ SIGSTORE_TRUSTED_ROOT: ROOT_PATH });
  assert.deepEqual(config.sigstoreTrustedRoot, JSON.parse(Deno.readTextFileSync(ROOT_PATH)));
});

Deno.test("[config] SIGSTORE_TRUSTED_ROOT: an unreadable or non-JSON file is one clear error", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/text.json`, "not json");
    await Deno.writeTextFile(`${dir}/array.json`, "[]");
    const rows = [
      { path: `${dir}/missing.json`, message: /: cannot read ".*missing\.json": no such file$/ },
      { path: `${dir}/text.json`, message: /: ".*text\.json" is not JSON$/ },
      { path: `${dir}/array.json`, message: /: ".*array\.json" is not a JSON object$/ },
    ];
    for (const { path, message } of rows) {
      await t.step(path.slice(dir.length + 1), () => {
        assert.throws(() => loadConfig({ SIGSTORE_TRUSTED_ROOT: path }), (error) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, /^Invalid configuration: SIGSTORE_TRUSTED_ROOT: /);
          assert.match(error.message, message);
          return true;
        });
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[e2e] start: a SIGSTORE_TRUSTED_ROOT that is not a trusted root stops start-up with one line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/root.json`, JSON.stringify({ mediaType: "text/plain" }));
    const service = startService({
      PORT: String(freePort()),
      KV_PATH: `${dir}/kv.sqlite3`,
      SIGSTORE_TRUSTED_ROOT: `${dir}/root.json`,
    });
    const status = await service.exited();
    assert.equal(status.code, 1);
    const output = service.lines.filter((l) => l.trim() && !l.includes("Download"));
    assert.deepEqual(output, [
      'Invalid configuration: SIGSTORE_TRUSTED_ROOT: mediaType "text/plain" is not a Sigstore trusted root',
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
