/**
 * No test depends on the day it runs. Tests that run against the real clock (a server from
 * startTestServer without a fake clock, main.ts or the CLI in a subprocess, a worker on
 * systemClock) must not give it a literal instant as current evidence: tests/quality/
 * dates_check.ts finds the ISO-8601 instants and `new Date("…")`/`Date.parse("…")` literals
 * of tests/ and flags, in such files, those within ten years of today that neither feed a fake
 * clock nor carry a `// fixed-instant: <reason>` comment (docs/hardening.md). And a chosen set
 * of date-sensitive test files runs with the clock a year ahead under libfaketime.
 */
import assert from "node:assert/strict";
import { checkDates, readTree, type SourceText, WINDOW_YEARS } from "./dates_check.ts";

const TESTS = new URL("../", import.meta.url);
const ROOT = new URL("../../", import.meta.url);
const DAY_MS = 86_400_000;

/**
 * tests/e2e/collector_cli_test.ts as it was until it failed (its opening, the evidence and
 * signals steps and the future case, cut from the file): it sent evidence observed at a fixed
 * instant to a server on the real clock and expected it fresh under a 7-day window, so from
 * 2026-11-28 on the suite failed for everyone.
 */
// fixed-instant: the old test's text, read as data by the check, never sent anywhere
const OLD_COLLECTOR_CLI_TEST = `/**
 * The collector CLI as a pipeline runs it: Deno loads /collector.ts from the
 * running service and executes it in its own process, with the secret in the
 * environment.
 */
import assert from "node:assert/strict";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";

Deno.test("[e2e] collector CLI served at /collector.ts: heartbeat, evidence, signals", async (t) => {
  await using server = await startTestServer();
  const token = await server.tokenFor("alice");
  const api = jsonApi(server.baseUrl, token);
  const projectId = await bootstrapAcme(api);
  const dir = await Deno.makeTempDir();
  const cli = async (args: string[]) => {
    const child = new Deno.Command(Deno.execPath(), { args, cwd: dir }).spawn();
    return await child.output();
  };
    let first = "";
    await t.step("evidence from a file; the same observation again is recognized", async () => {
      const args = [
        "evidence",
        "--type",
        "sbom",
        "--observed-at",
        "2026-11-21T08:00:00Z",
        "sbom.json",
      ];
      const run = await cli(args);
      assert.equal(run.code, 0, run.stderr);
    });

    await t.step("signals", async () => {
      await Deno.writeTextFile(
        \`\${dir}/signals.json\`,
        JSON.stringify({
          detectedAt: "2026-11-21T08:00:00Z",
          commitSha: "0123abc",
          ciCd: { detected: true, tools: ["github_actions"] },
        }),
      );
      const run = await cli(["signals", "signals.json"]);
      assert.equal(run.code, 0, run.stderr);
    });

    await t.step("refusals", async () => {
      const cases = [
        [
          ["evidence", "--type", "sbom", "--observed-at", "2099-01-01T00:00:00Z", "sbom.json"],
          {},
          1,
          /400 validation_failed: .*future/,
        ],
      ];
    });
});
`;

/** The instant the old test sent as current evidence. */
const OLD_INSTANT = "2026-11-21T08:00:00Z"; // fixed-instant: the old test's, read as data
/** A day of the old test's life: the week it passed, before its evidence went stale. */
const OLD_TEST_DAY = new Date(Date.UTC(2026, 10, 24)); // fixed-instant: the checker's "today"

function lines(report: ReturnType<typeof checkDates>) {
  return report.findings.map((f) => `${f.path}:${f.line} ${f.text}`);
}

