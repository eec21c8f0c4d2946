/**
 * What the built-in identity provider's OAuth endpoints share (src/http/routes/oauth.ts and the
 * files it mounts): the forms' schemas, the cookies, the error shapes and the HTML of the
 * sign-in form and its error pages.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type AuthorizationRequest } from "../auth/builtin/authorize.ts";
import { OAuthFailure } from "../auth/builtin/failure.ts";
import { SIGN_IN_LINK_TTL_MS } from "../auth/builtin/sign_in_link.ts";
import { html } from "../lib/html.ts";
import { issueCsrfToken } from "./csrf.ts";
import { type AppEnv } from "./env.ts";
import { pageHeaders, renderPage } from "./html.ts";

export const tags = ["OAuth"];
export const CSRF_COOKIE = "tp_csrf";
/** Set by the sign-up form (routes/signup.ts) for the authorization request that follows it. */
export const SIGN_IN_COOKIE = "tp_sign_in";

export const AuthorizeParams = z.object({
  response_type: z.string().max(64),
  client_id: z.string().max(256),
  redirect_uri: z.string().max(2048),
  code_challenge: z.string().max(256).optional(),
  code_challenge_method: z.string().max(32).optional(),
  state: z.string().max(1024).optional(),
  scope: z.string().max(1024).optional(),
});

export const LoginForm = AuthorizeParams.extend({
  csrf: z.string().max(128),
  email: z.string().max(254),
  password: z.string().max(512),
});

export const LinkRequestForm = AuthorizeParams.extend({
  csrf: z.string().max(128),
  email: z.string().max(254),
});

export const TokenForm = z.object({
  grant_type: z.string().max(64),
  code: z.string().max(256).optional(),
  redirect_uri: z.string().max(2048).optional(),
  code_verifier: z.string().max(256).optional(),
  client_id: z.string().max(256).optional(),
  client_secret: z.string().max(256).optional(),
  refresh_token: z.string().max(256).optional(),
  scope: z.string().max(1024).optional(),
}).openapi("TokenRequest");

export const TokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.int(),
  refresh_token: z.string().optional(),
  scope: z.string(),
}).openapi("TokenResponse");

export const OAuthError = z.object({
  error: z.string(),
  error_description: z.string(),
}).openapi("OAuthError");

export const HtmlPage = { content: { "text/html": { schema: z.string() } } };

/** Answers an OAuthFailure in the RFC 6749 §5.2 shape; anything else is rethrown. */
export function oauthError(c: Context<AppEnv>, error: unknown) {
  if (!(error instanceof OAuthFailure)) throw error;
  return c.json({ error: error.error, error_description: error.message }, error.status);
}

/** The validation hook of a form endpoint: a malformed form is invalid_request, never cached. */
export function malformedForm(description: string) {
  return (result: { success: boolean }, c: Context<AppEnv>) => {
    if (!result.success) {
      c.header("Cache-Control", "no-store");
      return c.json({ error: "invalid_request", error_description: description }, 400);
    }
  };
}

export function errorPage(c: Context<AppEnv>, message: string) {
  const body = html`<h1>Sign-in problem</h1>
<p class="error">${message}</p>`;
  return c.body(renderPage("Sign-in problem", body), 400, pageHeaders());
}

/** The client's redirect URI with `params`, the request's `state` and our `iss` (RFC 9207). */
export function clientRedirect(
  request: AuthorizationRequest,
  { issuer, params }: { issuer: string; params: Record<string, string> },
): string {
  const url = new URL(request.redirect_uri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (request.state) url.searchParams.set("state", request.state);
  url.searchParams.set("iss", issuer);
  return url.toString();
}

/** The authorization request's parameters as hidden form fields. */
export function hiddenFields(p: AuthorizationRequest) {
  return Object.entries(p)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
}

/**
 * While sign-in is locked for an address and email is configured: a button that emails the
 * address's owner a one-time sign-in link for this same authorization request.
 */
export function linkOffer(p: AuthorizationRequest, options: { csrf: string; email: string }) {
  const minutes = SIGN_IN_LINK_TTL_MS / 60_000;
  return html`<form method="post" action="/oauth2/authorize/email-link">
${hiddenFields(p)}
<input type="hidden" name="csrf" value="${options.csrf}">
<input type="hidden" name="email" value="${options.email}">
<p>Locked out by someone else's attempts? If this is your address, we can email you a
one-time link that signs you in (valid ${minutes} minutes, in this browser).</p>
<button type="submit">Email me a sign-in link</button>
</form>`;
}

export function loginForm(
  c: Context<AppEnv>,
  p: AuthorizationRequest,
  options: { error?: string; email?: string; status?: 200 | 401 | 429; offerLink?: boolean },
) {
  const { config, mailer } = c.var.services;
  const csrf = issueCsrfToken(c, CSRF_COOKIE, "/oauth2");
  const hidden = hiddenFields(p);
  const offer = options.offerLink && mailer.configured && options.email
    ? linkOffer(p, { csrf, email: options.email })
    : "";
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
${offer}
${signup}`;
  const origin = new URL(p.redirect_uri).origin;
  const description =
    "Sign in to the Trust Profile Service to manage your organization's trust profile, evidence and documents.";
  return c.body(
    renderPage("Sign in", body, "card", description),
    options.status ?? 200,
    pageHeaders([origin]),
  );
}
