/**
 * The built-in identity provider's OAuth 2.0 endpoints: the sign-in form at
 * /oauth2/authorize (authorization code with PKCE S256 only) and
 * /oauth2/token (authorization_code, refresh_token). Token errors use the
 * RFC 6749 §5.2 shape, which OAuth clients parse, instead of the API envelope.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { isAllowedRedirect } from "../../auth/builtin/clients.ts";
import {
  COLLECTOR_TOKEN_TTL_SECONDS,
  collectorForSecret,
  issueCollectorToken,
} from "../../auth/collector.ts";
import {
  ACCESS_TOKEN_TTL_SECONDS,
  AUTHORIZATION_CODE_TTL_MS,
  REFRESH_TOKEN_TTL_MS,
  signAccessToken,
} from "../../auth/builtin/tokens.ts";
import { dummyPasswordHash, verifyPassword } from "../../auth/password.ts";
import { beginLoginAttempt, endLoginAttemptWithSuccess } from "../../auth/throttle.ts";
import { AppError } from "../../domain/errors.ts";
import { encodeBase64Url, randomToken } from "../../lib/encoding.ts";
import { isCsrfTokenValid, issueCsrfToken } from "../csrf.ts";
import { sha256Hex } from "../../lib/hash.ts";
import {
  type Account,
  getAccount,
  getAccountByEmail,
  getAuthorizationCode,
  getRefreshToken,
  isRefreshFamilyLive,
  redeemAuthorizationCode,
  revokeRefreshFamily,
  rotateRefreshToken,
  saveAuthorizationCode,
} from "../../store/accounts.ts";
import { clientIp } from "../client_ip.ts";
import { type AppEnv, createRouter, type Services } from "../env.ts";
import { html } from "../../lib/html.ts";
import { pageHeaders, renderPage } from "../html.ts";
import { json } from "../openapi.ts";

export const oauthRoutes = createRouter();

const tags = ["OAuth"];
const CSRF_COOKIE = "tp_csrf";
const SCOPES = ["api"];

const AuthorizeParams = z.object({
  response_type: z.string().max(64),
  client_id: z.string().max(256),
  redirect_uri: z.string().max(2048),
  code_challenge: z.string().max(256).optional(),
  code_challenge_method: z.string().max(32).optional(),
  state: z.string().max(1024).optional(),
  scope: z.string().max(1024).optional(),
});
type AuthorizeParams = z.infer<typeof AuthorizeParams>;

const LoginForm = AuthorizeParams.extend({
  csrf: z.string().max(128),
  email: z.string().max(254),
  password: z.string().max(512),
});

const TokenForm = z.object({
  grant_type: z.string().max(64),
  code: z.string().max(256).optional(),
  redirect_uri: z.string().max(2048).optional(),
  code_verifier: z.string().max(256).optional(),
  client_id: z.string().max(256).optional(),
  client_secret: z.string().max(256).optional(),
  refresh_token: z.string().max(256).optional(),
  scope: z.string().max(1024).optional(),
}).openapi("TokenRequest");

const TokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.int(),
  refresh_token: z.string().optional(),
  scope: z.string(),
}).openapi("TokenResponse");

const OAuthError = z.object({
  error: z.string(),
  error_description: z.string(),
}).openapi("OAuthError");

const HtmlPage = { content: { "text/html": { schema: z.string() } } };

/** An RFC 6749 §5.2 error from the token endpoint. */
class OAuthFailure extends Error {
  constructor(readonly error: string, description: string, readonly status: 400 | 401 = 400) {
    super(description);
  }
}

/** Answers an OAuthFailure in the RFC 6749 §5.2 shape; anything else is rethrown. */
function oauthError(c: Context<AppEnv>, error: unknown) {
  if (!(error instanceof OAuthFailure)) throw error;
  return c.json({ error: error.error, error_description: error.message }, error.status);
}

