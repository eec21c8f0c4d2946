/**
 * The emailed sign-in link of the built-in identity provider: asking for a link from the
 * sign-in form (POST /oauth2/authorize/email-link), and the link's page and its button
 * (GET and POST /oauth2/sign-in-link/{token}), which end the authorization like a password.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { checkAuthorizationRequest, issueAuthorizationCode } from "../../auth/builtin/authorize.ts";
import {
  inspectSignInLink,
  requestSignInLink,
  SIGN_IN_LINK_TTL_MS,
  useSignInLink,
} from "../../auth/builtin/sign_in_link.ts";
import { html } from "../../lib/html.ts";
import { clientIp } from "../client_ip.ts";
import { isCsrfTokenValid } from "../csrf.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { pageHeaders, renderPage } from "../html.ts";
import {
  clientRedirect,
  CSRF_COOKIE,
  errorPage,
  HtmlPage,
  LinkRequestForm,
  tags,
} from "../oauth_forms.ts";

export const oauthSignInLinkRoutes = createRouter();

/** A page of the emailed sign-in link flow. */
function linkPage(
  c: Context<AppEnv>,
  status: 200 | 400 | 409 | 410 | 429,
  content: { title: string; body: ReturnType<typeof html> },
) {
  return c.body(renderPage(content.title, content.body), status, pageHeaders());
}

oauthSignInLinkRoutes.openapi(
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

oauthSignInLinkRoutes.openapi(
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

oauthSignInLinkRoutes.openapi(
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
