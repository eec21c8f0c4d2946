/**
 * The repository's own hygiene, so `deno task test` fails on it too.
 */
import assert from "node:assert/strict";

async function run(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: new URL("..", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

Deno.test("[quality] sources are formatted (deno fmt --check)", async () => {
  const { code, text } = await run(["fmt", "--check"]);
  assert.equal(code, 0, text);
});

Deno.test("[quality] sources pass deno lint", async () => {
  const { code, text } = await run(["lint"]);
  assert.equal(code, 0, text);
});

Deno.test("[quality] deno.lock holds the runtime packages only, at the versions tests use", async () => {
  const read = async (path: string) =>
    JSON.parse(await Deno.readTextFile(new URL(path, import.meta.url))) as {
      specifiers: Record<string, string>;
      npm: Record<string, unknown>;
    };
  const runtime = await read("../deno.lock");
  const tests = await read("./deno.lock");
  const deps = await Deno.readTextFile(new URL("./deps.ts", import.meta.url));
  const testOnly = [...deps.matchAll(/"npm:((?:@[^/@"]+\/)?[^@"]+)@/g)].map((m) => m[1]);
  assert.ok(testOnly.includes("playwright-core"), "tests/deps.ts names the test packages");
  for (const name of testOnly) {
    assert.ok(
      !Object.keys(runtime.specifiers).some((spec) => spec.startsWith(`npm:${name}@`)),
      `deno.lock names ${name}: run tests through deno task (they use tests/deno.lock)`,
    );
  }
  for (const name of ["playwright-core", "oidc-provider", "s3rver"]) {
    assert.ok(
      !Object.keys(runtime.npm).some((key) => key.startsWith(`${name}@`)),
      `deno.lock has no ${name}: \`deno task start\` would download it`,
    );
  }
  for (const [spec, version] of Object.entries(runtime.specifiers)) {
    assert.equal(tests.specifiers[spec], version, `${spec} resolves alike in both lockfiles`);
  }
});

Deno.test("[quality] the README reads on any screen: no line over 120 characters", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const long = readme.split("\n").map((line, i) => ({ line, number: i + 1 }))
    .filter(({ line }) => line.length > 120).map(({ number, line }) => `${number}: ${line}`);
  assert.deepEqual(long, []);
});
