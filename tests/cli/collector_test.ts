import assert from "node:assert/strict";
import { SourceType } from "../../src/domain/collector.ts";
import { EvidenceType } from "../../src/domain/control.ts";
import {
  EVIDENCE_TYPES,
  exitStatus,
  NetworkError,
  NotUnderstoodError,
  parseArgs,
  post,
  readJsonObject,
  retryDelayMs,
  ServiceError,
  SOURCE_TYPES,
  UsageError,
} from "../../src/cli/collector.ts";

const PROJECT = "0b6f3f52-57a4-4a31-9d4c-0a7b7a0b3c11";
const COLLECTOR = "6c1a1d0e-3d37-4b35-8d0a-2b7e7a0f4d22";
const NOW = new Date("2026-11-21T08:00:00.000Z");
const LOCAL = "file:///src/cli/collector.ts";

function parse(args: string[], env: Record<string, string> = {}, moduleUrl = LOCAL) {
  const vars: Record<string, string> = {
    TRUST_COLLECTOR_SECRET: "tpc_secret",
    TRUST_SERVER: "https://trust.example.com/",
    ...env,
  };
  return parseArgs(args, (name) => vars[name], { now: NOW, moduleUrl });
}

Deno.test("[cli] the CLI's copies of the service's enums are the same", () => {
  assert.deepEqual([...EVIDENCE_TYPES].sort(), [...EvidenceType.options].sort());
  assert.deepEqual([...SOURCE_TYPES].sort(), [...SourceType.options].sort());
});

