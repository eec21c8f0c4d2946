/**
 * The collector CLI with evidence the service stores but cannot read: arrays are sent as
 * they are, and a record whose `reading` did not understand it ends the run with status 4.
 */
import assert from "node:assert/strict";
import {
  controlLines,
  exitStatus,
  notUnderstood,
  NotUnderstoodError,
  parseArgs,
  readingLines,
  readJsonDocument,
  run,
  usage,
  UsageError,
} from "../../src/cli/collector.ts";

const PROJECT = "0b6f3f52-57a4-4a31-9d4c-0a7b7a0b3c11";
const NOW = new Date("2026-11-21T08:00:00.000Z");
const UNREAD = { format: "trivy", understood: false, summary: "Trivy report has no Results" };
const READ = { format: "conftest", understood: true, summary: "conftest: 1 success" };

function options(server: string, args: string[]) {
  return parseArgs(args, (name) =>
    ({ TRUST_COLLECTOR_SECRET: "tpc_x", TRUST_PROJECT_ID: PROJECT })[
      name
    ], { now: NOW, moduleUrl: `${server}/collector.ts` });
}

/**
 * A service that stores whatever it gets and answers each record with `readings[i]`, and
 * `controls` as what the records did to the controls that read them.
 */
function service(readings: unknown[], controls: unknown[] = []) {
  const bodies: unknown[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json();
    bodies.push(body);
    const record = (i: number) => ({ id: crypto.randomUUID(), reading: readings[i] });
    return new URL(req.url).pathname.endsWith("/batch")
      ? Response.json({
        records: body.records.map((_: unknown, i: number) => record(i)),
        controls,
      }, { status: 201 })
      : Response.json({ record: record(0), controls }, { status: 201 });
  });
  return { server, bodies, url: `http://127.0.0.1:${server.addr.port}` };
}

const FILES: Record<string, string> = {
  "conftest.json": '[{"filename":"k8s.yaml","successes":1}]',
  "secrets.json": '{"SchemaVersion":2,"Results":[{"Target":"x","Class":"secret"}]}',
};
const io = (out: string[]) => ({
  read: (file: string) => Promise.resolve(FILES[file]),
  out: (line: string) => out.push(line),
});

Deno.test("[cli] readJsonDocument: a JSON object or array, else a usage error", async () => {
  const read = (text: string) => () => Promise.resolve(text);
  assert.deepEqual(await readJsonDocument("c.json", read("[1,{}]")), [1, {}]);
  assert.deepEqual(await readJsonDocument("c.json", read('{"a":1}')), { a: 1 });
  for (const text of ['"x"', "null", "3"]) {
    await assert.rejects(
      readJsonDocument("c.json", read(text)),
      (e) => e instanceof UsageError && /c\.json must hold a JSON object or array/.test(e.message),
    );
  }
});

Deno.test("[cli] readJsonDocument: a stream of JSON objects (govulncheck, Yarn) is sent as an array", async () => {
  const read = (text: string) => () => Promise.resolve(text);
  const fixture = (path: string) => () =>
    Deno.readTextFile(new URL(`../fixtures/${path}`, import.meta.url));
  const yarn = await readJsonDocument("yarn.json", fixture("yarn-audit/acme-web.ndjson"));
  assert.ok(Array.isArray(yarn));
  assert.deepEqual(yarn.map((line) => (line as { value: string }).value), [
    "lodash",
    "lodash",
    "minimist",
  ]);
  const govulncheck = await readJsonDocument(
    "govulncheck.json",
    fixture("govulncheck/source-call.jsonstream"),
  ) as Record<string, unknown>[];
  assert.deepEqual(Object.keys(govulncheck[0]), ["config"]);
  assert.equal(govulncheck.filter((m) => "finding" in m).length, 9);
  assert.deepEqual(await readJsonDocument("s.json", read('{"a":"}{"}\n[2]')), [{ a: "}{" }, [2]]);
  for (const text of ['{"a":1} 3', '{"a":1}{', '{"a":1} {"b":}', '{"a":1}]']) {
    await assert.rejects(
      readJsonDocument("s.json", read(text)),
      (e) => e instanceof UsageError && /s\.json is not JSON/.test(e.message),
      text,
    );
  }
});

Deno.test("[cli] notUnderstood: one line per record the service did not understand", () => {
  assert.deepEqual(notUnderstood(["a.json", "b.json"], [{ reading: READ }, { reading: UNREAD }]), [
    "b.json: Trivy report has no Results",
  ]);
  assert.deepEqual(notUnderstood(["a.json"], [{ id: "x" }]), [], "an older service: no readings");
  assert.deepEqual(notUnderstood(["a.json"], null), []);
});

