/**
 * The authorization endpoint's logic: checking an authorization request
 * (authorization code with PKCE S256 only), authenticating the person signing
 * in under login throttling, and issuing the one-time authorization code.
 */
import type { Config } from "../../config.ts";
import type { Account } from "../../domain/account.ts";
import { randomToken } from "../../lib/encoding.ts";
import { sha256Hex } from "../../lib/hash.ts";
import { getAccountByEmail } from "../../store/accounts.ts";
import { saveAuthorizationCode } from "../../store/oauth_grants.ts";
import { dummyPasswordHash, verifyPassword } from "../password.ts";
import { beginLoginAttempt, endLoginAttemptWithSuccess, type LoginSubjects } from "../throttle.ts";
import { isAllowedRedirect } from "./clients.ts";
import { AUTHORIZATION_CODE_TTL_MS } from "./tokens.ts";
import type { IdpDeps } from "./types.ts";

/** The parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3). */
export interface AuthorizationRequest {
  response_type: string;
  client_id: string;
  redirect_uri: string;
  code_challenge?: string;
  code_challenge_method?: string;
  state?: string;
  scope?: string;
}

/**
 * What is wrong with an authorization request: `page` for problems with the
 * client or redirect URI, shown to the person and never redirected (RFC 6749
 * §4.1.2.1); `redirect` for an `error` code sent back to the client.
 */
export type AuthorizationProblem = { page: string } | { redirect: string };

const SCOPES = ["api"];
const DEFAULT_SCOPE = "api";
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Checks an authorization request; null when it may proceed to sign-in. */
export function checkAuthorizationRequest(
  config: Config,
  request: AuthorizationRequest,
): AuthorizationProblem | null {
  if (request.client_id !== config.auth.clientId) return { page: "Unknown client_id" };
  if (!isAllowedRedirect(config, request.client_id, request.redirect_uri)) {
    return { page: "This redirect_uri is not registered for the client" };
  }
  if (request.response_type !== "code") return { redirect: "unsupported_response_type" };
  if (
    request.code_challenge_method !== "S256" || !request.code_challenge ||
    !PKCE_CHALLENGE.test(request.code_challenge)
  ) {
    return { redirect: "invalid_request" };
  }
  const scopes = (request.scope ?? DEFAULT_SCOPE).split(" ").filter(Boolean);
  if (scopes.some((s) => !SCOPES.includes(s))) return { redirect: "invalid_scope" };
  return null;
}

/**
 * Authenticates a sign-in: the attempt is counted first (throwing
 * `rate_limited` while the email or address is locked), then the password is
 * checked, against a dummy hash for an unknown email so both take as long.
 * Returns the account, or null when the email or password is wrong.
 */
export async function authenticateAccount(
  deps: Pick<IdpDeps, "kv" | "clock">,
  credentials: { email: string; password: string; ip: string },
): Promise<Account | null> {
  const { kv, clock } = deps;
  const subjects: LoginSubjects = {
    email: credentials.email.trim().toLowerCase(),
    ip: credentials.ip,
  };
  await beginLoginAttempt(kv, subjects, clock.now());
  const account = await getAccountByEmail(kv, subjects.email);
  const valid = await verifyPassword(
    credentials.password,
    account?.passwordHash ?? await dummyPasswordHash(),
  );
  if (!account || !valid) return null;
  await endLoginAttemptWithSuccess(kv, subjects);
  return account;
}

/**
 * Issues a one-time authorization code for a checked request: only its
 * SHA-256 is stored, with the PKCE challenge it must be redeemed with.
 */
export async function issueAuthorizationCode(
  deps: Pick<IdpDeps, "kv" | "clock">,
  { account, request }: { account: Account; request: AuthorizationRequest },
): Promise<string> {
  const code = randomToken();
  await saveAuthorizationCode(deps.kv, {
    accountId: account.id,
    clientId: request.client_id,
    redirectUri: request.redirect_uri,
    codeChallenge: request.code_challenge!,
    scope: request.scope ?? DEFAULT_SCOPE,
    expiresAt: deps.clock.now().getTime() + AUTHORIZATION_CODE_TTL_MS,
    familyId: null,
  }, { hash: await sha256Hex(code), ttlMs: AUTHORIZATION_CODE_TTL_MS });
  return code;
}
