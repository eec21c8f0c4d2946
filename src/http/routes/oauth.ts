/**
 * The built-in identity provider's OAuth 2.0 endpoints: the sign-in form at
 * /oauth2/authorize, /oauth2/token and /oauth2/revoke. They parse and answer;
 * the grant logic is in src/auth/builtin. Token errors use the RFC 6749 §5.2
 * shape, which OAuth clients parse, instead of the API envelope.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteCookie, getCookie } from "hono/cookie";
import {
  authenticateAccount,
  type AuthorizationRequest,
  checkAuthorizationRequest,
  issueAuthorizationCode,
} from "../../auth/builtin/authorize.ts";
import { OAuthFailure } from "../../auth/builtin/failure.ts";
import {
  inspectSignInLink,
  requestSignInLink,
  SIGN_IN_LINK_TTL_MS,
  useSignInLink,
} from "../../auth/builtin/sign_in_link.ts";
import { redeemSignInTicket } from "../../auth/builtin/sign_in_ticket.ts";
import { revokeToken } from "../../auth/builtin/revoke.ts";
import { exchangeGrant } from "../../auth/builtin/token.ts";
import { loginLockedForMs } from "../../auth/throttle.ts";
import { AppError } from "../../domain/errors.ts";
import { html } from "../../lib/html.ts";
import { clientIp } from "../client_ip.ts";
import { isCsrfTokenValid, issueCsrfToken } from "../csrf.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { pageHeaders, renderPage } from "../html.ts";
import { json } from "../openapi.ts";

export const oauthRoutes = createRouter();

const tags = ["OAuth"];
const CSRF_COOKIE = "tp_csrf";
/** Set by the sign-up form (routes/signup.ts) for the authorization request that follows it. */
const SIGN_IN_COOKIE = "tp_sign_in";

const AuthorizeParams = z.object({
  response_type: z.string().max(64),
  client_id: z.string().max(256),
  redirect_uri: z.string().max(2048),
  code_challenge: z.string().max(256).optional(),
  code_challenge_method: z.string().max(32).optional(),
  state: z.string().max(1024).optional(),
  scope: z.string().max(1024).optional(),
});

const LoginForm = AuthorizeParams.extend({
  csrf: z.string().max(128),
  email: z.string().max(254),
  password: z.string().max(512),
});

