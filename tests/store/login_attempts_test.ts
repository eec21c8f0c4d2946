import assert from "node:assert/strict";
import type { LoginCounter, LoginScope, LoginVerdict } from "../../src/domain/account.ts";
import { loginFailuresKey } from "../../src/store/keys.ts";
import { releaseLoginAttempt, reserveLoginAttempt } from "../../src/store/login_attempts.ts";

const SUBJECTS = { email: "ada@example.com", ip: "192.0.2.1" };
const TTL = { ttlMs: 60_000 };

const counters = async (kv: Deno.Kv) => ({
  email: (await kv.get<LoginCounter>(loginFailuresKey("email", SUBJECTS.email))).value,
  ip: (await kv.get<LoginCounter>(loginFailuresKey("ip", SUBJECTS.ip))).value,
});

/** A policy that counts every attempt, at `lastAt`. */
const countAll = (_scope: LoginScope, counter: LoginCounter | null): LoginVerdict => ({
  next: { count: (counter?.count ?? 0) + 1, lastAt: 1 },
});

Deno.test("[store] reserveLoginAttempt() counts an attempt against both counters", async (t) => {
  await using kv = await Deno.openKv(":memory:");

  await t.step("an allowed attempt raises both counters", async () => {
    assert.deepEqual(await reserveLoginAttempt(kv, SUBJECTS, { ...TTL, decide: countAll }), {
      retryAfterMs: 0,
    });
    await reserveLoginAttempt(kv, SUBJECTS, { ...TTL, decide: countAll });
    assert.deepEqual(await counters(kv), {
      email: { count: 2, lastAt: 1 },
      ip: { count: 2, lastAt: 1 },
    });
  });

  await t.step("a locked counter answers the longest lock and counts nothing", async () => {
    const decide = (scope: LoginScope, counter: LoginCounter | null): LoginVerdict =>
      scope === "ip" ? { retryAfterMs: 5000 } : countAll(scope, counter);
    assert.deepEqual(await reserveLoginAttempt(kv, SUBJECTS, { ...TTL, decide }), {
      retryAfterMs: 5000,
    });
    assert.deepEqual(await counters(kv), {
      email: { count: 2, lastAt: 1 },
      ip: { count: 2, lastAt: 1 },
    });
  });
});

Deno.test("[store] releaseLoginAttempt() gives back a successful sign-in's attempt", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  for (let i = 0; i < 3; i++) {
    await reserveLoginAttempt(kv, SUBJECTS, { ...TTL, decide: countAll });
  }

  await t.step("the email's counter is cleared and the address's lowered by one", async () => {
    await releaseLoginAttempt(kv, SUBJECTS, TTL);
    assert.deepEqual(await counters(kv), { email: null, ip: { count: 2, lastAt: 1 } });
  });

  await t.step("an address counter never goes below zero", async () => {
    for (let i = 0; i < 4; i++) await releaseLoginAttempt(kv, SUBJECTS, TTL);
    assert.deepEqual(await counters(kv), { email: null, ip: { count: 0, lastAt: 1 } });
  });
});
