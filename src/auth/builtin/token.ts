/**
 * The token endpoint's dispatch: each grant type to its grant, any other to
 * `unsupported_grant_type`.
 */
import { clientCredentialsGrant } from "./client_credentials.ts";
import { OAuthFailure } from "./failure.ts";
import { authorizationCodeGrant, refreshTokenGrant } from "./grants.ts";
import type { IdpDeps, TokenGrant, TokenRequest } from "./types.ts";

/**
 * Exchanges a grant for tokens: authorization_code, refresh_token, or
 * client_credentials (authenticated by the `authorization` header or the
 * form). Throws an OAuthFailure for anything the client got wrong.
 */
export async function exchangeGrant(
  deps: IdpDeps,
  request: TokenRequest,
  options: { authorization?: string } = {},
): Promise<TokenGrant> {
  switch (request.grant_type) {
    case "authorization_code":
      return await authorizationCodeGrant(deps, request);
    case "refresh_token":
      return await refreshTokenGrant(deps, request);
    case "client_credentials":
      return await clientCredentialsGrant(deps, request, options);
  }
  throw new OAuthFailure(
    "unsupported_grant_type",
    `Grant type "${request.grant_type}" is not supported`,
  );
}
