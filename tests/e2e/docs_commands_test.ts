/**
 * Every shell block of README.md and docs/ is run by a test as written. The register below names,
 * for each block (its file and first line), the test that runs it; a block added, changed or
 * moved without its test fails here. This file runs the blocks no other test reads: the start
 * command of README's quickstart, the collector CLI of docs/collector_setup.md, the curl calls
 * of docs/api_access.md, backup and
 * restore of docs/lifecycle.md, the Varnish command of docs/edge.md and the verifier kit's first
 * command in docs/verifier_kit.md, each with only the
 * changes a shared machine needs (a free port for a fixed one, a temporary directory for a fixed
 * path, the test server's URL for the example host), named at each test.
 */
import assert from "node:assert/strict";
import { freshModuleCache } from "../support/served_modules.ts";
import { clockEnv, freePort } from "../support/process.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

interface Block {
  file: string;
  /** The block's lines, indentation removed and `\` continuations joined. */
  lines: string[];
}

/** The `sh` blocks of a Markdown text. */
function shellBlocks(file: string, text: string): Block[] {
  return [...text.matchAll(/^( *)```(?:sh|bash|shell)\n([\s\S]*?)^ *```$/gm)].map((m) => ({
    file,
    lines: m[2].replace(new RegExp(`^${m[1]}`, "gm"), "").replace(/\\\n\s*/g, "").split("\n")
      .filter((line) => line.trim() !== ""),
  }));
}

async function allBlocks(): Promise<Block[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir(`${ROOT}docs`)) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  const blocks: Block[] = [];
  for (const file of files.sort()) {
    blocks.push(...shellBlocks(file, await Deno.readTextFile(`${ROOT}${file}`)));
  }
  return blocks;
}

const key = (block: Block) => `${block.file}: ${block.lines[0]}`;

/** Each block, by its file and first line, and the test that runs it as written. */
const RUN_BY: Record<string, string> = {
  "README.md: npx --yes deno@2.9.6 task start   # serves http://localhost:8000 (data in ./data/kv.sqlite3)":
    "tests/e2e/docs_commands_test.ts",
  "README.md: export BASE_URL=http://localhost:8000 TRUST_PROJECT_ID=… TRUST_COLLECTOR_ID=… TRUST_COLLECTOR_SECRET=…":
    "tests/e2e/readme_quickstart_test.ts",
  "docs/api_access.md: export BASE_URL=https://trust.example.com TRUST_ORGANIZATION_ID=… TRUST_TOKEN=tpat_…   # the token from your secret store":
    "tests/e2e/docs_commands_test.ts",
  "docs/collector_setup.md: export TRUST_PROJECT_ID=… TRUST_COLLECTOR_ID=…   # TRUST_COLLECTOR_SECRET from the CI's secret store":
    "tests/e2e/docs_commands_test.ts",
  "docs/deploy.md: DENO_DEPLOY=true DENO_SERVE_ADDRESS=tcp:127.0.0.1:8000 BASE_URL=http://127.0.0.1:8000 KV_PATH=./data/rehearsal.sqlite3 npx --yes deno@2.5.0 run -A deploy.ts":
    "tests/e2e/readme_deploy_test.ts",
  'docs/edge.md: varnishd -F -a :6081 -f "$PWD/deploy/varnish/default.vcl" -s malloc,256m':
    "tests/e2e/docs_commands_test.ts",
  // fixed-instant: a file name in docs/lifecycle.md's block, not an instant the test uses
  "docs/lifecycle.md: KV_PATH=./data/kv.sqlite3 deno task backup /backups/trust-2026-11-27.backup":
    "tests/e2e/docs_commands_test.ts",
  "docs/verifier_kit.md: deno run --allow-net https://trust.example.com/verify.ts acme":
    "tests/e2e/docs_commands_test.ts",
  "docs/verifier_kit.md: deno run --allow-read verify.ts questionnaire manifest.jws answered.xlsx --jwks jwks.json --version trust-v3.json [--version …] [--pin jwks=<kid>]":
    "tests/http/questionnaires_kit_test.ts (a synopsis: the kit's questionnaire check, not read from the page)",
};