/** The validation hook of a form endpoint: a malformed form is invalid_request, never cached. */
function malformedForm(description: string) {
  return (result: { success: boolean }, c: Context<AppEnv>) => {
    if (!result.success) {
      c.header("Cache-Control", "no-store");
      return c.json({ error: "invalid_request", error_description: description }, 400);
    }
  };
}

function errorPage(c: Context<AppEnv>, message: string, status: 400 | 401 | 429 = 400) {
  const body = renderPage(
    "Sign-in problem",
    html`
      <h1>Sign-in problem</h1>
      <p class="error">${message}</p>
    `,
  );
  return c.body(body, status, pageHeaders());
}

/** The PKCE S256 challenge for a verifier (RFC 7636 §4.2). */
async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return encodeBase64Url(new Uint8Array(digest));
}

const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * Checks an authorization request. Problems with the client or redirect URI
 * are shown on a page (never redirected, RFC 6749 §4.1.2.1); the rest are
 * sent back to the client as `error=` on its redirect URI.
 */
function checkAuthorize(
  services: Services,
  p: AuthorizeParams,
): { page?: string; redirect?: string } {
  if (p.client_id !== services.config.auth.clientId) return { page: "Unknown client_id" };
  if (!isAllowedRedirect(services.config, p.client_id, p.redirect_uri)) {
    return { page: "This redirect_uri is not registered for the client" };
  }
  if (p.response_type !== "code") return { redirect: "unsupported_response_type" };
  if (
    p.code_challenge_method !== "S256" || !p.code_challenge ||
    !PKCE_CHALLENGE.test(p.code_challenge)
  ) {
    return { redirect: "invalid_request" };
  }
  const scopes = (p.scope ?? "api").split(" ").filter(Boolean);
  if (scopes.some((s) => !SCOPES.includes(s))) return { redirect: "invalid_scope" };
  return {};
}

