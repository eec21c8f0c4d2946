/**
 * Built-in access tokens for tests, minted with the service's own key: each names a sign-in
 * session (`sid`) opened for it in KV, as the token endpoint's are, since the verifier
 * refuses a token whose session is missing or ended.
 */
import { signAccessToken } from "../../src/auth/builtin/tokens.ts";
import type { SigningKey } from "../../src/auth/keys.ts";
import type { Config } from "../../src/config.ts";
import { refreshFamilyKey } from "../../src/store/keys.ts";

/** A valid access token for `sub`, its session opened in `kv`. */
export async function mintAccessToken(
  kv: Deno.Kv,
  options: { key: SigningKey; config: Config; now: Date; ttlSeconds: number },
  claims: { sub: string; email: string; name: string },
): Promise<string> {
  const sid = crypto.randomUUID();
  await kv.set(refreshFamilyKey(sid), { accountId: claims.sub }, { expireIn: 86_400_000 });
  const { config } = options;
  return await signAccessToken(options.key, {
    issuer: config.auth.issuer,
    audience: config.auth.audience,
    now: options.now,
    ttlSeconds: options.ttlSeconds,
  }, {
    sub: claims.sub,
    clientId: config.auth.clientId,
    scope: "api",
    extra: { email: claims.email, name: claims.name, sid },
  });
}
