import assert from "node:assert/strict";
import { clientAddress } from "../../src/http/client_ip.ts";
import { parseIpRange } from "../../src/lib/ip.ts";
import { authorize } from "../support/builtin_login.ts";
import { startTestServer } from "../support/server.ts";

const proxies = ["127.0.0.1", "10.0.0.0/8"].map(parseIpRange);

Deno.test("[http] clientAddress() believes forwarding headers from trusted proxies only", async (t) => {
  const rows: Array<
    {
      name: string;
      peer: string;
      headers: Record<string, string>;
      trusted?: boolean;
      client: string;
    }
  > = [
    {
      name: "no proxy configured: the peer",
      peer: "127.0.0.1",
      headers: { "x-forwarded-for": "203.0.113.9" },
      trusted: false,
      client: "127.0.0.1",
    },
    {
      name: "an untrusted peer's header is ignored",
      peer: "198.51.100.4",
      headers: { "x-forwarded-for": "203.0.113.9" },
      client: "198.51.100.4",
    },
    {
      name: "one trusted proxy",
      peer: "127.0.0.1",
      headers: { "x-forwarded-for": "203.0.113.9" },
      client: "203.0.113.9",
    },
    {
      name: "a chain of trusted proxies",
      peer: "127.0.0.1",
      headers: { "x-forwarded-for": "203.0.113.9, 10.0.0.5, 10.0.0.6" },
      client: "203.0.113.9",
    },
    {
      name: "a forged left part stays unread",
      peer: "127.0.0.1",
      headers: { "x-forwarded-for": "1.1.1.1, 203.0.113.9" },
      client: "203.0.113.9",
    },
    {
      name: "the Forwarded header wins",
      peer: "127.0.0.1",
      headers: {
        forwarded: 'for=192.0.2.60;proto=https, for="[2001:db8:cafe::17]:4711"',
        "x-forwarded-for": "203.0.113.9",
      },
      client: "2001:db8:cafe::17",
    },
    {
      name: "Forwarded with an IPv4 port",
      peer: "127.0.0.1",
      headers: { forwarded: 'for="192.0.2.43:47011"' },
      client: "192.0.2.43",
    },
    {
      name: "an obfuscated hop ends at the last proxy",
      peer: "127.0.0.1",
      headers: { forwarded: "for=_hidden" },
      client: "127.0.0.1",
    },
    { name: "no header: the proxy itself", peer: "10.0.0.2", headers: {}, client: "10.0.0.2" },
  ];
  for (const row of rows) {
    await t.step(row.name, () => {
      const client = clientAddress(row.peer, {
        headers: new Headers(row.headers),
        trustedProxies: row.trusted === false ? [] : proxies,
      });
      assert.equal(client, row.client);
    });
  }
});

/** 21 wrong passwords from `ip` (distinct emails, so only the address counter locks). */
async function exhaustAddress(baseUrl: string, ip: string) {
  const statuses = [];
  for (let round = 0; round < 3; round++) {
    statuses.push(
      ...await Promise.all(Array.from({ length: 7 }, async (_, i) => {
        const { response } = await authorize(baseUrl, {
          email: `user${round * 7 + i}@${ip}.test`,
          password: "wrong",
        }, { headers: { "x-forwarded-for": ip } });
        await response.body?.cancel();
        return response.status;
      })),
    );
  }
  return statuses;
}

for (const trusted of [true, false]) {
  Deno.test(`[e2e] login throttling by client address ${trusted ? "behind a trusted proxy" : "without TRUSTED_PROXIES"}`, async () => {
    await using server = await startTestServer({
      worker: false,
      env: trusted ? { TRUSTED_PROXIES: "127.0.0.1,::1" } : {},
    });
    const first = await exhaustAddress(server.baseUrl, "203.0.113.1");
    assert.deepEqual(first.filter((s) => s === 401).length, 20);
    assert.deepEqual(first.filter((s) => s === 429).length, 1);
    const { response } = await authorize(server.baseUrl, {
      email: "someone@else.test",
      password: "wrong",
    }, { headers: { "x-forwarded-for": "203.0.113.2" } });
    await response.body?.cancel();
    // Behind a trusted proxy another client has a bucket of its own; otherwise the header is
    // a client's claim and everyone shares the peer's.
    assert.equal(response.status, trusted ? 401 : 429);
  });
}