function redirectWith(
  services: Services,
  p: AuthorizeParams,
  params: Record<string, string>,
): string {
  const url = new URL(p.redirect_uri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (p.state) url.searchParams.set("state", p.state);
  url.searchParams.set("iss", services.config.auth.issuer);
  return url.toString();
}

function loginForm(
  c: Context<AppEnv>,
  p: AuthorizeParams,
  options: { error?: string; email?: string; status?: 200 | 401 | 429 },
) {
  const { config } = c.var.services;
  const csrf = issueCsrfToken(c, CSRF_COOKIE, "/oauth2");
  const hidden = Object.entries(p)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  const signup = config.signup === "open"
    ? html`<p>No account yet? <a href="/signup">Create one</a>.</p>`
    : "";
  const body = html`<h1>Sign in to Trust Profile</h1>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ""}
<form method="post" action="/oauth2/authorize">
${hidden}
<input type="hidden" name="csrf" value="${csrf}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${
    options.email ?? ""
  }">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${signup}`;
  const origin = new URL(p.redirect_uri).origin;
  return c.body(renderPage("Sign in", body), options.status ?? 200, pageHeaders([origin]));
}

oauthRoutes.openapi(
  createRoute({
    method: "get",
    path: "/oauth2/authorize",
    operationId: "authorize",
    tags,
    summary: "Sign-in form for the authorization code flow (PKCE S256 required)",
    request: { query: AuthorizeParams },
    responses: {
      200: { ...HtmlPage, description: "The sign-in form" },
      302: { description: "Back to the client with an `error` parameter" },
      400: { ...HtmlPage, description: "Unknown client or unregistered redirect URI" },
    },
  }),
  (c) => {
    const p = c.req.valid("query");
    const check = checkAuthorize(c.var.services, p);
    if (check.page) return errorPage(c, check.page);
    if (check.redirect) {
      return c.redirect(redirectWith(c.var.services, p, { error: check.redirect }), 302);
    }
    return loginForm(c, p, {});
  },
  (result, c) => {
    if (!result.success) {
      return errorPage(c, "The authorization request is missing required parameters");
    }
  },
);

oauthRoutes.openapi(
  createRoute({
    method: "post",
    path: "/oauth2/authorize",
    operationId: "authorizeSubmit",
    tags,
    summary: "Submit the sign-in form; redirects back to the client with a code",
    request: {
      body: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: LoginForm } },
      },
    },
    responses: {
      303: { description: "Back to the client with `code`, `state` and `iss`" },
      400: { ...HtmlPage, description: "Invalid authorization request" },
      401: { ...HtmlPage, description: "The form again, with an error" },
      429: { ...HtmlPage, description: "Too many failed attempts" },
    },
  }),
  async (c) => {
    const { csrf, email, password, ...p } = c.req.valid("form");
    const services = c.var.services;
    const check = checkAuthorize(services, p);
    if (check.page) return errorPage(c, check.page);
    if (check.redirect) {
      return c.redirect(redirectWith(services, p, { error: check.redirect }), 303);
    }
    if (!isCsrfTokenValid(c, CSRF_COOKIE, csrf)) {
      return errorPage(c, "The sign-in form expired; please start again from the application");
    }
    const { kv, clock } = services;
    const now = clock.now();
    const subjects = { email: email.trim().toLowerCase(), ip: clientIp(c) };
    try {
      await beginLoginAttempt(kv, subjects, now);
    } catch (error) {
      if (error instanceof AppError) {
        c.header("Retry-After", error.headers["Retry-After"]);
        return loginForm(c, p, { error: error.message, email, status: 429 });
      }
      throw error;
    }
    const account = await getAccountByEmail(kv, subjects.email);
    const valid = await verifyPassword(
      password,
      account?.passwordHash ?? await dummyPasswordHash(),
    );
    if (!account || !valid) {
      return loginForm(c, p, { error: "Email or password is incorrect", email, status: 401 });
    }
    await endLoginAttemptWithSuccess(kv, subjects);
    const code = randomToken();
    await saveAuthorizationCode(kv, await sha256Hex(code), {
      accountId: account.id,
      clientId: p.client_id,
      redirectUri: p.redirect_uri,
      codeChallenge: p.code_challenge!,
      scope: p.scope ?? "api",
      expiresAt: now.getTime() + AUTHORIZATION_CODE_TTL_MS,
      familyId: null,
    }, AUTHORIZATION_CODE_TTL_MS);
    return c.redirect(redirectWith(services, p, { code }), 303);
  },
  (result, c) => {
    if (!result.success) return errorPage(c, "The sign-in form is incomplete");
  },
);

async function issueTokens(
  services: Services,
  account: Account,
  grant: { clientId: string; scope: string },
  refreshToken: string,
) {
  const { config, keys, clock } = services;
  const access_token = await signAccessToken(keys.tokens, {
    issuer: config.auth.issuer,
    audience: config.auth.audience,
    now: clock.now(),
    ttlSeconds: ACCESS_TOKEN_TTL_SECONDS,
  }, {
    sub: account.id,
    clientId: grant.clientId,
    scope: grant.scope,
    extra: { email: account.email, name: account.name },
  });
  return {
    access_token,
    token_type: "Bearer" as const,
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refreshToken,
    scope: grant.scope,
  };
}

async function newRefresh(
  services: Services,
  base: { accountId: string; clientId: string; scope: string; familyId: string },
) {
  const token = `tpr_${randomToken()}`;
  const hash = await sha256Hex(token);
  const record = {
    ...base,
    expiresAt: services.clock.now().getTime() + REFRESH_TOKEN_TTL_MS,
    used: false,
  };
  return { token, hash, record };
}

