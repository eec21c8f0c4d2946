/**
 * The collector CLI as a pipeline runs it: Deno loads /collector.ts from the
 * running service and executes it in its own process, with the secret in the
 * environment.
 */
import assert from "node:assert/strict";
import { freshModuleCache } from "../support/served_modules.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";

/** An instant an hour before now, to the second: evidence that is fresh whatever day the test runs. */
const anHourAgo = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000).toISOString();
/** An instant a year after now: evidence from the future, refused whatever day the test runs. */
const aYearAhead = new Date(Date.now() + 366 * 86_400_000).toISOString();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

Deno.test("[e2e] collector CLI served at /collector.ts: heartbeat, evidence, signals", async (t) => {
  await using server = await startTestServer();
  const token = await server.tokenFor("alice");
  const api = jsonApi(server.baseUrl, token);
  const projectId = await bootstrapAcme(api);
  const created = await api("POST", `/projects/${projectId}/collectors`, { name: "ci" });
  const collectorId: string = created.json.collector.id;
  const secret: string = created.json.secret.value;

  const dir = await Deno.makeTempDir();
  const runs: Run[] = [];
  const cli = async (
    args: string[],
    options: { env?: Record<string, string>; stdin?: string } = {},
  ): Promise<Run> => {
    const child = new Deno.Command(Deno.execPath(), {
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
        TRUST_COLLECTOR_ID: collectorId,
        TRUST_PROJECT_ID: projectId,
        NO_COLOR: "1",
        ...options.env,
      },
      stdin: options.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (options.stdin !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(options.stdin));
      await writer.close();
    }
    const out = await child.output();
    const run = {
      code: out.code,
      stdout: new TextDecoder().decode(out.stdout).trim(),
      stderr: new TextDecoder().decode(out.stderr).trim(),
    };
    runs.push(run);
    return run;
  };
  const evidence = async (type?: string) => {
    const query = type ? `?evidenceType=${type}&limit=100` : "?limit=100";
    const pages: unknown[] = [];
    let cursor = "";
    do {
      const page = await api("GET", `/projects/${projectId}/evidence${query}${cursor}`);
      pages.push(...page.json.records);
      cursor = page.json.nextCursor ? `&cursor=${encodeURIComponent(page.json.nextCursor)}` : "";
    } while (cursor);
    return pages as Array<{ id: string; evidenceType: string; sourceRef: string }>;
  };

  try {
    await t.step("the module is served as TypeScript with a strong ETag", async () => {
      const res = await fetch(`${server.baseUrl}/collector.ts`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^application\/typescript/);
      const etag = res.headers.get("etag")!;
      // fetch accepts gzip and br: the module comes compressed, its ETag naming the coding.
      assert.match(etag, /^"[0-9a-f]{32}(\.br|\.gz)?"$/);
      const source = await res.text();
      assert.equal(
        source,
        await Deno.readTextFile(new URL("../../src/cli/collector.ts", import.meta.url)),
      );
      const again = await fetch(`${server.baseUrl}/collector.ts`, {
        headers: { "if-none-match": etag },
      });
      assert.equal(again.status, 304);
      await again.body?.cancel();
    });

    await t.step("help names the module it was loaded from", async () => {
      const run = await cli(["help"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stdout,
        new RegExp(`deno run .* ${server.baseUrl}/collector\\.ts <command>`),
      );
    });

    await t.step("heartbeat reaches the service it was loaded from", async () => {
      const run = await cli(["heartbeat", "--source-ref", "ci"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^heartbeat: recorded at \d{4}-\d\d-\d\dT/);
      const listed = await api("GET", `/projects/${projectId}/collectors`);
      assert.ok(listed.json.collectors[0].lastSeenAt);
    });

    const sbom = {
      bomFormat: "CycloneDX",
      specVersion: "1.5",
      components: [{ name: "x", version: "1" }],
    };
    await Deno.writeTextFile(`${dir}/sbom.json`, JSON.stringify(sbom));
    let first = "";
    await t.step("evidence from a file; the same observation again is recognized", async () => {
      const args = [
        "evidence",
        "--type",
        "sbom",
        "--observed-at",
        anHourAgo,
        "sbom.json",
      ];
      const run = await cli(args);
      assert.equal(run.code, 0, run.stderr);
      const match = run.stdout.match(/^evidence: stored ([0-9a-f-]{36})$/m);
      assert.ok(match, run.stdout);
      first = match[1];
      const [reading, control, ...rest] = run.stdout.split("\n").slice(1);
      assert.equal(
        reading,
        "  sbom.json: read (format cyclonedx): CycloneDX 1.5 document listing 1 component",
      );
      // The worker may have stored the control's first evaluation (unknown) already.
      assert.match(
        control,
        /^ {2}control Software bill of materials \(evidence\.sbom\): (not evaluated|unknown) -> pass$/,
      );
      assert.deepEqual(rest, []);
      const replay = await cli(args);
      assert.equal(replay.code, 0, replay.stderr);
      assert.equal(replay.stdout.split("\n")[0], `evidence: already stored ${first}`);
      const records = await evidence("sbom");
      assert.deepEqual(records.map((r) => r.id), [first]);
      assert.equal(records[0].sourceRef, "cli");
      const payload = await fetch(
        `${server.baseUrl}/projects/${projectId}/evidence/${first}/payload`,
        {
          headers: { authorization: `Bearer ${token}` },
        },
      );
      assert.deepEqual(await payload.json(), sbom);
    });

    await t.step("150 files go in two batches; --json prints the service's answers", async () => {
      const files = [];
      for (let i = 0; i < 150; i++) {
        await Deno.writeTextFile(
          `${dir}/policy-${i}.json`,
          JSON.stringify({ passed: true, run: i }),
        );
        files.push(`policy-${i}.json`);
      }
      const run = await cli([
        "evidence",
        "--type",
        "policy_result",
        "--source-ref",
        "opa",
        ...files,
      ]);
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout.split("\n");
      assert.deepEqual(lines.filter((line) => line.startsWith("evidence: ")), [
        "evidence: records 1-100 of 150 stored",
        "evidence: records 101-150 of 150 stored",
      ]);
      assert.equal(lines.filter((line) => / policy-\d+\.json: read /.test(line)).length, 150);
      const controls = lines.filter((line) => line.startsWith("  control "));
      assert.equal(controls.length, 1);
      assert.match(
        controls[0],
        /^ {2}control Policy checks \(evidence\.policy_result\): (not evaluated|unknown) -> pass$/,
      );
      assert.equal((await evidence("policy_result")).length, 150);
      const json = await cli([
        "evidence",
        "--type",
        "policy_result",
        "--json",
        "policy-0.json",
        "policy-1.json",
      ]);
      assert.equal(json.code, 0, json.stderr);
      assert.equal(JSON.parse(json.stdout).records.length, 2);
    });

    await t.step("stdin is read with -", async () => {
      const run = await cli(["evidence", "--type", "vulnerability_scan", "-"], {
        stdin: JSON.stringify({ summary: { critical: 0, high: 0, medium: 1, low: 3 } }),
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal((await evidence("vulnerability_scan")).length, 1);
    });

    await t.step("signals", async () => {
      await Deno.writeTextFile(
        `${dir}/signals.json`,
        JSON.stringify({
          detectedAt: anHourAgo,
          commitSha: "0123abc",
          ciCd: { detected: true, tools: ["github_actions"] },
          monitoring: { detected: false },
          authProvider: { detected: true, providers: ["okta"] },
          cloudProvider: { detected: true, providers: ["aws"] },
          securityContact: { detected: true, email: "security@acme.example" },
        }),
      );
      const run = await cli(["signals", "signals.json"]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "signals: recorded");
      const latest = await (await fetch(`${server.baseUrl}/trust/acme/signals`)).json();
      assert.equal(latest.signals.commitSha, "0123abc");
    });

    await t.step(
      "conftest's array is evidence; a document nobody understands exits 4",
      async () => {
        const fixtures = new URL("../fixtures/", import.meta.url);
        await Deno.copyFile(
          new URL("conftest/deployment-failures.json", fixtures),
          `${dir}/c.json`,
        );
        await Deno.copyFile(new URL("trivy/secrets.json", fixtures), `${dir}/trivy.json`);
        const conftest = await cli(["evidence", "--type", "policy_result", "c.json"]);
        assert.equal(conftest.code, 0, conftest.stderr);
        const [policy] = await evidence("policy_result");
        assert.equal(
          (policy as unknown as { reading: { format: string } }).reading.format,
          "conftest",
        );

        const scan = ["evidence", "--type", "vulnerability_scan", "trivy.json"];
        const refused = await cli(scan);
        assert.equal(refused.code, 4, refused.stderr);
        assert.match(refused.stdout, /^evidence: stored [0-9a-f-]{36}$/m);
        assert.match(refused.stdout, /^ {2}trivy\.json: not understood: .*no vulnerability scan/m);
        assert.match(refused.stderr, /did not understand 1 vulnerability_scan document/);
        assert.match(refused.stderr, /trivy\.json: .*no vulnerability scanning in this report/);
        const allowed = await cli([...scan, "--allow-unrecognized"]);
        assert.equal(allowed.code, 0, allowed.stderr);
        assert.match(allowed.stdout, /^evidence: stored [0-9a-f-]{36}$/m);
      },
    );

    await t.step("refusals and mistakes: exit status, one clear line, nothing stored", async () => {
      const before = (await evidence()).length;
      await Deno.writeTextFile(`${dir}/broken.json`, "{ not json");
      const cases: Array<[string[], Record<string, string>, number, RegExp]> = [
        [
          ["heartbeat"],
          { TRUST_COLLECTOR_SECRET: `tpc_${"x".repeat(43)}` },
          1,
          /401 unauthorized: The collector secret is not valid/,
        ],
        [["heartbeat"], { TRUST_COLLECTOR_SECRET: "" }, 2, /TRUST_COLLECTOR_SECRET/],
        [["evidence", "--type", "sbom", "broken.json"], {}, 2, /broken\.json is not JSON/],
        [["evidence", "--type", "sbom", "missing.json"], {}, 2, /Cannot read missing\.json/],
        [
          ["evidence", "--type", "sbom", "sbom.json"],
          { TRUST_PROJECT_ID: crypto.randomUUID() },
          1,
          /403 forbidden: This collector belongs to another project/,
        ],
        [
          ["evidence", "--type", "sbom", "--observed-at", aYearAhead, "sbom.json"],
          {},
          1,
          /400 validation_failed: .*future/,
        ],
      ];
      for (const [args, env, code, message] of cases) {
        const run = await cli(args, { env });
        assert.equal(run.code, code, `${args.join(" ")}: ${run.stderr}`);
        assert.match(run.stderr, message, args.join(" "));
        assert.equal(run.stdout, "");
      }
      assert.equal((await evidence()).length, before);
    });

    await t.step("a service that cannot be reached: exit 3 after the retries", async () => {
      const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (probe.addr as Deno.NetAddr).port;
      probe.close();
      const run = await cli([
        "heartbeat",
        "--retries",
        "0",
        "--server",
        `http://127.0.0.1:${port}`,
      ]);
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /Cannot reach http:\/\/127\.0\.0\.1:\d+: .*after 1 attempts/);
    });

    await t.step("the project's setup guide: its CLI commands work as written", async () => {
      const guide = await (await fetch(`${server.baseUrl}/projects/${projectId}/setup.md`, {
        headers: { authorization: `Bearer ${token}` },
      })).text();
      assert.ok(guide.includes(`TRUST_PROJECT_ID=${projectId}`));
      assert.ok(guide.includes(`TRUST_COLLECTOR_ID=${collectorId}`));
      assert.ok(!guide.includes(secret), "the guide never holds the secret");
      const block = guide.split("## With the collector CLI")[1].split("```sh\n")[1].split("```")[0];
      assert.match(block, new RegExp(`${server.baseUrl}/collector\\.ts heartbeat`));
      await Deno.writeTextFile(`${dir}/sbom.cdx.json`, JSON.stringify({ ...sbom, version: 2 }));
      await Deno.mkdir(`${dir}/results`);
      for (const name of ["unit", "lint"]) {
        await Deno.writeTextFile(
          `${dir}/results/${name}.json`,
          JSON.stringify({ passed: true, name }),
        );
      }
      const before = (await evidence()).length;
      const bin = Deno.execPath().slice(0, Deno.execPath().lastIndexOf("/"));
      const out = await new Deno.Command("bash", {
        args: ["-euo", "pipefail", "-c", block],
        cwd: dir,
        // Only what a CI job has: the secret from its store, and deno on the PATH.
        env: {
          TRUST_COLLECTOR_SECRET: secret,
          PATH: `${bin}:/usr/bin:/bin`,
          NO_COLOR: "1",
          ...freshModuleCache(dir),
        },
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      runs.push({ code: out.code, stdout, stderr: new TextDecoder().decode(out.stderr) });
      assert.equal(out.code, 0, runs.at(-1)!.stderr);
      assert.match(
        stdout,
        /^heartbeat: recorded at .*\nevidence: stored .*\n( {2}.*\n)+evidence: records 1-2 of 2 stored\n( {2}.*\n)+$/,
      );
      assert.equal((await evidence()).length, before + 3);
    });

    await t.step("the secret never appears in any output", () => {
      for (const run of runs) {
        assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret));
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