Deno.test("[docs] every shell block of README.md and docs/ has the test that runs it", async () => {
  const shown = (await allBlocks()).map(key);
  const unclaimed = shown.filter((k) => !(k in RUN_BY));
  assert.deepEqual(unclaimed, [], "blocks no test runs: run each in a test and register it here");
  const gone = Object.keys(RUN_BY).filter((k) => !shown.includes(k));
  assert.deepEqual(gone, [], "registered blocks no page shows any more");
  for (const test of new Set(Object.values(RUN_BY).map((by) => by.split(" ")[0]))) {
    assert.ok(await Deno.stat(`${ROOT}${test}`).then(() => true, () => false), test);
  }
});

async function blockOf(file: string, first: RegExp): Promise<string[]> {
  const block = (await allBlocks()).find((b) => b.file === file && first.test(b.lines[0]));
  assert.ok(block, `${file}: no block starting ${first}`);
  return block.lines;
}

/** Environment for bash: Deno on PATH (first, so `deno` is this one), the tests' clock. */
function shellEnv(extra: Record<string, string> = {}): Record<string, string> {
  const denoDir = Deno.env.get("DENO_DIR");
  return {
    PATH: `${Deno.execPath().replace(/\/[^/]+$/, "")}:/usr/sbin:/usr/bin:/bin`,
    HOME: Deno.env.get("HOME") ?? "/root",
    NO_COLOR: "1",
    ...(denoDir ? { DENO_DIR: denoDir } : {}),
    ...clockEnv(),
    ...extra,
  };
}