async function authorizationCodeGrant(services: Services, form: z.infer<typeof TokenForm>) {
  const { kv, clock } = services;
  if (!form.code || !form.code_verifier || !form.redirect_uri || !form.client_id) {
    throw new OAuthFailure(
      "invalid_request",
      "code, code_verifier, redirect_uri and client_id are required",
    );
  }
  if (!PKCE_VERIFIER.test(form.code_verifier)) {
    throw new OAuthFailure("invalid_request", "code_verifier must be 43-128 unreserved characters");
  }
  const entry = await getAuthorizationCode(kv, await sha256Hex(form.code));
  const code = entry.value;
  if (!code || code.expiresAt <= clock.now().getTime()) {
    throw new OAuthFailure("invalid_grant", "The authorization code is invalid or expired");
  }
  if (code.familyId) {
    await revokeRefreshFamily(kv, code.familyId);
    throw new OAuthFailure("invalid_grant", "The authorization code was already used");
  }
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
  const refresh = await newRefresh(services, {
    accountId: account.id,
    clientId: code.clientId,
    scope: code.scope,
    familyId,
  });
  const redeemed = await redeemAuthorizationCode(
    kv,
    entry as Deno.KvEntry<typeof code>,
    familyId,
    { hash: refresh.hash, token: refresh.record },
  );
  if (!redeemed) throw new OAuthFailure("invalid_grant", "The authorization code was already used");
  return await issueTokens(services, account, code, refresh.token);
}

async function refreshTokenGrant(services: Services, form: z.infer<typeof TokenForm>) {
  const { kv, clock } = services;
  if (!form.refresh_token) throw new OAuthFailure("invalid_request", "refresh_token is required");
  const entry = await getRefreshToken(kv, await sha256Hex(form.refresh_token));
  const stored = entry.value;
  if (!stored || stored.expiresAt <= clock.now().getTime()) {
    throw new OAuthFailure("invalid_grant", "The refresh token is invalid or expired");
  }
  if (form.client_id && form.client_id !== stored.clientId) {
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
  const next = await newRefresh(services, stored);
  const rotated = await rotateRefreshToken(
    kv,
    entry as Deno.KvEntry<typeof stored>,
    { hash: next.hash, token: next.record },
  );
  if (!rotated) throw new OAuthFailure("invalid_grant", "The refresh token was already used");
  return await issueTokens(services, account, stored, next.token);
}

/** Client id and secret from HTTP Basic (RFC 6749 §2.3.1) or the form body. */
function clientCredentials(
  header: string | undefined,
  form: z.infer<typeof TokenForm>,
): { id: string; secret: string } {
  const basic = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i);
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
  if (form.client_id && form.client_secret) {
    return { id: form.client_id, secret: form.client_secret };
  }
  throw new OAuthFailure("invalid_client", "Client authentication is required", 401);
}

/** A collector's secret for a 15-minute access token accepted wherever the secret is. */
async function clientCredentialsGrant(
  services: Services,
  client: { id: string; secret: string },
  form: z.infer<typeof TokenForm>,
) {
  const collector = await collectorForSecret(services.kv, client.secret);
  if (!collector || collector.id !== client.id) {
    throw new OAuthFailure("invalid_client", "Unknown client or wrong secret", 401);
  }
  const requested = (form.scope ?? "").split(" ").filter(Boolean);
  if (requested.some((s) => !collector.allowedActions.includes(s))) {
    throw new OAuthFailure("invalid_scope", "The scope exceeds the collector's allowed actions");
  }
  const granted = requested.length
    ? collector.allowedActions.filter((action) => requested.includes(action))
    : collector.allowedActions;
  const { config, keys, clock } = services;
  const access_token = await issueCollectorToken(
    { config, tokenKey: keys.tokens, now: clock.now() },
    { collector, scope: granted },
  );
  const scope = granted.join(" ");
  return {
    access_token,
    token_type: "Bearer" as const,
    expires_in: COLLECTOR_TOKEN_TTL_SECONDS,
    scope,
  };
}