const LinkRequestForm = AuthorizeParams.extend({
  csrf: z.string().max(128),
  email: z.string().max(254),
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

function errorPage(c: Context<AppEnv>, message: string) {
  const body = html`<h1>Sign-in problem</h1>
<p class="error">${message}</p>`;
  return c.body(renderPage("Sign-in problem", body), 400, pageHeaders());
}

/** The client's redirect URI with `params`, the request's `state` and our `iss` (RFC 9207). */
function clientRedirect(
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
function hiddenFields(p: AuthorizationRequest) {
  return Object.entries(p)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
}

/**
 * While sign-in is locked for an address and email is configured: a button that emails the
 * address's owner a one-time sign-in link for this same authorization request.
 */
function linkOffer(p: AuthorizationRequest, options: { csrf: string; email: string }) {
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

function loginForm(
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
      303: {
        description:
          "Back to the client with `code`, `state` and `iss` without the form: the browser has just signed up (a one-time cookie the sign-up set)",
      },
      400: { ...HtmlPage, description: "Unknown client or unregistered redirect URI" },
    },
  }),
  async (c) => {
    const p = c.req.valid("query");
    const services = c.var.services;
    const { config } = services;
    const problem = checkAuthorizationRequest(config, p);
    if (problem && "page" in problem) return errorPage(c, problem.page);
    if (!problem) {
      const ticket = getCookie(c, SIGN_IN_COOKIE);
      if (ticket === undefined) return loginForm(c, p, {});
      deleteCookie(c, SIGN_IN_COOKIE, { path: "/oauth2/authorize" });
      const account = await redeemSignInTicket(services, ticket);
      if (!account) return loginForm(c, p, {});
      const code = await issueAuthorizationCode(services, { account, request: p });
      c.header("Cache-Control", "no-store");
      return c.redirect(clientRedirect(p, { issuer: config.auth.issuer, params: { code } }), 303);
    }
    const params = { error: problem.redirect };
    return c.redirect(clientRedirect(p, { issuer: config.auth.issuer, params }), 302);
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
    const issuer = services.config.auth.issuer;
    const problem = checkAuthorizationRequest(services.config, p);
    if (problem && "page" in problem) return errorPage(c, problem.page);
    if (problem) {
      return c.redirect(clientRedirect(p, { issuer, params: { error: problem.redirect } }), 303);
    }
    if (!isCsrfTokenValid(c, CSRF_COOKIE, csrf)) {
      return errorPage(c, "The sign-in form expired; please start again from the application");
    }
    let account;
    try {
      account = await authenticateAccount(services, { email, password, ip: clientIp(c) });
    } catch (error) {
      if (error instanceof AppError && error.code === "rate_limited") {
        c.header("Retry-After", error.headers["Retry-After"]);
        // A link goes only to an address whose own sign-in is locked, so only then is it offered.
        const locked = await loginLockedForMs(services.kv, {
          email: email.trim().toLowerCase(),
          ip: clientIp(c),
        }, services.clock.now());
        const offerLink = locked.email > 0;
        return loginForm(c, p, { error: error.message, email, status: 429, offerLink });
      }
      throw error;
    }
    if (!account) {
      return loginForm(c, p, { error: "Email or password is incorrect", email, status: 401 });
    }
    const code = await issueAuthorizationCode(services, { account, request: p });
    return c.redirect(clientRedirect(p, { issuer, params: { code } }), 303);
  },
  (result, c) => {
    if (!result.success) return errorPage(c, "The sign-in form is incomplete");
  },
);

/** A page of the emailed sign-in link flow. */
function linkPage(
  c: Context<AppEnv>,
  status: 200 | 400 | 409 | 410 | 429,
  content: { title: string; body: ReturnType<typeof html> },
) {
  return c.body(renderPage(content.title, content.body), status, pageHeaders());
}

oauthRoutes.openapi(
  createRoute({
    method: "post",
    path: "/oauth2/authorize/email-link",
    operationId: "requestSignInLink",
    tags,
    summary: "Email a one-time sign-in link while password sign-in is locked for the address",
    description:
      "Offered on the sign-in form when password sign-in is locked (429) for the email itself and email is configured. The answer comes first and is the same, in the same time, whatever the address; afterwards, when an account uses the address, a link valid 15 minutes that completes this authorization request once is emailed to it (never to another address). At most 3 links per email and 10 per client address an hour.",
    request: {
      body: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: LinkRequestForm } },
      },
    },
    responses: {
      200: { ...HtmlPage, description: "The link is on its way (if an account uses the address)" },
      400: {
        ...HtmlPage,
        description: "Invalid request, expired form, or sign-in is not locked for the email",
      },
      409: { ...HtmlPage, description: "Email is not configured on this service" },
      429: { ...HtmlPage, description: "Too many links asked for; see Retry-After" },
    },
  }),
  async (c) => {
    const { csrf, email, ...p } = c.req.valid("form");
    const services = c.var.services;
    const problem = checkAuthorizationRequest(services.config, p);
    if (problem) {
      return errorPage(
        c,
        "page" in problem ? problem.page : "The authorization request is invalid",
      );
    }
    if (!isCsrfTokenValid(c, CSRF_COOKIE, csrf)) {
      return errorPage(c, "The sign-in form expired; please start again from the application");
    }
    const outcome = await requestSignInLink(services, { email, ip: clientIp(c), request: p });
    if (outcome.state === "mail_off") {
      return linkPage(c, 409, {
        title: "Email is not configured",
        body: html`<h1>Email is not configured</h1>
<p class="error">This service sends no email, so it cannot send a sign-in link.</p>`,
      });
    }
    if (outcome.state === "not_locked") {
      return linkPage(c, 400, {
        title: "Sign in with your password",
        body: html`<h1>Sign in with your password</h1>
<p class="error">Sign-in is not locked for this address; go back and sign in with your password.</p>`,
      });
    }
    if (outcome.state === "limited") {
      c.header("Retry-After", String(outcome.retryAfterSeconds));
      return linkPage(c, 429, {
        title: "Too many sign-in links",
        body: html`<h1>Too many sign-in links</h1>
<p class="error" role="alert">Too many sign-in links were asked for; try again later.</p>`,
      });
    }
    const minutes = SIGN_IN_LINK_TTL_MS / 60_000;
    return linkPage(c, 200, {
      title: "Check your email",
      body: html`<h1>Check your email</h1>
<p>If an account uses this address, we sent it a sign-in link. It works once, within
${minutes} minutes; open it in this browser.</p>`,
    });
  },
  (result, c) => {
    if (!result.success) return errorPage(c, "The request for a sign-in link is incomplete");
  },
);

