/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance,
 * pinned) against the running server, one scenario per subprocess. Deno
 * fetches the package on first use, so a fresh machine needs nothing
 * installed by hand; --no-config/--no-lock keep the project's lockfile out
 * of it, and every run is bounded by a timeout.
 */
import assert from "node:assert/strict";
import { startPublishedServer } from "./_published.ts";

const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";
const SCENARIO_TIMEOUT_MS = 180_000;

/** The scenarios that apply to a read-only, stateless server (see the README of the suite). */
const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "tools-call-error",
  "dns-rebinding-protection",
];

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | string;
  errorMessage?: string;
}

async function readChecks(dir: string): Promise<Check[]> {
  const checks: Check[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) checks.push(...await readChecks(path));
    else if (entry.name === "checks.json") {
      checks.push(...JSON.parse(await Deno.readTextFile(path)));
    }
  }
  return checks;
}

async function runScenario(url: string, scenario: string) {
  const dir = await Deno.makeTempDir({ prefix: "mcp-conformance-" });
  try {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-config",
        "--no-lock",
        CONFORMANCE,
        "server",
        "--url",
        url,
        "--scenario",
        scenario,
        "--output-dir",
        dir,
      ],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(SCENARIO_TIMEOUT_MS),
    }).output();
    const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    return { code, output, checks: await readChecks(dir) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("[mcp] the MCP conformance suite passes its server scenarios", async (t) => {
  await using fixture = await startPublishedServer();
  const url = `${fixture.server.baseUrl}/mcp`;
  for (const scenario of SCENARIOS) {
    await t.step(scenario, async () => {
      const { code, output, checks } = await runScenario(url, scenario);
      const failed = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
      assert.deepEqual(failed.map((c) => `${c.id}: ${c.errorMessage}`), [], output);
      assert.ok(checks.some((c) => c.status === "SUCCESS"), output);
      assert.equal(code, 0, output);
    });
  }
});
