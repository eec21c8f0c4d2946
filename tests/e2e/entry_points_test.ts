/**
 * Every entry point loaded the way its host runs it: `deno task start` (main.ts), deploy.ts as
 * Deno Deploy runs it (Deno 2.5.0 and the README's 2.9.6, `--allow-all`, DENO_DEPLOY=true, its
 * default KV database, its cron), and the two CLIs the service hands out, fetched from a
 * running service by `deno run` as users run them.
 */
import assert from "node:assert/strict";
import { freshModuleCache } from "../support/served_modules.ts";
import {
  DEPLOY_DENO_VERSION,
  README_DENO_VERSION,
  startDeployHost,
} from "../support/deploy_host.ts";
import { freePort } from "../support/process.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Collects a child's output lines; `waitFor` is bounded. */
function outputOf(child: Deno.ChildProcess) {
  const lines: string[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      lines.push(...chunk.split("\n"));
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  return {
    lines,
    pumps,
    async waitFor(pattern: RegExp, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const line = lines.find((l) => pattern.test(l));
        if (line !== undefined) return line;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`Timed out waiting for ${pattern}:\n${lines.join("\n")}`);
    },
  };
}

Deno.test("[e2e] entry points: deno task start answers /health and serves both CLIs", async (t) => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "start"],
    cwd: ROOT,
    env: { PORT: String(port), KV_PATH: `${dir}/kv.sqlite3`, BASE_URL: base, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = outputOf(child);
  try {
    await t.step("deno task start: /health", async () => {
      await output.waitFor(/^Trust Profile Service listening on /);
      const res = await fetch(`${base}/health`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { status: "ok" });
    });

    for (const [cli, usage] of [["collector.ts", /heartbeat/], ["verify.ts", /verif/i]] as const) {
      await t.step(`deno run ${base}/${cli} --help: usage, exit 0`, async () => {
        // From a directory of its own, as in a user's pipeline (no deno.json, no lockfile).
        const run = await new Deno.Command(Deno.execPath(), {
          args: ["run", "--allow-net", "--allow-env", "--allow-read", `${base}/${cli}`, "--help"],
          cwd: dir,
          env: { NO_COLOR: "1", ...freshModuleCache(dir) },
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const stdout = new TextDecoder().decode(run.stdout);
        const stderr = new TextDecoder().decode(run.stderr);
        assert.equal(run.code, 0, `${stdout}\n${stderr}`);
        assert.match(stdout, /usage/i);
        assert.match(stdout, usage);
      });
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await output.pumps;
    await Deno.remove(dir, { recursive: true });
  }
});

for (const version of [DEPLOY_DENO_VERSION, README_DENO_VERSION]) {
  Deno.test(`[e2e] entry points: deploy.ts on Deno ${version} as Deno Deploy runs it`, async (t) => {
    await using host = await startDeployHost({ denoVersion: version });
    await t.step("its cron is registered at the top level without an error", async () => {
      const res = await fetch(`${host.url}/health`).catch((error) => {
        throw new Error(`No answer (${error.message}); output:\n${host.lines.join("\n")}`);
      });
      assert.equal(res.status, 200, await res.clone().text());
      assert.deepEqual(await res.json(), { status: "ok" });
      assert.ok(
        host.lines.includes("deploy-emulation: cron registered run due jobs"),
        host.lines.join("\n"),
      );
      assert.ok(!host.lines.some((l) => /Invalid cron|error/i.test(l)), host.lines.join("\n"));
    });

    await t.step("a cron tick runs its handler to the end", async () => {
      const { lines } = await host.tick();
      assert.equal(lines.length, 1, lines.join("\n"));
      assert.match(lines[0], /^deploy-emulation: cron tick done run due jobs \d+$/);
      assert.equal(host.starts, 1, "the tick ran in the running process");
    });

    await t.step("the cron handler also runs in a fresh process started for it", async () => {
      await host.idleNow();
      const { lines, process } = await host.tick();
      assert.match(lines[0], /^deploy-emulation: cron tick done run due jobs \d+$/);
      assert.ok(process.forCron);
      assert.equal(host.starts, 2);
      assert.equal(host.sigkills, 0, "stopped within 5 s of SIGINT");
    });
  });
}

Deno.test("[e2e] entry points: deploy.ts on Deno Deploy without BASE_URL says so in one line", async () => {
  await using host = await startDeployHost({ baseUrl: null });
  let status = 0;
  let body = "";
  try {
    const res = await fetch(`${host.url}/health`);
    status = res.status;
    body = await res.text();
  } catch {
    // The process ended without answering: not healthy either.
  }
  const line = await host.waitFor(/BASE_URL/);
  assert.match(line, /^Invalid configuration: BASE_URL: /);
  const naming = host.lines.filter((l) => l.includes("BASE_URL"));
  assert.equal(naming.length, 1, naming.join("\n"));
  assert.notEqual(status, 200, body);
  // The lead's choice: every request is answered 503 with the reason.
  assert.equal(status, 503, body);
  assert.match(JSON.parse(body).error.message, /BASE_URL/);
  // Deploy discovers crons by evaluating the module: the registration still happens.
  assert.ok(host.lines.includes("deploy-emulation: cron registered run due jobs"));
});