Deno.test("[cli] evidence: sent, but not understood, is exit status 4", async (t) => {
  await t.step("an array file is sent as an array and understood: resolves", async () => {
    const s = service([READ]);
    await using _ = s.server;
    const out: string[] = [];
    await run(options(s.url, ["evidence", "--type", "policy_result", "conftest.json"]), io(out));
    assert.deepEqual(
      (s.bodies[0] as { payload: unknown }).payload,
      JSON.parse(FILES["conftest.json"]),
    );
    assert.match(out[0], /^evidence: stored /);
  });

  await t.step("one record not understood: stored, then NotUnderstoodError naming it", async () => {
    const s = service([UNREAD]);
    await using _ = s.server;
    const out: string[] = [];
    const error = await run(
      options(s.url, ["evidence", "--type", "vulnerability_scan", "secrets.json"]),
      io(out),
    ).catch((e) => e);
    assert.ok(error instanceof NotUnderstoodError);
    assert.equal(exitStatus(error), 4);
    assert.match(error.message, /did not understand 1 vulnerability_scan document/);
    assert.match(error.message, /secrets\.json: Trivy report has no Results/);
    assert.match(out[0], /^evidence: stored /, "the record was still reported as stored");
  });

  await t.step("a batch names only the files not understood", async () => {
    const s = service([READ, UNREAD]);
    await using _ = s.server;
    const args = ["evidence", "--type", "policy_result", "conftest.json", "secrets.json"];
    const error = await run(options(s.url, args), io([])).catch((e) => e);
    assert.ok(error instanceof NotUnderstoodError);
    assert.doesNotMatch(error.message, /conftest\.json/);
    assert.match(error.message, /secrets\.json/);
  });

  await t.step("--allow-unrecognized accepts it", async () => {
    const s = service([UNREAD]);
    await using _ = s.server;
    const args = ["evidence", "--type", "sbom", "--allow-unrecognized", "secrets.json"];
    await run(options(s.url, args), io([]));
  });

  await t.step("help documents the flag and exit status 4", () => {
    const text = usage("https://trust.example.com/collector.ts");
    assert.match(text, /--allow-unrecognized/);
    assert.match(text, /4 sent and stored, but the\s+service did not understand/);
  });
});

const MOVED = {
  key: "evidence.policy_result",
  name: "Policy checks",
  previousState: null,
  state: "fail",
  reason: "conftest: 1 success",
  evidenceRecordId: null,
};

Deno.test("[cli] readingLines and controlLines: what the service understood and moved", () => {
  assert.deepEqual(readingLines(["a.json", "b.json"], [{ reading: READ }, { reading: UNREAD }]), [
    "  a.json: read (format conftest): conftest: 1 success",
    "  b.json: not understood: Trivy report has no Results",
  ]);
  assert.deepEqual(readingLines(["a.json"], [{ id: "x" }]), [], "an older service: nothing");
  const sent = { ids: ["r1"], summaries: [READ.summary] };
  assert.deepEqual(
    controlLines([
      { ...MOVED, evidenceRecordId: "r1" },
      { ...MOVED, key: "custom.k", name: "K", previousState: "pass", state: "pass" },
      {
        ...MOVED,
        key: "evidence.sbom",
        name: "SBOM",
        previousState: "pass",
        state: "stale",
        reason: "Evidence is 40 days old",
        evidenceRecordId: "r0",
      },
    ], sent),
    [
      "  control Policy checks (evidence.policy_result): not evaluated -> fail",
      "  control K (custom.k): pass, unchanged",
      "  control SBOM (evidence.sbom): pass -> stale (decided by a newer record): " +
      "Evidence is 40 days old",
    ],
  );
  assert.deepEqual(controlLines(undefined, sent), [], "an older service: nothing");
});

Deno.test("[cli] evidence: prints the reading and each control's state before and now", async (t) => {
  await t.step("one file", async () => {
    const s = service([READ], [MOVED]);
    await using _ = s.server;
    const out: string[] = [];
    await run(options(s.url, ["evidence", "--type", "policy_result", "conftest.json"]), io(out));
    assert.match(out[0], /^evidence: stored [0-9a-f-]{36}$/);
    assert.deepEqual(out.slice(1), [
      "  conftest.json: read (format conftest): conftest: 1 success",
      "  control Policy checks (evidence.policy_result): not evaluated -> fail",
    ]);
  });

  await t.step("a batch: a reading per file, then each control once", async () => {
    const s = service([READ, READ], [MOVED]);
    await using _ = s.server;
    const out: string[] = [];
    const files = ["conftest.json", "conftest.json"];
    await run(options(s.url, ["evidence", "--type", "policy_result", ...files]), io(out));
    assert.deepEqual(out, [
      "evidence: records 1-2 of 2 stored",
      "  conftest.json: read (format conftest): conftest: 1 success",
      "  conftest.json: read (format conftest): conftest: 1 success",
      "  control Policy checks (evidence.policy_result): not evaluated -> fail",
    ]);
  });

  await t.step("--json prints the answer only", async () => {
    const s = service([READ], [MOVED]);
    await using _ = s.server;
    const out: string[] = [];
    const args = ["evidence", "--type", "policy_result", "--json", "conftest.json"];
    await run(options(s.url, args), io(out));
    assert.equal(out.length, 1);
    assert.deepEqual(JSON.parse(out[0]).controls, [MOVED]);
  });
});