oauthRoutes.openapi(
  createRoute({
    method: "post",
    path: "/oauth2/token",
    operationId: "token",
    tags,
    summary: "Exchange a grant for an access token",
    description:
      "Grants: authorization_code (PKCE S256), refresh_token (rotated on every use; reuse revokes the session), client_credentials (client_id = collector id, client_secret = collector secret; a 15-minute collector token). Errors follow RFC 6749 §5.2.",
    request: {
      body: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: TokenForm } },
      },
    },
    responses: {
      200: json(TokenResponse, "The access token (an RFC 9068 JWT) and a refresh token"),
      400: json(OAuthError, "The grant is invalid"),
      401: json(OAuthError, "Client authentication failed"),
    },
  }),
  async (c) => {
    c.header("Cache-Control", "no-store");
    const form = c.req.valid("form");
    const services = c.var.services;
    try {
      if (form.grant_type === "authorization_code") {
        return c.json(await authorizationCodeGrant(services, form), 200);
      }
      if (form.grant_type === "refresh_token") {
        return c.json(await refreshTokenGrant(services, form), 200);
      }
      if (form.grant_type === "client_credentials") {
        const client = clientCredentials(c.req.header("authorization"), form);
        return c.json(await clientCredentialsGrant(services, client, form), 200);
      }
      throw new OAuthFailure(
        "unsupported_grant_type",
        `Grant type "${form.grant_type}" is not supported`,
      );
    } catch (error) {
      if (error instanceof OAuthFailure && error.status === 401) {
        c.header("WWW-Authenticate", 'Basic realm="oauth2/token"');
      }
      return oauthError(c, error);
    }
  },
  malformedForm("The token request is malformed"),
);

const RevocationForm = z.object({
  token: z.string().max(4096).optional(),
  token_type_hint: z.string().max(64).optional(),
  client_id: z.string().max(256).optional(),
}).openapi("RevocationRequest");

/** A compact JWS: three base64url parts. Access tokens are JWTs; refresh tokens are not. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * RFC 7009 token revocation for the built-in provider's public clients. A refresh token ends
 * its whole session (every token rotated from the same sign-in). Access tokens are
 * self-contained JWTs that expire within 15 minutes, so revoking one is answered with
 * `unsupported_token_type`. An unknown or expired token is answered 200, as the RFC asks.
 */
async function revokeToken(services: Services, form: z.infer<typeof RevocationForm>) {
  if (!form.token) throw new OAuthFailure("invalid_request", "token is required");
  if (!form.client_id) {
    throw new OAuthFailure("invalid_client", "client_id is required", 401);
  }
  const entry = await getRefreshToken(services.kv, await sha256Hex(form.token));
  const stored = entry.value;
  if (stored) {
    if (stored.clientId !== form.client_id) {
      throw new OAuthFailure("invalid_client", "The token was issued to another client", 401);
    }
    await revokeRefreshFamily(services.kv, stored.familyId);
    return;
  }
  if (COMPACT_JWS.test(form.token)) {
    throw new OAuthFailure(
      "unsupported_token_type",
      "Access tokens expire within 15 minutes and cannot be revoked; revoke the refresh token to end the session",
    );
  }
}

oauthRoutes.openapi(
  createRoute({
    method: "post",
    path: "/oauth2/revoke",
    operationId: "revokeToken",
    tags,
    summary: "Revoke a refresh token, ending its session (RFC 7009)",
    description:
      "Public clients send token and client_id. A refresh token ends every token of its sign-in; an unknown or expired token is answered 200 as RFC 7009 §2.2 asks; an access token (a JWT living 15 minutes) is answered unsupported_token_type.",
    request: {
      body: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: RevocationForm } },
      },
    },
    responses: {
      200: { description: "Revoked, or there was nothing to revoke" },
      400: json(OAuthError, "The request is malformed or the token type is not revocable"),
      401: json(OAuthError, "The client is missing or is not the token's"),
    },
  }),
  async (c) => {
    c.header("Cache-Control", "no-store");
    try {
      await revokeToken(c.var.services, c.req.valid("form"));
      return c.body(null, 200);
    } catch (error) {
      return oauthError(c, error);
    }
  },
  malformedForm("The revocation request is malformed"),
);
