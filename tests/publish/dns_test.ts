import assert from "node:assert/strict";
import {
  checkTxtVerification,
  createTxtResolver,
  DnsLookupError,
  type TxtResolver,
} from "../../src/publish/dns.ts";
import { startDnsServer } from "../support/dns_server.ts";

const TOKEN = "tok_9f2c41e07b";
const EXPECTED = `trust-verification=${TOKEN}`;

Deno.test("[publish] checkTxtVerification() against a real nameserver", async (t) => {
  const dns = await startDnsServer();
  const resolver = createTxtResolver({ host: dns.host, port: dns.port }, { timeoutMs: 3_000 });
  try {
    await t.step("absent record → not verified, nothing found", async () => {
      const result = await checkTxtVerification(resolver, "absent.example", TOKEN);
      assert.deepEqual(result, { verified: false, found: [], expected: EXPECTED });
      assert.equal(dns.queries.at(-1), "_service.absent.example");
    });

    await t.step("name with no TXT records (NODATA) → not verified, nothing found", async () => {
      dns.records.set("_service.nodata.example", []);
      const result = await checkTxtVerification(resolver, "nodata.example", TOKEN);
      assert.deepEqual(result, { verified: false, found: [], expected: EXPECTED });
    });

    await t.step("wrong value → not verified, found lists it", async () => {
      dns.records.set("_service.wrong.example", [["trust-verification=someone-else"]]);
      const result = await checkTxtVerification(resolver, "wrong.example", TOKEN);
      assert.deepEqual(result, {
        verified: false,
        found: ["trust-verification=someone-else"],
        expected: EXPECTED,
      });
    });

    await t.step("correct single-string record → verified", async () => {
      dns.records.set("_service.single.example", [[EXPECTED]]);
      const result = await checkTxtVerification(resolver, "single.example", TOKEN);
      assert.deepEqual(result, { verified: true, found: [EXPECTED], expected: EXPECTED });
    });

    await t.step("several TXT records, one matching → verified", async () => {
      dns.records.set("_service.several.example", [
        ["v=spf1 -all"],
        ["trust-verification=stale-token"],
        [EXPECTED],
      ]);
      const result = await checkTxtVerification(resolver, "several.example", TOKEN);
      assert.equal(result.verified, true);
      assert.deepEqual(
        [...result.found].sort(),
        ["trust-verification=stale-token", EXPECTED, "v=spf1 -all"].sort(),
      );
    });

    await t.step("the value must match exactly, not as a prefix or with padding", async () => {
      dns.records.set("_service.near.example", [[`${EXPECTED}x`], [` ${EXPECTED}`]]);
      const result = await checkTxtVerification(resolver, "near.example", TOKEN);
      assert.equal(result.verified, false);
      assert.equal(result.found.length, 2);
    });

    await t.step("the domain is normalized before the lookup", async () => {
      dns.records.set("_service.xn--bcher-kva.example", [[EXPECTED]]);
      const result = await checkTxtVerification(resolver, "Bücher.Example.", TOKEN);
      assert.equal(result.verified, true);
      assert.equal(dns.queries.at(-1), "_service.xn--bcher-kva.example");
    });

    await t.step("the record can be added after a failed check", async () => {
      assert.equal((await checkTxtVerification(resolver, "later.example", TOKEN)).verified, false);
      dns.records.set("_service.later.example", [[EXPECTED]]);
      assert.equal((await checkTxtVerification(resolver, "later.example", TOKEN)).verified, true);
    });

    await t.step("an invalid domain or an empty token is refused before any lookup", async () => {
      const before = dns.queries.length;
      await assert.rejects(checkTxtVerification(resolver, "1.2.3.4", TOKEN), TypeError);
      await assert.rejects(checkTxtVerification(resolver, "example.com", ""), TypeError);
      assert.equal(dns.queries.length, before);
    });
  } finally {
    await dns.close();
  }
});

Deno.test("[publish] checkTxtVerification() joins multi-part TXT strings", async () => {
  const dns = await startDnsServer();
  try {
    const resolver = createTxtResolver({ host: dns.host, port: dns.port }, { timeoutMs: 3_000 });
    const [head, tail] = [EXPECTED.slice(0, 11), EXPECTED.slice(11)];
    dns.records.set("_service.multi.example", [["v=spf1 ", "-all"], [head, tail]]);

    // The resolver keeps the strings apart, as they are on the wire...
    assert.deepEqual(
      await resolver.resolveTxt("_service.multi.example"),
      [["v=spf1 ", "-all"], [head, tail]],
    );
    // ...and the check joins them with nothing in between.
    const result = await checkTxtVerification(resolver, "multi.example", TOKEN);
    assert.deepEqual(result, {
      verified: true,
      found: ["v=spf1 -all", EXPECTED],
      expected: EXPECTED,
    });

    // A long value split at the 255-octet limit, as DNS providers do.
    const longToken = "x".repeat(400);
    const longValue = `trust-verification=${longToken}`;
    dns.records.set("_service.long.example", [[longValue.slice(0, 255), longValue.slice(255)]]);
    assert.equal((await checkTxtVerification(resolver, "long.example", longToken)).verified, true);
  } finally {
    await dns.close();
  }
});

Deno.test("[publish] createTxtResolver() bounds a lookup against a dead nameserver", async () => {
  // Bind, note the port, close: nothing listens there any more. Over UDP the query
  // just goes unanswered, so only our timeout can end the wait.
  const dns = await startDnsServer();
  const port = dns.port;
  await dns.close();

  const resolver = createTxtResolver({ host: "127.0.0.1", port }, { timeoutMs: 500 });
  const started = performance.now();
  const error = await resolver.resolveTxt("_service.example.com").then(
    () => assert.fail("expected the lookup to fail"),
    (e: unknown) => e,
  );
  const elapsed = performance.now() - started;

  assert.ok(error instanceof DnsLookupError, `expected a DnsLookupError, got ${error}`);
  assert.equal(error.kind, "timeout");
  assert.match(error.message, /_service\.example\.com/);
  assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
  assert.match(error.message, /timed out after 500 ms/);
  assert.ok(elapsed < 2_000, `took ${elapsed} ms, the bound is 500 ms`);

  // checkTxtVerification() passes the error on rather than reporting "not verified".
  await assert.rejects(checkTxtVerification(resolver, "example.com", TOKEN), DnsLookupError);
});

Deno.test("[publish] checkTxtVerification() accepts any TxtResolver", async () => {
  const asked: string[] = [];
  const resolver: TxtResolver = {
    resolveTxt(name) {
      asked.push(name);
      return Promise.resolve([["trust-verification=", "abc"]]);
    },
  };
  const result = await checkTxtVerification(resolver, "EXAMPLE.org.", "abc");
  assert.deepEqual(result, {
    verified: true,
    found: ["trust-verification=abc"],
    expected: "trust-verification=abc",
  });
  assert.deepEqual(asked, ["_service.example.org"]);
});

Deno.test("[publish] createTxtResolver() refuses a non-positive timeout", () => {
  assert.throws(() => createTxtResolver(undefined, { timeoutMs: 0 }), TypeError);
});
