/**
 * The OIDC verifier keeps userinfo answers (for tokens without an email claim) for at most
 * 10,000 subjects, oldest out: the map does not grow with every subject that signs in.
 */
import assert from "node:assert/strict";
import { createOidcVerifier } from "../../src/auth/human.ts";
import { fakeClock } from "../../src/lib/clock.ts";

const ISSUER = "https://idp.test";

Deno.test("userinfo answers are kept for at most 10,000 subjects, the oldest dropped first", async () => {
  const asked: string[] = [];
  const fakeFetch = (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url === `${ISSUER}/.well-known/openid-configuration`) {
      return Promise.resolve(Response.json({ userinfo_endpoint: `${ISSUER}/userinfo` }));
    }
    const token = new Headers(init?.headers).get("authorization")!.slice("Bearer ".length);
    asked.push(token);
    return Promise.resolve(Response.json({ email: `${token}@example.com` }));
  };
  const verifier = createOidcVerifier({
    issuer: ISSUER,
    audience: "trust",
    clock: fakeClock(),
    fetch: fakeFetch as typeof fetch,
  });
  const identify = (sub: string) => verifier.identify(sub, { sub });

  assert.equal((await identify("first")).email, "first@example.com");
  await identify("first");
  assert.deepEqual(asked, ["first"], "a second sign-in within the TTL is answered from memory");

  for (let i = 0; i < 10_000; i++) await identify(`s${i}`);
  asked.length = 0;
  await identify("s9999");
  assert.deepEqual(asked, [], "the newest subject is still kept");
  await identify("first");
  assert.deepEqual(asked, ["first"], "the oldest subject was dropped to make room");
});