Deno.test("[cli] parseArgs: options, environment and defaults", async (t) => {
  await t.step("evidence with flags; the server loses its trailing slash", () => {
    const o = parse([
      "evidence",
      "--type",
      "sbom",
      `--project-id=${PROJECT.toUpperCase()}`,
      "--source-ref",
      "acme/api@abc",
      "--observed-at",
      "2026-11-21T09:30:00+01:00",
      "a.json",
      "b.json",
    ]);
    assert.equal(o.command, "evidence");
    assert.deepEqual(o.files, ["a.json", "b.json"]);
    assert.equal(o.server, "https://trust.example.com");
    assert.equal(o.projectId, PROJECT);
    assert.equal(o.type, "sbom");
    assert.equal(o.sourceType, "collector");
    assert.equal(o.sourceRef, "acme/api@abc");
    assert.equal(o.observedAt, "2026-11-21T08:30:00.000Z", "normalized to UTC");
    assert.equal(o.retries, 3);
    assert.equal(o.json, false);
  });

  await t.step("in GitHub Actions the source defaults to the repository and commit", () => {
    const o = parse(["heartbeat"], {
      TRUST_COLLECTOR_ID: COLLECTOR,
      GITHUB_ACTIONS: "true",
      GITHUB_REPOSITORY: "acme/api",
      GITHUB_SHA: "0123abc",
    });
    assert.equal(o.sourceType, "github_actions");
    assert.equal(o.sourceRef, "acme/api@0123abc");
    assert.equal(o.observedAt, NOW.toISOString());
  });

  await t.step("loaded from the service, it talks to that service", () => {
    const o = parse(
      ["heartbeat"],
      { TRUST_COLLECTOR_ID: COLLECTOR, TRUST_SERVER: "" },
      "http://127.0.0.1:8000/collector.ts",
    );
    assert.equal(o.server, "http://127.0.0.1:8000");
    const below = parse(
      ["heartbeat"],
      { TRUST_COLLECTOR_ID: COLLECTOR, TRUST_SERVER: "" },
      "https://acme.example/trust-api/collector.ts",
    );
    assert.equal(below.server, "https://acme.example/trust-api");
    const flag = parse(["heartbeat", "--server", "http://other.test"], {
      TRUST_COLLECTOR_ID: COLLECTOR,
    }, "http://127.0.0.1:8000/collector.ts");
    assert.equal(flag.server, "http://other.test", "--server wins");
  });

  await t.step("help needs nothing else", () => {
    for (const args of [[], ["help"], ["--help"], ["evidence", "-h"]]) {
      assert.equal(
        parseArgs(args, () => undefined, { now: NOW, moduleUrl: LOCAL }).command,
        "help",
      );
    }
  });

  await t.step("mistakes are usage errors that say what to fix", () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [["deploy"], {}, /Unknown command "deploy"/],
      [["heartbeat", "--secret", "x"], {}, /Unknown option --secret/],
      [["heartbeat", "--server"], {}, /--server needs a value/],
      [["heartbeat"], {}, /heartbeat needs --collector-id/],
      [["heartbeat", "--collector-id", "42"], {}, /must be a UUID/],
      [
        ["heartbeat"],
        { TRUST_COLLECTOR_ID: COLLECTOR, TRUST_COLLECTOR_SECRET: "" },
        /TRUST_COLLECTOR_SECRET/,
      ],
      [["heartbeat"], { TRUST_COLLECTOR_ID: COLLECTOR, TRUST_SERVER: "" }, /No service/],
      [["heartbeat", "--server", "ftp://x"], { TRUST_COLLECTOR_ID: COLLECTOR }, /http\(s\) URL/],
      [["heartbeat", "x.json"], { TRUST_COLLECTOR_ID: COLLECTOR }, /takes no files/],
      [["evidence", "a.json"], { TRUST_PROJECT_ID: PROJECT }, /evidence needs --type/],
      [["evidence", "--type", "sbom"], { TRUST_PROJECT_ID: PROJECT }, /needs a file/],
      [["evidence", "--type", "sbom", "a.json"], {}, /needs --project-id/],
      [
        ["evidence", "--type", "pdf", "a.json"],
        { TRUST_PROJECT_ID: PROJECT },
        /--type must be one of/,
      ],
      [["evidence", "--type", "sbom", "--source-type", "jenkins", "a.json"], {
        TRUST_PROJECT_ID: PROJECT,
      }, /--source-type must be one of/],
      [["evidence", "--type", "sbom", "--observed-at", "yesterday", "a.json"], {
        TRUST_PROJECT_ID: PROJECT,
      }, /RFC 3339/],
      [["evidence", "--type", "sbom", "--observed-at", "2026-11-21T08:00:00", "a.json"], {
        TRUST_PROJECT_ID: PROJECT,
      }, /with an offset/],
      [["signals", "a.json", "b.json"], { TRUST_PROJECT_ID: PROJECT }, /one file/],
      [["heartbeat", "--retries", "-1"], { TRUST_COLLECTOR_ID: COLLECTOR }, /--retries/],
    ];
    for (const [args, env, message] of cases) {
      assert.throws(
        () => parse(args, env),
        (e) => e instanceof UsageError && message.test(e.message),
        args.join(" "),
      );
    }
  });
});

Deno.test("[cli] readJsonObject: a JSON object or a usage error naming the file", async () => {
  const read = (text: string) => () => Promise.resolve(text);
  assert.deepEqual(await readJsonObject("a.json", read('{"a":1}')), { a: 1 });
  for (
    const [text, message] of [["[1]", /must hold a JSON object/], ["null", /JSON object/], [
      "{",
      /a.json is not JSON/,
    ]] as const
  ) {
    await assert.rejects(
      readJsonObject("a.json", read(text)),
      (e) => e instanceof UsageError && message.test(e.message),
    );
  }
  await assert.rejects(
    readJsonObject("missing.json", () => Promise.reject(new Deno.errors.NotFound("no such file"))),
    (e) => e instanceof UsageError && /Cannot read missing.json/.test(e.message),
  );
});

Deno.test("[cli] retryDelayMs: Retry-After first, else 1 s, 2 s, 4 s, capped", () => {
  assert.equal(retryDelayMs(1, null), 1000);
  assert.equal(retryDelayMs(3, null), 4000);
  assert.equal(retryDelayMs(20, null), 60_000);
  assert.equal(retryDelayMs(1, "0"), 0);
  assert.equal(retryDelayMs(1, "7"), 7000);
  assert.equal(retryDelayMs(1, "86400"), 60_000);
  assert.equal(retryDelayMs(2, "soon"), 2000);
  const at = new Date(Date.now() + 5000).toUTCString();
  const fromDate = retryDelayMs(1, at);
  assert.ok(fromDate > 3000 && fromDate <= 5000, String(fromDate));
});

