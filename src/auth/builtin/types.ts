/**
 * Shapes shared by the built-in identity provider's flows: what they need
 * from the service, and the token endpoint's request and response.
 */
import type { Config } from "../../config.ts";
import type { Clock } from "../../lib/clock.ts";
import type { SigningKey } from "../keys.ts";

/** Storage, time, configuration and the key that signs access tokens; passed in. */
export interface IdpDeps {
  kv: Deno.Kv;
  clock: Clock;
  config: Config;
  keys: { tokens: SigningKey };
}

/** The fields of a token request (RFC 6749 §4.1.3, §6, §4.4.2). */
export interface TokenRequest {
  grant_type: string;
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
  client_id?: string;
  client_secret?: string;
  refresh_token?: string;
  scope?: string;
}

/** A successful token response (RFC 6749 §5.1). */
export interface TokenGrant {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token?: string;
  scope: string;
}
