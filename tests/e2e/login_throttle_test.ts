/**
 * Login throttling under concurrency: guesses are counted before their
 * password is checked, so a burst cannot get more guesses evaluated than the
 * documented number.
 */
import assert from "node:assert/strict";
import { FREE_ATTEMPTS } from "../../src/auth/throttle.ts";
import { authorize, login, signUp } from "../support/builtin_login.ts";
import { startTestServer } from "../support/server.ts";

const OWNER = { email: "owner@acme.test", name: "Olga Owner", password: "correct horse battery" };

Deno.test("[e2e] login throttling: 150 concurrent wrong passwords get at most 5 evaluated", async (t) => {
  await using server = await startTestServer({ worker: false, env: { SIGNUP: "open" } });
  const created = await signUp(server.baseUrl, "", OWNER);
  assert.equal(created.status, 303);
  await created.body?.cancel();

  await t.step(
    "a burst for one account: 401 for the counted guesses, 429 for the rest",
    async () => {
      const results = await Promise.all(
        Array.from(
          { length: 150 },
          (_, i) =>
            authorize(server.baseUrl, { email: OWNER.email, password: `guess ${i}` }).then(
              async ({ response }) => {
                await response.body?.cancel();
                return { status: response.status, retryAfter: response.headers.get("retry-after") };
              },
            ),
        ),
      );
      const statuses = Map.groupBy(results, (r) => r.status);
      const evaluated = statuses.get(401)?.length ?? 0;
      assert.deepEqual([...statuses.keys()].sort(), [401, 429]);
      assert.ok(
        evaluated >= 1 && evaluated <= FREE_ATTEMPTS.email,
        `${evaluated} guesses evaluated`,
      );
      assert.equal(statuses.get(429)!.length, 150 - evaluated);
      assert.ok(statuses.get(429)!.every((r) => Number(r.retryAfter) > 0));
    },
  );

  await t.step("the right password is refused too while the account is locked", async () => {
    const { response, code } = await authorize(server.baseUrl, OWNER);
    assert.equal(response.status, 429);
    assert.equal(code, null);
    await response.body?.cancel();
  });

  await t.step("another account on the same address still signs in", async () => {
    const other = { email: "other@acme.test", name: "Otto Other", password: "another good phrase" };
    const res = await signUp(server.baseUrl, "", other);
    assert.equal(res.status, 303);
    await res.body?.cancel();
    const tokens = await login(server.baseUrl, other);
    assert.ok(tokens.access_token);
  });
});