Deno.test("[quality] the date check fails on the collector CLI test as it was", () => {
  const report = checkDates(
    [{ path: "e2e/collector_cli_test.ts", text: OLD_COLLECTOR_CLI_TEST }],
    OLD_TEST_DAY,
  );
  assert.deepEqual(report.realClock.map((use) => [use.path, use.what]), [
    ["e2e/collector_cli_test.ts", "startTestServer(…) on the system clock"],
  ]);
  assert.deepEqual(lines(report), [
    `e2e/collector_cli_test.ts:26 ${OLD_INSTANT}`,
    `e2e/collector_cli_test.ts:37 ${OLD_INSTANT}`,
  ]);
  // The same text written any other day (its instants a week before that day) fails the same
  // way: the check on the repository runs with today's date.
  const weekAgo = new Date(Date.now() - 7 * DAY_MS).toISOString().slice(0, 19) + "Z";
  const rewritten = OLD_COLLECTOR_CLI_TEST.replaceAll(OLD_INSTANT, weekAgo);
  assert.deepEqual(
    lines(checkDates([{ path: "old.ts", text: rewritten }], new Date())),
    [`old.ts:26 ${weekAgo}`, `old.ts:37 ${weekAgo}`],
  );
});

Deno.test("[quality] the date check passes on the collector CLI test as it is now", async () => {
  const text = await Deno.readTextFile(new URL("e2e/collector_cli_test.ts", TESTS));
  const report = checkDates([{ path: "e2e/collector_cli_test.ts", text }], new Date());
  assert.equal(report.realClock.length, 1, "it still counts as a real-clock test");
  assert.deepEqual(lines(report), []);
});

