/**
 * The client_credentials grant for collectors: the collector's id and secret
 * buy a 15-minute access token accepted wherever the secret is, scoped to
 * (a subset of) the collector's allowed actions.
 */
import {
  COLLECTOR_TOKEN_TTL_SECONDS,
  collectorForSecret,
  issueCollectorToken,
} from "../collector.ts";
import { OAuthFailure } from "./failure.ts";
import type { IdpDeps, TokenGrant, TokenRequest } from "./types.ts";

/** Client id and secret from HTTP Basic (RFC 6749 §2.3.1) or the form body. */
function clientOf(
  authorization: string | undefined,
  request: TokenRequest,
): { id: string; secret: string } {
  const basic = authorization?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i);
  if (basic) {
    let decoded = "";
    try {
      decoded = atob(basic[1]);
    } catch {
      throw new OAuthFailure("invalid_client", "Malformed Basic credentials", 401);
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new OAuthFailure("invalid_client", "Malformed Basic credentials", 401);
    return {
      id: decodeURIComponent(decoded.slice(0, colon)),
      secret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  }
  if (request.client_id && request.client_secret) {
    return { id: request.client_id, secret: request.client_secret };
  }
  throw new OAuthFailure("invalid_client", "Client authentication is required", 401);
}

/**
 * Authenticates the collector (Basic `authorization` header or form
 * credentials) and issues its access token for the requested scope, or all
 * its allowed actions when none is requested.
 */
export async function clientCredentialsGrant(
  deps: IdpDeps,
  request: TokenRequest,
  options: { authorization?: string },
): Promise<TokenGrant> {
  const client = clientOf(options.authorization, request);
  const collector = await collectorForSecret(deps.kv, client.secret);
  if (!collector || collector.id !== client.id) {
    throw new OAuthFailure("invalid_client", "Unknown client or wrong secret", 401);
  }
  const requested = (request.scope ?? "").split(" ").filter(Boolean);
  if (requested.some((s) => !collector.allowedActions.includes(s))) {
    throw new OAuthFailure("invalid_scope", "The scope exceeds the collector's allowed actions");
  }
  const granted = requested.length
    ? collector.allowedActions.filter((action) => requested.includes(action))
    : collector.allowedActions;
  const { config, keys, clock } = deps;
  const access_token = await issueCollectorToken(
    { config, tokenKey: keys.tokens, now: clock.now() },
    { collector, scope: granted },
  );
  return {
    access_token,
    token_type: "Bearer",
    expires_in: COLLECTOR_TOKEN_TTL_SECONDS,
    scope: granted.join(" "),
  };
}
