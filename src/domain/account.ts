/**
 * Records of the built-in identity provider: local accounts, the grants that
 * lead to tokens (authorization codes, refresh tokens) and the sign-in
 * attempt counters of login throttling.
 */

export interface Account {
  id: string;
  email: string;
  name: string;
  passwordHash: string;
  createdAt: string;
}

export interface AuthorizationCode {
  accountId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  expiresAt: number;
  /** Set when redeemed; a second redemption revokes the tokens of this family. */
  familyId: string | null;
}

export interface RefreshToken {
  accountId: string;
  clientId: string;
  scope: string;
  familyId: string;
  expiresAt: number;
  used: boolean;
}

/** Attempts counted in the current window and the time of the last one. */
export interface LoginCounter {
  count: number;
  lastAt: number;
}

export type LoginScope = "email" | "ip";

/**
 * A one-time sign-in link emailed while password sign-in is locked for an address, stored
 * under the SHA-256 of its token: it completes the authorization request it was asked
 * from, once, before `expiresAt` (epoch ms).
 */
export interface SignInLink {
  accountId: string;
  request: {
    response_type: string;
    client_id: string;
    redirect_uri: string;
    code_challenge?: string;
    code_challenge_method?: string;
    state?: string;
    scope?: string;
  };
  expiresAt: number;
}

/** What the throttling policy says of a counter: locked for `retryAfterMs`, or the next value. */
export type LoginVerdict = { retryAfterMs: number } | { next: LoginCounter };
