/**
 * The built-in identity provider's OAuth 2.0 endpoints: the sign-in form at
 * /oauth2/authorize here, the emailed sign-in link (oauth_sign_in_link.ts), /oauth2/token and
 * /oauth2/revoke (oauth_token.ts), with what they share in oauth_forms.ts. They parse and answer;
 * the grant logic is in src/auth/builtin. Token errors use the RFC 6749 §5.2
 * shape, which OAuth clients parse, instead of the API envelope.
 */
import { createRoute } from "@hono/zod-openapi";
import { deleteCookie, getCookie } from "hono/cookie";
import {
  authenticateAccount,
  checkAuthorizationRequest,
  issueAuthorizationCode,
} from "../../auth/builtin/authorize.ts";
import { redeemSignInTicket } from "../../auth/builtin/sign_in_ticket.ts";
import { loginLockedForMs } from "../../auth/throttle.ts";
import { AppError } from "../../domain/errors.ts";
import { clientIp } from "../client_ip.ts";
import { isCsrfTokenValid } from "../csrf.ts";
import { createRouter } from "../env.ts";
import {
  AuthorizeParams,
  clientRedirect,
  CSRF_COOKIE,
  errorPage,
  HtmlPage,
  LoginForm,
  loginForm,
  SIGN_IN_COOKIE,
  tags,
} from "../oauth_forms.ts";

export const oauthRoutes = createRouter();

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
