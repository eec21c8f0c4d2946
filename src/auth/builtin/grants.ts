/**
 * The token endpoint's grants for people: authorization_code (PKCE S256) and
 * refresh_token, rotated on every use. A second use of a code or of a
 * refresh token revokes the whole session it belongs to, since one of the
 * two presenters is an attacker (RFC 6749 §4.1.2, RFC 9700 §4.14): its refresh
 * tokens and, since each access token names its session (`sid`), its access
 * tokens at once.
 */
import type { Account, RefreshToken } from "../../domain/account.ts";
import { encodeBase64Url, randomToken } from "../../lib/encoding.ts";
import { sha256Hex } from "../../lib/hash.ts";
import { getAccount } from "../../store/accounts.ts";
import {
  getAuthorizationCode,
  getRefreshToken,
  isRefreshFamilyLive,
  redeemAuthorizationCode,
  revokeRefreshFamily,
  rotateRefreshToken,
} from "../../store/oauth_grants.ts";
import type { IdpDeps, TokenGrant, TokenRequest } from "./types.ts";
import { OAuthFailure } from "./failure.ts";
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_MS, signAccessToken } from "./tokens.ts";

const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The PKCE S256 challenge for a verifier (RFC 7636 §4.2). */
async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return encodeBase64Url(new Uint8Array(digest));
}

async function issueTokens(
  deps: IdpDeps,
  grant: {
    account: Account;
    clientId: string;
    scope: string;
    familyId: string;
    refreshToken: string;
  },
): Promise<TokenGrant> {
  const { config, keys, clock } = deps;
  const { account } = grant;
  const access_token = await signAccessToken(keys.tokens, {
    issuer: config.auth.issuer,
    audience: config.auth.audience,
    now: clock.now(),
    ttlSeconds: ACCESS_TOKEN_TTL_SECONDS,
  }, {
    sub: account.id,
    clientId: grant.clientId,
    scope: grant.scope,
    // `sid` names the session, checked on every use: ending it stops this token at once.
    extra: { email: account.email, name: account.name, sid: grant.familyId },
  });
  return {
    access_token,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: grant.refreshToken,
    scope: grant.scope,
  };
}

async function newRefresh(
  deps: Pick<IdpDeps, "clock">,
  base: Pick<RefreshToken, "accountId" | "clientId" | "scope" | "familyId">,
) {
  const token = `tpr_${randomToken()}`;
  const record: RefreshToken = {
    accountId: base.accountId,
    clientId: base.clientId,
    scope: base.scope,
    familyId: base.familyId,
    expiresAt: deps.clock.now().getTime() + REFRESH_TOKEN_TTL_MS,
    used: false,
  };
  return { token, hash: await sha256Hex(token), record };
}

function requireCodeFields(request: TokenRequest) {
  const { code, code_verifier, redirect_uri, client_id } = request;
  if (!code || !code_verifier || !redirect_uri || !client_id) {
    throw new OAuthFailure(
      "invalid_request",
      "code, code_verifier, redirect_uri and client_id are required",
    );
  }
  if (!PKCE_VERIFIER.test(code_verifier)) {
    throw new OAuthFailure("invalid_request", "code_verifier must be 43-128 unreserved characters");
  }
  return { code, code_verifier, redirect_uri, client_id };
}

/**
 * The authorization_code grant: redeems a code once for an access token and
 * the first refresh token of a new session. The code must come back with the
 * client and redirect URI it was issued to and the PKCE verifier of its
 * challenge; redeeming it again revokes the session it started.
 */
export async function authorizationCodeGrant(
  deps: IdpDeps,
  request: TokenRequest,
): Promise<TokenGrant> {
  const { kv, clock } = deps;
  const form = requireCodeFields(request);
  const entry = await getAuthorizationCode(kv, await sha256Hex(form.code));
  // A redeemed code presented again is reuse whenever it comes, expired or not: the
  // session it started is ended (its record is kept as long as that session can live).
  if (entry?.value.familyId) {
    await revokeRefreshFamily(kv, entry.value.familyId);
    throw new OAuthFailure("invalid_grant", "The authorization code was already used");
  }
  if (!entry || entry.value.expiresAt <= clock.now().getTime()) {
    throw new OAuthFailure("invalid_grant", "The authorization code is invalid or expired");
  }
  const code = entry.value;
  if (code.clientId !== form.client_id || code.redirectUri !== form.redirect_uri) {
    throw new OAuthFailure(
      "invalid_grant",
      "The code was issued to another client or redirect_uri",
    );
  }
  if (await s256(form.code_verifier) !== code.codeChallenge) {
    throw new OAuthFailure("invalid_grant", "The code_verifier does not match the code_challenge");
  }
  const account = await getAccount(kv, code.accountId);
  if (!account) throw new OAuthFailure("invalid_grant", "The account no longer exists");
  const familyId = crypto.randomUUID();
  const refresh = await newRefresh(deps, { ...code, familyId });
  const redeemed = await redeemAuthorizationCode(kv, entry, {
    familyId,
    refresh: { hash: refresh.hash, token: refresh.record },
    now: deps.clock.now(),
  });
  if (!redeemed) throw new OAuthFailure("invalid_grant", "The authorization code was already used");
  return await issueTokens(deps, { ...code, account, familyId, refreshToken: refresh.token });
}

/**
 * The refresh_token grant: rotates the refresh token (the old one is marked
 * used) and issues a new access token. A used token presented again revokes
 * its session.
 */
export async function refreshTokenGrant(
  deps: IdpDeps,
  request: TokenRequest,
): Promise<TokenGrant> {
  const { kv, clock } = deps;
  if (!request.refresh_token) {
    throw new OAuthFailure("invalid_request", "refresh_token is required");
  }
  const entry = await getRefreshToken(kv, await sha256Hex(request.refresh_token));
  if (!entry || entry.value.expiresAt <= clock.now().getTime()) {
    throw new OAuthFailure("invalid_grant", "The refresh token is invalid or expired");
  }
  const stored = entry.value;
  if (request.client_id && request.client_id !== stored.clientId) {
    throw new OAuthFailure("invalid_grant", "The refresh token was issued to another client");
  }
  if (stored.used) {
    await revokeRefreshFamily(kv, stored.familyId);
    throw new OAuthFailure(
      "invalid_grant",
      "The refresh token was already used; the session is revoked",
    );
  }
  if (!(await isRefreshFamilyLive(kv, stored.familyId))) {
    throw new OAuthFailure("invalid_grant", "The session was revoked");
  }
  const account = await getAccount(kv, stored.accountId);
  if (!account) throw new OAuthFailure("invalid_grant", "The account no longer exists");
  const next = await newRefresh(deps, stored);
  const rotated = await rotateRefreshToken(kv, entry, {
    next: { hash: next.hash, token: next.record },
    now: deps.clock.now(),
  });
  if (!rotated) throw new OAuthFailure("invalid_grant", "The refresh token was already used");
  return await issueTokens(deps, { ...stored, account, refreshToken: next.token });
}