async function bash(script: string, cwd: string, env: Record<string, string>) {
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Runs `command` in its own process group until `done` says its output is enough, then SIGINT. */
async function runUntil(
  command: string,
  env: Record<string, string>,
  done: (lines: string[]) => boolean,
  check: (lines: string[]) => Promise<void>,
  cwd = ROOT,
): Promise<string[]> {
  const child = new Deno.Command("setsid", {
    args: ["bash", "-c", command],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      lines.push(...chunk.split("\n"));
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const ended: { status: Deno.CommandStatus | null } = { status: null };
  child.status.then((status) => ended.status = status);
  try {
    const deadline = Date.now() + 60_000;
    while (!done(lines)) {
      // A command that ended before it was ready fails at once, with what it printed.
      assert.equal(
        ended.status,
        null,
        `exited (${ended.status?.code}) before it was ready:\n${lines.join("\n")}`,
      );
      assert.ok(Date.now() < deadline, lines.join("\n"));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await check(lines);
  } finally {
    // The group may be gone already (a command that ended by itself).
    const signal = (name: Deno.Signal) => {
      try {
        Deno.kill(-child.pid, name);
      } catch {
        // nothing left to stop
      }
    };
    signal("SIGINT");
    const stopper = setTimeout(() => signal("SIGKILL"), 10_000);
    await child.status;
    clearTimeout(stopper);
    await pumps;
  }
  return lines;
}

Deno.test("[docs] README's start command runs as written: it listens and prints the setup link", async () => {
  const [start] = await blockOf("README.md", /task start/);
  const command = start.replace(/\s+#.*$/, "");
  assert.equal(command, "npx --yes deno@2.9.6 task start");
  // npx stood in by a script that runs this Deno (which is 2.9.6, as the quickstart test checks);
  // PORT and KV_PATH set in the environment, so the shared machine's port 8000 and ./data stay free.
  const bin = await Deno.makeTempDir({ prefix: "docs-bin-" });
  const data = await Deno.makeTempDir({ prefix: "docs-kv-" });
  await Deno.writeTextFile(
    `${bin}/npx`,
    `#!/bin/sh\n[ "$1" = "--yes" ] && [ "$2" = "deno@2.9.6" ] || exit 127\nshift 2\nexec '${Deno.execPath()}' "$@"\n`,
  );
  await Deno.chmod(`${bin}/npx`, 0o755);
  const port = freePort();
  const env = shellEnv({ PORT: String(port), KV_PATH: `${data}/kv.sqlite3` });
  env.PATH = `${bin}:${env.PATH}`;
  try {
    const lines = await runUntil(
      command,
      env,
      (l) => l.some((line) => line.includes("/signup?setup=")),
      async () => {
        const health = await fetch(`http://127.0.0.1:${port}/health`);
        assert.equal(health.status, 200);
        assert.deepEqual(await health.json(), { status: "ok" });
      },
    );
    assert.ok(
      lines.some((l) => l.startsWith("Trust Profile Service listening on")),
      lines.join("\n"),
    );
    assert.ok(lines.some((l) => new RegExp(`http://localhost:${port}/signup\\?setup=`).test(l)));
  } finally {
    await Deno.remove(bin, { recursive: true });
    await Deno.remove(data, { recursive: true });
  }
});

Deno.test("[docs] the curl block of docs/api_access.md runs as written with a read-only token", async () => {
  const lines = await blockOf("docs/api_access.md", /^export BASE_URL=/);
  assert.equal(lines.length, 3, lines.join("\n"));
  await using server = await startTestServer();
  const api = jsonApi(server.baseUrl, await server.tokenFor("alice"));
  await bootstrapAcme(api);
  const me = await api("GET", "/me");
  const organizationId = me.json.organizations[0].id;
  const created = await api("POST", `/organizations/${organizationId}/access-tokens`, {
    name: "docs",
    scope: "read",
    expiresInDays: 7,
  });
  assert.equal(created.status, 201);
  const cwd = await Deno.makeTempDir({ prefix: "docs-api-access-" });
  // The organization's id the page elides (…) filled in, the token left to the environment (as
  // a secret store would set it: the line's own placeholder is replaced by the real one), and
  // the example host replaced by the test server.
  const script = lines.join("\n")
    .replace("TRUST_ORGANIZATION_ID=…", `TRUST_ORGANIZATION_ID=${organizationId}`)
    .replace("TRUST_TOKEN=tpat_…", `TRUST_TOKEN=${created.json.token}`)
    .replaceAll("https://trust.example.com", server.baseUrl);
  try {
    const run = await bash(script, cwd, shellEnv());
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(JSON.parse(run.stdout).projects[0].slug, "acme");
    const archive = await Deno.readFile(`${cwd}/organization-export.zip`);
    assert.deepEqual([...archive.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04], "a ZIP archive");
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("[docs] the collector CLI block of docs/collector_setup.md runs as written", async () => {
  const lines = await blockOf("docs/collector_setup.md", /^export TRUST_PROJECT_ID=/);
  assert.equal(lines.length, 4, lines.join("\n"));
  await using server = await startTestServer();
  const api = jsonApi(server.baseUrl, await server.tokenFor("alice"));
  const projectId = await bootstrapAcme(api);
  const created = await api("POST", `/projects/${projectId}/collectors`, { name: "ci" });
  assert.equal(created.status, 201);
  const cwd = await Deno.makeTempDir({ prefix: "docs-collector-" });
  await Deno.writeTextFile(
    `${cwd}/sbom.cdx.json`,
    JSON.stringify({
      bomFormat: "CycloneDX",
      specVersion: "1.5",
      version: 1,
      components: [{ type: "library", name: "left-pad", version: "1.3.0" }],
    }),
  );
  await Deno.writeTextFile(
    `${cwd}/signals.json`,
    JSON.stringify({
      detectedAt: new Date().toISOString(),
      commitSha: "0123456789abcdef0123456789abcdef01234567",
      ciCd: { detected: true, tools: ["github-actions"] },
      monitoring: { detected: false },
      authProvider: { detected: true, providers: ["auth0"] },
      cloudProvider: { detected: true, providers: ["aws"] },
      securityContact: { detected: true, email: "security@acme.example" },
    }),
  );
  // The ids the page elides (…) filled in, and the example host replaced by the test server.
  const script = lines.join("\n")
    .replace("TRUST_PROJECT_ID=…", `TRUST_PROJECT_ID=${projectId}`)
    .replace("TRUST_COLLECTOR_ID=…", `TRUST_COLLECTOR_ID=${created.json.collector.id}`)
    .replaceAll("https://trust.example.com", server.baseUrl);
  try {
    const run = await bash(
      script,
      cwd,
      shellEnv({ TRUST_COLLECTOR_SECRET: created.json.secret.value, ...freshModuleCache(cwd) }),
    );
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^heartbeat: recorded/m);
    assert.match(run.stdout, /^evidence: stored /m);
    assert.match(run.stdout, /^ {2}sbom\.cdx\.json: read \(format cyclonedx\)/m);
    assert.match(run.stdout, /^signals: recorded$/m);
    assert.ok(!run.stdout.includes(created.json.secret.value), "the secret is never printed");
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("[docs] backup and restore of docs/lifecycle.md run as written", async () => {
  const lines = await blockOf("docs/lifecycle.md", /deno task backup/);
  assert.equal(lines.length, 2, lines.join("\n"));
  const dir = await Deno.makeTempDir({ prefix: "docs-backup-" });
  // A small KV to back up, at the place the block's ./data/kv.sqlite3 becomes.
  const source = await Deno.openKv(`${dir}/kv.sqlite3`);
  const entries: Array<[Deno.KvKey, unknown]> = [
    [["organizations", "o1"], { name: "Acme", slug: "acme" }],
    [["counters", "c"], new Deno.KvU64(7n)],
    [["blobs", "b", 0], new Uint8Array([1, 2, 3])],
  ];
  for (const [k, value] of entries) await source.set(k, value);
  source.close();
  // The fixed paths (./data/ under the repository, /backups/) moved into a temporary directory.
  const script = lines.join("\n").replaceAll("./data/", `${dir}/`).replaceAll(
    "/backups/",
    `${dir}/`,
  );
  try {
    const run = await bash(script, ROOT, shellEnv());
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const restored = await Deno.openKv(`${dir}/restored.sqlite3`);
    try {
      const got = [];
      for await (const entry of restored.list({ prefix: [] })) got.push([entry.key, entry.value]);
      assert.equal(got.length, entries.length);
      for (const [k, value] of entries) {
        assert.deepEqual((await restored.get(k)).value, value, JSON.stringify(k));
      }
    } finally {
      restored.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[docs] the Varnish command of docs/edge.md runs as written", async () => {
  const [command] = await blockOf("docs/edge.md", /^varnishd /);
  // Port 6081 becomes a free one, and the working directory (-n, by default one per host name
  // under /var/lib/varnish, where another varnishd or a killed run's files may be) a temporary
  // one: this machine is shared.
  const port = freePort();
  const parent = await Deno.makeTempDir({ prefix: "docs-varnish-" });
  // varnishd started as root runs its compiler and cache process as other users, who must
  // read the VCL: the command runs from a readable copy of the file's folders (a checkout in a
  // private directory, as `mktemp -d` makes, is not), with the same relative path.
  await Deno.chmod(parent, 0o755);
  const checkout = `${parent}/checkout`;
  await Deno.mkdir(`${checkout}/deploy/varnish`, { recursive: true });
  await Deno.copyFile(
    `${ROOT}deploy/varnish/default.vcl`,
    `${checkout}/deploy/varnish/default.vcl`,
  );
  for (const path of [checkout, `${checkout}/deploy`, `${checkout}/deploy/varnish`]) {
    await Deno.chmod(path, 0o755);
  }
  await Deno.chmod(`${checkout}/deploy/varnish/default.vcl`, 0o644);
  const shown = command.replace("-a :6081", `-a 127.0.0.1:${port} -n ${parent}/work`);
  assert.notEqual(shown, command, "the block listens on :6081");
  await using _workdir = { [Symbol.asyncDispose]: () => Deno.remove(parent, { recursive: true }) };
  await runUntil(
    shown,
    shellEnv(),
    (lines) => lines.some((l) => l.includes("Child launched OK")),
    async () => {
      // Varnish answers on the port; the service is not running behind it, so the answer is
      // Varnish's own (a fetch from 127.0.0.1:8000 that fails, or whatever answers there).
      const deadline = Date.now() + 10_000;
      let answer: Response | undefined;
      while (!answer) {
        answer = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
        if (!answer) {
          assert.ok(Date.now() < deadline, "varnish does not answer");
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      await answer.body?.cancel();
      assert.ok(answer.headers.get("via")?.includes("varnish"), [...answer.headers].join("\n"));
    },
    checkout,
  );
});

Deno.test("[docs] the verifier kit's command of docs/verifier_kit.md runs as written", async () => {
  const [command] = await blockOf("docs/verifier_kit.md", /verify\.ts acme$/);
  await using server = await startTestServer();
  const api = jsonApi(server.baseUrl, await server.tokenFor("alice"));
  const projectId = await bootstrapAcme(api);
  assert.equal((await api("POST", `/projects/${projectId}/publish`)).status, 201);
  const cwd = await Deno.makeTempDir({ prefix: "docs-verify-" });
  try {
    // The example host replaced by the test server; the project's slug is acme, as on the page.
    const run = await bash(
      command.replace("https://trust.example.com", server.baseUrl),
      cwd,
      shellEnv(freshModuleCache(cwd)),
    );
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^VERIFIED/m);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
