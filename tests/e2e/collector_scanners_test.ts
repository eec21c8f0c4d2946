/**
 * The scanners vendors already run, through the collector CLI as a pipeline runs it: a
 * real `npm audit --json` report (tests/fixtures/npm-audit, from npm 11 against a local
 * registry fixture) makes the vulnerability control pass, then fail, with the counts npm's
 * advisories give; Yarn's line-per-advisory output goes as one document; and a report the
 * service cannot read exits 4 naming the closest format.
 */
import assert from "node:assert/strict";
import { freshModuleCache } from "../support/served_modules.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";

const FIXTURES = new URL("../fixtures/", import.meta.url);

Deno.test("[e2e] collector CLI: npm audit --json passes, then fails, the vulnerability control", async (t) => {
  await using server = await startTestServer();
  const token = await server.tokenFor("alice");
  const api = jsonApi(server.baseUrl, token);
  const projectId = await bootstrapAcme(api);
  const created = await api("POST", `/projects/${projectId}/collectors`, { name: "ci" });
  const secret: string = created.json.secret.value;
  const dir = await Deno.makeTempDir();
  const cli = async (args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-lock",
        "--no-config",
        "--quiet",
        "--allow-net=127.0.0.1",
        "--allow-env",
        `--allow-read=${dir}`,
        `--allow-import=127.0.0.1:${server.port}`,
        `${server.baseUrl}/collector.ts`,
        ...args,
      ],
      cwd: dir,
      env: {
        ...freshModuleCache(dir),
        TRUST_COLLECTOR_SECRET: secret,
        TRUST_COLLECTOR_ID: created.json.collector.id,
        TRUST_PROJECT_ID: projectId,
        NO_COLOR: "1",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
    return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
  };
  const control = async () => {
    const res = await api("POST", `/projects/${projectId}/evaluations/recompute`);
    assert.equal(res.status, 200);
    return res.json.evaluations.find((e: { control: { key: string } }) =>
      e.control.key === "evidence.vulnerability_scan"
    ) as { state: string; reason: string };
  };
  const latestReading = async () => {
    const res = await api(
      "GET",
      `/projects/${projectId}/evidence?evidenceType=vulnerability_scan&limit=1`,
    );
    return res.json.records[0].reading as { format: string; understood: boolean };
  };
  const copy = (from: string, to: string) => Deno.copyFile(new URL(from, FIXTURES), `${dir}/${to}`);

  try {
    await copy("npm-audit/acme-web-omit-dev.json", "npm-audit-prod.json");
    await copy("npm-audit/acme-web.json", "npm-audit.json");
    await copy("yarn-audit/acme-web.ndjson", "yarn-audit.json");

    await t.step("npm audit --omit=dev --json: one low advisory, the control passes", async () => {
      const run = await cli(["evidence", "--type", "vulnerability_scan", "npm-audit-prod.json"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^evidence: stored [0-9a-f-]{36}$/m);
      assert.match(
        run.stdout,
        /\n {2}control Vulnerability scan \(evidence\.vulnerability_scan\): .*pass/,
      );
      const reading = await latestReading();
      assert.equal(reading.format, "npm-audit");
      assert.equal(reading.understood, true);
      const evaluation = await control();
      assert.equal(evaluation.state, "pass");
      assert.equal(
        evaluation.reason,
        "npm audit report: 0 critical, 0 high, 0 medium, 1 low (1 more package vulnerable " +
          "only through a dependency, whose advisories are counted there) (counted per advisory " +
          "in each package; npm audit's own summary counts vulnerable packages: 2 low); " +
          "no finding above medium",
      );
    });

    await t.step("npm audit --json with the dev dependency: two high advisories fail", async () => {
      const run = await cli(["evidence", "--type", "vulnerability_scan", "npm-audit.json"]);
      assert.equal(run.code, 0, run.stderr);
      const evaluation = await control();
      assert.equal(evaluation.state, "fail");
      assert.match(
        evaluation.reason,
        /^npm audit report: 0 critical, 2 high, 0 medium, 1 low \(.*\); 2 above medium$/,
      );
    });

    await t.step("yarn npm audit --json: its lines go as one document, and fail", async () => {
      const run = await cli(["evidence", "--type", "vulnerability_scan", "yarn-audit.json"]);
      assert.equal(run.code, 0, run.stderr);
      const reading = await latestReading();
      assert.equal(reading.format, "yarn-audit");
      assert.equal(reading.understood, true);
      const evaluation = await control();
      assert.equal(evaluation.state, "fail");
      assert.match(evaluation.reason, /^Yarn audit report: 0 critical, 2 high, 0 medium, 1 low;/);
    });

    await t.step("a report nobody reads exits 4, naming the closest format", async () => {
      await Deno.writeTextFile(`${dir}/npm6.json`, JSON.stringify({ actions: [], advisories: {} }));
      const run = await cli(["evidence", "--type", "vulnerability_scan", "npm6.json"]);
      assert.equal(run.code, 4, run.stderr);
      assert.match(
        run.stderr,
        /npm6\.json: .*closest supported format: pnpm audit JSON \(npm's v1 report\), produced by: pnpm audit --json/,
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