Deno.test("[quality] the date check's rule, case by case", async (t) => {
  // A "today" far ahead, so that the instants of these cases, all near it, are more than the
  // window away from the real today: the check of this file lets them through.
  const now = new Date(Date.UTC(2150, 5, 1));
  const check = (files: SourceText[]) => lines(checkDates(files, now));
  const server = `import { startTestServer } from "../support/server.ts";\n`;

  await t.step("a file on the real clock: each kind of literal instant", () => {
    assert.deepEqual(
      check([{
        path: "a_test.ts",
        text: server + [
          `await startTestServer({ worker: true });`,
          `const a = { observedAt: "2150-05-31T23:00:00Z" };`,
          `const b = new Date("May 30, 2150 10:00 UTC");`,
          `const c = Date.parse("2150-05-29");`,
          `const d = Date.UTC(2150, 4, 28);`,
          `const e = new Date(5692896000000);`,
          "const f = `at ${x} 2150-05-27T10:00:00+02:00 and more`;",
        ].join("\n"),
      }]),
      [
        "a_test.ts:3 2150-05-31T23:00:00Z",
        `a_test.ts:4 new Date("May 30, 2150 10:00 UTC")`,
        "a_test.ts:5 2150-05-29",
        "a_test.ts:6 Date.UTC(2150, 4, 28)",
        "a_test.ts:7 new Date(5692896000000)",
        "a_test.ts:8 2150-05-27T10:00:00+02:00",
      ],
    );
  });

  await t.step("far past, far future, impossible dates and comments are not instants", () => {
    assert.deepEqual(
      check([{
        path: "a_test.ts",
        text: server + [
          `await startTestServer();`,
          `// observed 2150-05-31T23:00:00Z, in a comment`,
          `const old = { issuedAt: "2130-01-01T00:00:00Z" };`,
          `const future = { expiresAt: "2199-01-01T00:00:00Z" };`,
          `const notADate = "2150-13-45";`,
          `const digits = "121500-01-01";`,
        ].join("\n"),
      }]),
      [],
    );
    assert.equal(WINDOW_YEARS, 10, "the 20-year margins above assume a 10-year window");
  });

  await t.step("a fake clock: its own start, and a server given it", () => {
    const fake = server + [
      `import { fakeClock } from "../../src/lib/clock.ts";`,
      `const clock = fakeClock(new Date("2150-05-31T00:00:00Z"));`,
      `clock.set(new Date("2150-06-01T00:00:00Z"));`,
      `await startTestServer({ clock, worker: true });`,
      `await startTestServer({ clock: fakeClock(new Date("2150-05-30T00:00:00Z")) });`,
      `const compared = "2150-05-31T00:00:00.000Z";`,
    ].join("\n");
    assert.deepEqual(check([{ path: "fake_test.ts", text: fake }]), []);
    // A clock that may be undefined is the system clock: the helper's instants are checked, and
    // the fake clock's own start is still let through.
    const maybe = fake.replace(`{ clock, worker: true }`, `{ clock: options.clock }`);
    assert.deepEqual(check([{ path: "fake_test.ts", text: maybe }]), [
      "fake_test.ts:7 2150-05-31T00:00:00.000Z",
    ]);
  });

  await t.step("subprocesses and systemClock count as the real clock", () => {
    assert.deepEqual(
      check([
        {
          path: "sub_test.ts",
          text: `new Deno.Command("deno", { args: ["run", "main.ts"] });\n` +
            `const at = "2150-05-31T00:00:00Z";`,
        },
        {
          path: "worker_test.ts",
          text: `import { systemClock } from "../src/lib/clock.ts";\n` +
            `createJobWorker({ kv, clock: systemClock });\nconst at = "2150-05-31";`,
        },
        { path: "pure_test.ts", text: `const at = "2150-05-31T00:00:00Z";` },
      ]),
      ["sub_test.ts:2 2150-05-31T00:00:00Z", "worker_test.ts:3 2150-05-31"],
    );
  });

  await t.step("a helper that starts a server makes its callers and its imports checked", () => {
    const report = checkDates([
      {
        path: "support/world.ts",
        text: server + `export async function startWorld() {\n  return await startTestServer();\n}`,
      },
      {
        path: "e2e/world_test.ts",
        text: `import { startWorld } from "../support/world.ts";\n` +
          `import { EVIDENCE } from "./_data.ts";\nawait startWorld();\n`,
      },
      { path: "e2e/_data.ts", text: `export const EVIDENCE = { at: "2150-05-31T00:00:00Z" };` },
      {
        path: "e2e/other_test.ts",
        text: `function startWorld() {}\nstartWorld();\nconst at = "2150-05-31";`,
      },
    ], now);
    assert.ok(report.starters.includes("startWorld"));
    assert.deepEqual(lines(report), ["e2e/_data.ts:1 2150-05-31T00:00:00Z"]);
    // A local function of the same name is not the helper: other_test.ts is not checked. Names
    // are matched across files, so a file that calls an imported `startWorld` is.
    assert.deepEqual(report.realClock.map((use) => use.path).sort(), [
      "e2e/_data.ts",
      "e2e/world_test.ts",
      "support/world.ts",
    ]);
  });

  await t.step("the fixed-instant comment, with a reason, lets an instant through", () => {
    const report = checkDates([{
      path: "a_test.ts",
      text: server + [
        `await startTestServer();`,
        `const a = "2150-05-31"; // fixed-instant: a past audit period, the same every day after`,
        `// fixed-instant: an expired certification: expired whatever day it runs`,
        `await api("POST", "/certifications", {`,
        `  issuedAt: "2149-01-01T00:00:00Z",`,
        `  expiresAt: "2150-01-01T00:00:00Z",`,
        `});`,
        `const b = "2150-05-30"; // fixed-instant:`,
        `const c = "2150-05-29"; // fixed-instant: covers its own line only`,
        `const d = "2150-05-28";`,
      ].join("\n"),
    }], now);
    assert.deepEqual(report.allowed.map((f) => [f.line, f.allowedBecause]), [
      [3, "a past audit period, the same every day after"],
      [6, "an expired certification: expired whatever day it runs"],
      [7, "an expired certification: expired whatever day it runs"],
      [10, "covers its own line only"],
    ]);
    assert.deepEqual(lines(report), ["a_test.ts:9 2150-05-30", "a_test.ts:11 2150-05-28"]);
  });
});

Deno.test("[quality] no test gives the real clock a literal instant near today", async () => {
  const report = checkDates(await readTree(TESTS), new Date());
  const checked = report.realClock.map((use) => use.path);
  // The detection itself still works: a server, a subprocess and systemClock are each seen.
  for (
    const path of [
      "e2e/collector_cli_test.ts",
      "e2e/readme_quickstart_test.ts",
      "live/worker_stop_test.ts",
      "e2e/_surfaces.ts",
    ]
  ) assert.ok(checked.includes(path), `${path} counts as a real-clock test`);
  assert.ok(!checked.includes("http/ingest_test.ts"), "createTestApp runs on a fake clock");
  assert.deepEqual(
    lines(report),
    [],
    "Literal instants near today in tests on the real clock: use a time relative to Date.now(), " +
      "give the service a fake clock, or, for data that is historical by intent, say why with " +
      "`// fixed-instant: <reason>` (docs/hardening.md)",
  );
});