Deno.test("[cli] exitStatus: 1 refused, 2 usage, 3 unreachable or failing, 4 not understood", () => {
  assert.equal(exitStatus(new NotUnderstoodError("x")), 4);
  assert.equal(exitStatus(new UsageError("x")), 2);
  assert.equal(exitStatus(new ServiceError(401, "x")), 1);
  assert.equal(exitStatus(new ServiceError(409, "x")), 1);
  assert.equal(exitStatus(new ServiceError(503, "x")), 3);
  assert.equal(exitStatus(new NetworkError("x")), 3);
});

/** A server answering from a script of statuses, recording each request's body and key. */
function scriptedServer(statuses: number[]) {
  const seen: Array<{ body: string; key: string | null; auth: string | null }> = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    seen.push({
      body: await req.text(),
      key: req.headers.get("idempotency-key"),
      auth: req.headers.get("authorization"),
    });
    const status = statuses[Math.min(seen.length - 1, statuses.length - 1)];
    if (status >= 400) {
      return Response.json(
        {
          error: {
            code: status === 503 ? "unavailable" : "conflict",
            message: "scripted",
            details: {},
          },
        },
        { status, headers: { "retry-after": "0" } },
      );
    }
    return Response.json({ ok: true }, { status });
  });
  return { server, seen, url: `http://127.0.0.1:${server.addr.port}` };
}

Deno.test("[cli] post: retries the same request on 503, not on 4xx", async (t) => {
  const slept: number[] = [];
  const sleep = (ms: number) => {
    slept.push(ms);
    return Promise.resolve();
  };

  await t.step("two 503s then 201: resolves, three identical requests", async () => {
    const s = scriptedServer([503, 503, 201]);
    try {
      const res = await post({ server: s.url, secret: "tpc_s", retries: 3 }, "/x", { a: 1 }, {
        "idempotency-key": "k1",
      }, sleep);
      assert.deepEqual(res, { status: 201, json: { ok: true } });
      assert.equal(s.seen.length, 3);
      assert.ok(
        s.seen.every((r) => r.body === '{"a":1}' && r.key === "k1" && r.auth === "Bearer tpc_s"),
      );
      assert.deepEqual(slept, [0, 0], "Retry-After: 0 is honoured");
    } finally {
      await s.server.shutdown();
    }
  });

  await t.step("out of retries: a ServiceError with the envelope's message", async () => {
    const s = scriptedServer([503]);
    try {
      await assert.rejects(
        post({ server: s.url, secret: "tpc_s", retries: 1 }, "/x", {}, {}, sleep),
        (e) =>
          e instanceof ServiceError && e.status === 503 &&
          /503 unavailable: scripted/.test(e.message),
      );
      assert.equal(s.seen.length, 2);
    } finally {
      await s.server.shutdown();
    }
  });

  await t.step("a 409 is final at once", async () => {
    const s = scriptedServer([409, 201]);
    try {
      await assert.rejects(
        post({ server: s.url, secret: "tpc_s", retries: 3 }, "/x", {}, {}, sleep),
        (e) => e instanceof ServiceError && e.status === 409,
      );
      assert.equal(s.seen.length, 1);
    } finally {
      await s.server.shutdown();
    }
  });

  await t.step("nothing listening: a NetworkError after the retries", async () => {
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    slept.length = 0;
    await assert.rejects(
      post(
        { server: `http://127.0.0.1:${port}`, secret: "tpc_s", retries: 2 },
        "/x",
        {},
        {},
        sleep,
      ),
      (e) =>
        e instanceof NetworkError && /after 3 attempts/.test(e.message) && !/tpc_s/.test(e.message),
    );
    assert.deepEqual(slept, [1000, 2000]);
  });
});
