/**
 * RFC 7009 token revocation for the built-in provider's public clients.
 */
import { sha256Hex } from "../../lib/hash.ts";
import { getRefreshToken, revokeRefreshFamily } from "../../store/oauth_grants.ts";
import { OAuthFailure } from "./failure.ts";
import type { IdpDeps } from "./types.ts";

/** The fields of a revocation request (RFC 7009 §2.1). */
export interface RevocationRequest {
  token?: string;
  token_type_hint?: string;
  client_id?: string;
}

/** A compact JWS: three base64url parts. Access tokens are JWTs; refresh tokens are not. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Revokes a token. A refresh token ends its whole session (every token
 * rotated from the same sign-in, and the access tokens issued with them, which
 * name the session). An access token alone is not revocable: revoking one fails
 * with `unsupported_token_type`. An unknown or expired token is not an error, as
 * the RFC asks.
 */
export async function revokeToken(
  deps: Pick<IdpDeps, "kv">,
  request: RevocationRequest,
): Promise<void> {
  if (!request.token) throw new OAuthFailure("invalid_request", "token is required");
  if (!request.client_id) {
    throw new OAuthFailure("invalid_client", "client_id is required", 401);
  }
  const entry = await getRefreshToken(deps.kv, await sha256Hex(request.token));
  if (entry) {
    if (entry.value.clientId !== request.client_id) {
      throw new OAuthFailure("invalid_client", "The token was issued to another client", 401);
    }
    await revokeRefreshFamily(deps.kv, entry.value.familyId);
    return;
  }
  if (COMPACT_JWS.test(request.token)) {
    throw new OAuthFailure(
      "unsupported_token_type",
      "Access tokens expire within 15 minutes and cannot be revoked; revoke the refresh token to end the session",
    );
  }
}