/** The `faketime` command of libfaketime, when installed (.ci/run installs it). */
function faketimeInstalled(): boolean {
  try {
    const out = new Deno.Command("sh", {
      args: ["-c", "command -v faketime"],
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return out.success;
  } catch {
    return false;
  }
}

/** Test files whose outcome depends on the date if they get an instant wrong. */
const AHEAD_FILES = [
  "tests/e2e/collector_cli_test.ts",
  "tests/e2e/certification_expiry_test.ts",
  "tests/cli/collector_test.ts",
  "tests/live/decay_test.ts",
];

/** Runs a command a year ahead: libfaketime shifts wall-clock time, timers stay real. */
function aYearAhead(args: string[]): Deno.Command {
  return new Deno.Command("faketime", {
    args: ["-f", "+365d", Deno.execPath(), ...args],
    cwd: ROOT,
    env: { FAKETIME_DONT_FAKE_MONOTONIC: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  });
}

/**
 * A Deno process under libfaketime (0.9.10, Debian's) now and then dies of SIGSEGV, whatever
 * it runs: `faketime -f +365d deno eval 1` failed 8 times in 600 here (none of 150 without
 * libfaketime), and one run of these files starts twenty or so (the collector CLI and the kit
 * are subprocesses), so about one run in five met a crash. Such a run, and only such a run, is
 * repeated, at most RUNS times in all: a failure that is not a crash fails at once, and one
 * that repeats fails on the last run.
 */
const RUNS = 4;
/** What a crashed process leaves in the output: its exit status asserted, or the signal. */
const FAKETIME_CRASH = /\b139 !== 0\b|Segmentation fault|SIGSEGV/;

/** `command` run until it succeeds or fails otherwise than by a libfaketime crash. */
async function runAhead(args: string[]): Promise<{ success: boolean; out: string; err: string }> {
  for (let run = 1;; run++) {
    const result = await aYearAhead(args).output();
    const out = new TextDecoder().decode(result.stdout);
    const err = new TextDecoder().decode(result.stderr);
    if (result.success || run === RUNS || !FAKETIME_CRASH.test(out + err)) {
      return { success: result.success, out, err };
    }
    console.log(`run ${run} of ${RUNS}: a process crashed under libfaketime (SIGSEGV); again`);
  }
}

Deno.test({
  name: "[quality] date-sensitive tests pass with the clock a year ahead",
  // Not when this run is itself under libfaketime: the probe compares with this process's clock.
  ignore: !faketimeInstalled() || Deno.env.get("FAKETIME") !== undefined,
  fn: async () => {
    // The shift reaches Deno, and what it starts, before anything is concluded from it.
    const probe = await runAhead([
      "eval",
      `const c = new Deno.Command(Deno.execPath(), { args: ["eval", "console.log(Date.now())"] });
       const child = c.outputSync();
       if (!child.success) {
         console.error(child.signal === "SIGSEGV" ? "SIGSEGV" : \`exit \${child.code}\`);
         Deno.exit(1);
       }
       console.log(Date.now(), new TextDecoder().decode(child.stdout).trim());`,
    ]);
    assert.ok(probe.success, probe.err);
    const [self, child] = probe.out.trim().split(" ").map(Number);
    for (const [who, at] of [["deno", self], ["its subprocess", child]] as const) {
      const ahead = (at - Date.now()) / DAY_MS;
      assert.ok(ahead > 364 && ahead < 366, `${who} is ${ahead} days ahead`);
    }
    const run = await runAhead(["test", "-A", "--lock=tests/deno.lock", ...AHEAD_FILES]);
    assert.ok(run.success, run.out.slice(-4000) + run.err.slice(-4000));
    assert.match(run.out, /ok \| \d+ passed .*\| 0 failed/);
  },
});