const LinkToken = z.object({
  token: z.string().min(1).max(128).openapi({
    param: { name: "token", in: "path" },
    description: "The token of the emailed link",
  }),
});

function linkGone(c: Context<AppEnv>) {
  return linkPage(c, 410, {
    title: "Sign-in link not valid",
    body: html`<h1>Sign-in link not valid</h1>
<p class="error">This sign-in link was already used, has expired, or does not exist. Ask for a
new one from the sign-in page.</p>`,
  });
}

oauthRoutes.openapi(
  createRoute({
    method: "get",
    path: "/oauth2/sign-in-link/{token}",
    operationId: "openSignInLink",
    tags,
    summary: "An emailed sign-in link: a page with one button (opening it uses nothing)",
    description: "Mail scanners open links, so opening one only shows a button; the POST signs in.",
    request: { params: LinkToken },
    responses: {
      200: { ...HtmlPage, description: "The button that signs in" },
      410: { ...HtmlPage, description: "The link was used, has expired or does not exist" },
    },
  }),
  async (c) => {
    const { token } = c.req.valid("param");
    const link = await inspectSignInLink(c.var.services, token);
    if (!link) return linkGone(c);
    return linkPage(c, 200, {
      title: "Sign in",
      body: html`
        <h1>Sign in to Trust Profile</h1>
        <p>Sign in as <strong>${link.email}</strong> with this one-time link.</p>
        <form method="post" action="/oauth2/sign-in-link/${token}">
          <button type="submit">Sign in</button>
        </form>
      `,
    });
  },
  (result, c) => {
    if (!result.success) return linkGone(c);
  },
);

oauthRoutes.openapi(
  createRoute({
    method: "post",
    path: "/oauth2/sign-in-link/{token}",
    operationId: "useSignInLink",
    tags,
    summary: "Sign in with an emailed link, once: back to the client with a code",
    request: { params: LinkToken },
    responses: {
      303: { description: "Back to the client with `code`, `state` and `iss`" },
      400: { ...HtmlPage, description: "The authorization request is no longer valid" },
      410: { ...HtmlPage, description: "The link was used, has expired or does not exist" },
    },
  }),
  async (c) => {
    const services = c.var.services;
    const used = await useSignInLink(services, {
      token: c.req.valid("param").token,
      ip: clientIp(c),
    });
    if (!used) return linkGone(c);
    const problem = checkAuthorizationRequest(services.config, used.request);
    if (problem) return errorPage(c, "The sign-in request is no longer valid; start again");
    const code = await issueAuthorizationCode(services, used);
    const issuer = services.config.auth.issuer;
    return c.redirect(clientRedirect(used.request, { issuer, params: { code } }), 303);
  },
  (result, c) => {
    if (!result.success) return linkGone(c);
  },
);

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
    const authorization = c.req.header("authorization");
    try {
      return c.json(await exchangeGrant(c.var.services, form, { authorization }), 200);
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
