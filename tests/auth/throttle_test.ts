import assert from "node:assert/strict";
import { loginFailuresKey } from "../../src/store/keys.ts";
import {
  beginLoginAttempt,
  decideLoginAttempt,
  endLoginAttemptWithSuccess,
} from "../../src/auth/throttle.ts";

const T = Date.parse("2026-11-01T12:00:00Z");
const S = 1000;

Deno.test("[auth] decideLoginAttempt() counts attempts and doubles the lockout", async (t) => {
  const rows = [
    {
      name: "a first attempt is counted",
      scope: "email",
      counter: null,
      verdict: { next: { count: 1, lastAt: T } },
    },
    {
      name: "the fifth attempt is still free",
      scope: "email",
      counter: { count: 4, lastAt: T - S },
      verdict: { next: { count: 5, lastAt: T } },
    },
    {
      name: "the sixth within 30 s is locked for the rest of them",
      scope: "email",
      counter: { count: 5, lastAt: T - 10 * S },
      verdict: { retryAfterMs: 20 * S },
    },
    {
      name: "the sixth after 30 s is counted",
      scope: "email",
      counter: { count: 5, lastAt: T - 30 * S },
      verdict: { next: { count: 6, lastAt: T } },
    },
    {
      name: "the seventh waits 60 s",
      scope: "email",
      counter: { count: 6, lastAt: T - 59 * S },
      verdict: { retryAfterMs: 1 * S },
    },
    {
      name: "the lockout stops growing at 15 minutes",
      scope: "email",
      counter: { count: 5 + 30, lastAt: T - 1 * S },
      verdict: { retryAfterMs: 899 * S },
    },
    {
      name: "an address gets 20 free attempts",
      scope: "ip",
      counter: { count: 19, lastAt: T },
      verdict: { next: { count: 20, lastAt: T } },
    },
    {
      name: "an address is locked after 20",
      scope: "ip",
      counter: { count: 20, lastAt: T },
      verdict: { retryAfterMs: 30 * S },
    },
    {
      name: "a window of 15 minutes starts the count again",
      scope: "email",
      counter: { count: 5, lastAt: T - 15 * 60 * S },
      verdict: { next: { count: 1, lastAt: T } },
    },
  ] as const;
  for (const row of rows) {
    await t.step(row.name, () => {
      assert.deepEqual(decideLoginAttempt(row.scope, row.counter, T), row.verdict);
    });
  }
});

Deno.test("[auth] beginLoginAttempt() counts both subjects and a success gives its attempt back", async () => {
  using kv = await Deno.openKv(":memory:");
  const now = new Date(T);
  const alice = { email: "alice@acme.test", ip: "192.0.2.1" };
  for (let i = 0; i < 5; i++) await beginLoginAttempt(kv, alice, now);
  await assert.rejects(beginLoginAttempt(kv, alice, now), { code: "rate_limited" });
  const ip = await kv.get<{ count: number }>(loginFailuresKey("ip", alice.ip));
  assert.equal(ip.value?.count, 5, "refused attempts are not counted");

  const bob = { email: "bob@acme.test", ip: alice.ip };
  await beginLoginAttempt(kv, bob, now);
  await endLoginAttemptWithSuccess(kv, bob);
  assert.equal((await kv.get(loginFailuresKey("email", bob.email))).value, null);
  assert.equal(
    (await kv.get<{ count: number }>(loginFailuresKey("ip", alice.ip))).value?.count,
    5,
  );
});
