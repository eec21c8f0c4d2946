/**
 * The project's setup guide, run as written against a live service: every shell block with
 * bash, curl and jq (1.6, which Debian 12 ships, and 1.7.1), the GitHub Actions workflow through
 * actionlint and then its `run` steps, and the GitLab jobs' scripts. Each runs with only what a
 * CI job has: the secret in TRUST_COLLECTOR_SECRET, and the tools on the PATH.
 */
import assert from "node:assert/strict";
import { loadActionlint, parseYaml } from "../deps.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";

const SBOM = {
  bomFormat: "CycloneDX",
  specVersion: "1.5",
  version: 1,
  components: [{ type: "library", name: "left-pad", version: "1.3.0" }],
};
const DENO_BIN = Deno.execPath().slice(0, Deno.execPath().lastIndexOf("/"));
const JQ17 = new URL("../support/jq17.ts", import.meta.url).pathname;
const LOCK = new URL("../deno.lock", import.meta.url).pathname;

/** The fenced blocks of `markdown` in language `lang`, in order. */
function fencedBlocks(markdown: string, lang: string): string[] {
  const fence = new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```$", "gm");
  return [...markdown.matchAll(fence)].map((m) => m[1]);
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `script` with bash in `cwd`, with exactly `env` (no variable of this process leaks in). */
async function bash(
  script: string,
  options: { cwd: string; env: Record<string, string>; flags?: string[] },
): Promise<Run> {
  const out = await new Deno.Command("bash", {
    args: [...(options.flags ?? ["-euo", "pipefail"]), "-c", script],
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** A directory as a build leaves it: an SBOM and two test results. */
async function buildOutput(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "guide-run-" });
  await Deno.writeTextFile(`${dir}/sbom.cdx.json`, JSON.stringify(SBOM));
  await Deno.mkdir(`${dir}/results`);
  for (const name of ["unit", "lint"]) {
    await Deno.writeTextFile(`${dir}/results/${name}.json`, JSON.stringify({ passed: true, name }));
  }
  return dir;
}

/** A PATH directory holding `jq`: Debian's jq 1.6, or jq 1.7.1 through tests/support/jq17.ts. */
async function jqDirectory(version: "1.6" | "1.7"): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: `jq-${version}-` });
  if (version === "1.6") {
    await Deno.symlink("/usr/bin/jq", `${dir}/jq`);
  } else {
    const denoDir = Deno.env.get("DENO_DIR");
    await Deno.writeTextFile(
      `${dir}/jq`,
      `#!/bin/sh\n${denoDir ? `DENO_DIR='${denoDir}' ` : ""}exec '${Deno.execPath()}' run -A ` +
        `--quiet --lock='${LOCK}' '${JQ17}' "$@"\n`,
    );
    await Deno.chmod(`${dir}/jq`, 0o755);
  }
  return dir;
}

/** What a CI job's shell has: the tools on the PATH, a home, the secret and `extra`. */
function ciEnv(pathFirst: string, secret: string, extra: Record<string, string> = {}) {
  const env: Record<string, string> = {
    PATH: `${pathFirst}:${DENO_BIN}:/usr/bin:/bin`,
    HOME: Deno.env.get("HOME") ?? "/root",
    NO_COLOR: "1",
    TRUST_COLLECTOR_SECRET: secret,
    ...extra,
  };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) env.DENO_DIR = denoDir;
  return env;
}

