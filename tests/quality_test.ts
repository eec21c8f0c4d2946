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