Deno.test("[e2e] setup guide: every shell block, the GitHub workflow and the GitLab jobs run as written", async (t) => {
  await using server = await startTestServer();
  const base = server.baseUrl;
  const token = await server.tokenFor("alice");
  const api = jsonApi(base, token);
  const projectId = await bootstrapAcme(api);
  const created = await api("POST", `/projects/${projectId}/collectors`, { name: "ci" });
  assert.equal(created.status, 201);
  const collectorId: string = created.json.collector.id;
  const secret: string = created.json.secret.value;
  const guide = await (await fetch(`${base}/projects/${projectId}/setup.md`, {
    headers: { authorization: `Bearer ${token}` },
  })).text();
  const publicGuide = await fetch(`${base}/trust/acme/setup.md`);
  assert.equal(publicGuide.status, 200);
  assert.equal(await publicGuide.text(), guide, "the public copy is the guide run here");
  const records = async () =>
    (await api("GET", `/projects/${projectId}/evidence?limit=100`)).json.records as {
      sourceType: string;
      sourceRef: string;
      evidenceType: string;
    }[];
  const lastSeen = async () =>
    (await api("GET", `/projects/${projectId}/collectors`)).json.collectors
      .find((c: { id: string }) => c.id === collectorId).lastSeenAt;
  const temp: string[] = [];
  const runs: Run[] = [];

  try {
    const shell = fencedBlocks(guide, "sh");
    assert.equal(shell.length, 3, "the CLI block, the heartbeat and the evidence with curl");

    for (const version of ["1.6", "1.7"] as const) {
      await t.step(`every shell block runs with bash, curl and jq ${version}`, async () => {
        const jq = await jqDirectory(version);
        temp.push(jq);
        const env = ciEnv(jq, secret);
        const reported = await bash("jq --version", { cwd: jq, env });
        assert.equal(reported.code, 0, reported.stderr);
        assert.match(reported.stdout, version === "1.6" ? /^jq-1\.6\n$/ : /^jq-1\.7\.1/);
        for (const [i, block] of shell.entries()) {
          const cwd = await buildOutput();
          temp.push(cwd);
          const before = { records: (await records()).length, seen: await lastSeen() };
          const run = await bash(block, { cwd, env });
          runs.push(run);
          assert.equal(run.code, 0, `block ${i + 1} with jq ${version}:\n${block}\n${run.stderr}`);
          const added = (await records()).length - before.records;
          assert.equal(added, [3, 0, 1][i], `records block ${i + 1} stored`);
          if (i < 2) assert.notEqual(await lastSeen(), before.seen, "a heartbeat was recorded");
        }
        const curl = (await records()).find((r) => r.sourceRef === "local@manual");
        assert.deepEqual(
          curl && [curl.evidenceType, curl.sourceType],
          ["sbom", "collector"],
          "the curl path's record says where it came from",
        );
      });
    }

    const [workflowText, gitlabText] = fencedBlocks(guide, "yaml");

    await t.step("the GitHub Actions workflow passes actionlint", async () => {
      const lint = await loadActionlint();
      const problems = await lint(workflowText, ".github/workflows/trust-evidence.yml");
      assert.deepEqual(problems.map((p) => `${p.line}: ${p.kind}: ${p.message}`), []);
      const broken = workflowText.replace("github.event_name", "github.event_nam");
      const found = await lint(broken, ".github/workflows/trust-evidence.yml");
      assert.match(found[0]?.message ?? "", /event_nam/, "a typo is found: actionlint did check");
    });

    await t.step("the GitHub Actions workflow's steps run on a push", async () => {
      // deno-lint-ignore no-explicit-any
      const workflow = parseYaml(workflowText) as any;
      assert.deepEqual(Object.keys(workflow.on), ["push", "schedule", "workflow_dispatch"]);
      assert.ok(workflow.on.schedule.length === 1, "a heartbeat on a schedule");
      const cwd = await buildOutput();
      temp.push(cwd);
      await Deno.remove(`${cwd}/sbom.cdx.json`);
      const context = {
        GITHUB_ACTIONS: "true",
        GITHUB_REPOSITORY: "acme/api",
        GITHUB_SHA: "0123456789abcdef0123456789abcdef01234567",
        GITHUB_RUN_ID: "4242",
      };
      const before = await records();
      for (const [name, job] of Object.entries(workflow.jobs)) {
        // deno-lint-ignore no-explicit-any
        const { if: condition, steps } = job as any;
        assert.ok(
          condition === undefined || condition === "github.event_name != 'schedule'",
          `${name}: a condition this test can read`,
        );
        for (const step of steps) {
          if (step.uses) {
            // What the actions do: check out (the directory), install Deno (on the PATH) and
            // write Syft's SBOM to its output-file.
            const action = step.uses.split("@")[0];
            assert.ok(
              ["actions/checkout", "denoland/setup-deno", "anchore/sbom-action"].includes(action),
              step.uses,
            );
            if (action === "anchore/sbom-action") {
              assert.equal(step.with.format, "cyclonedx-json");
              await Deno.writeTextFile(`${cwd}/${step.with["output-file"]}`, JSON.stringify(SBOM));
            }
            continue;
          }
          const env: Record<string, string> = { ...context, ...workflow.env };
          for (const [key, value] of Object.entries(step.env ?? {})) {
            assert.equal(value, "${{ secrets.TRUST_COLLECTOR_SECRET }}", "from the secret store");
            env[key] = secret;
          }
          assert.ok(!step.run.includes("${{"), "no expression is pasted into the script");
          // GitHub's bash for a run step: bash -e (the secret is only in the step's env).
          const { TRUST_COLLECTOR_SECRET: _, ...rest } = ciEnv("/nonexistent", "", env);
          const run = await bash(step.run, { cwd, env: { ...rest, ...env }, flags: ["-e"] });
          runs.push(run);
          assert.equal(run.code, 0, `${name} / ${step.name}: ${run.stderr}`);
        }
      }
      const added = (await records()).slice(0, (await records()).length - before.length);
      assert.deepEqual(added.map((r) => [r.evidenceType, r.sourceType, r.sourceRef]), [
        ["sbom", "github_actions", `acme/api@${context.GITHUB_SHA}`],
      ]);
    });

    await t.step("the GitLab jobs' scripts run after a build", async () => {
      // deno-lint-ignore no-explicit-any
      const config = parseYaml(gitlabText) as any;
      const { variables, ...jobs } = config;
      const cwd = await buildOutput();
      temp.push(cwd);
      await Deno.remove(`${cwd}/sbom.cdx.json`);
      const before = await records();
      const seen = await lastSeen();
      for (const [name, job] of Object.entries(jobs)) {
        // deno-lint-ignore no-explicit-any
        const { stage, image, script, artifacts } = job as any;
        assert.equal(stage, ".post", `${name} runs after the build and tests`);
        if (image.name.startsWith("anchore/syft")) {
          // What Syft writes: the SBOM the next job sends, passed on as an artifact.
          assert.deepEqual(script, ["/syft scan dir:. -o cyclonedx-json=sbom.cdx.json"]);
          assert.deepEqual(artifacts.paths, ["sbom.cdx.json"]);
          await Deno.writeTextFile(`${cwd}/sbom.cdx.json`, JSON.stringify(SBOM));
          continue;
        }
        assert.match(image.name, /^denoland\/deno:/);
        const env = ciEnv("/nonexistent", secret, {
          ...variables,
          CI_PIPELINE_SOURCE: "push",
          CI_PROJECT_PATH: "acme/api",
          CI_COMMIT_SHA: "fedcba9876543210fedcba9876543210fedcba98",
        });
        const run = await bash(script.join("\n"), { cwd, env, flags: ["-e"] });
        runs.push(run);
        assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      }
      assert.notEqual(await lastSeen(), seen, "the heartbeat job was recorded");
      const now = await records();
      const added = now.slice(0, now.length - before.length);
      assert.deepEqual(added.map((r) => [r.evidenceType, r.sourceType, r.sourceRef]), [
        ["sbom", "collector", "acme/api@fedcba9876543210fedcba9876543210fedcba98"],
      ]);
    });

    await t.step("the secret never appears in any output", () => {
      assert.ok(runs.length > 0);
      for (const run of runs) assert.ok(!`${run.stdout}${run.stderr}`.includes(secret));
    });
  } finally {
    for (const dir of temp) await Deno.remove(dir, { recursive: true });
  }
});
