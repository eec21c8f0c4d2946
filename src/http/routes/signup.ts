/**
 * The sign-up pages of the built-in identity provider: the account creation
 * form and its submission. Who may sign up is decided in src/auth/builtin.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { setCookie } from "hono/cookie";
import {
  checkSignupPermission,
  registerAccount,
  SignupFailure,
  type SignupGrant,
} from "../../auth/builtin/signup.ts";
import { issueSignInTicket, SIGN_IN_TICKET_TTL_MS } from "../../auth/builtin/sign_in_ticket.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../../auth/password.ts";
import { MAX_NAME_LENGTH } from "../../domain/common.ts";
import { html } from "../../lib/html.ts";
import { isCsrfTokenValid, issueCsrfToken } from "../csrf.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { pageHeaders, renderPage } from "../html.ts";

export const signupRoutes = createRouter();

const CSRF_COOKIE = "tp_signup_csrf";
/** The one-time sign-in ticket the authorization endpoint reads (src/auth/builtin). */
export const SIGN_IN_COOKIE = "tp_sign_in";
const tags = ["OAuth"];
const HtmlPage = { content: { "text/html": { schema: z.string() } } };

const Grant = z.object({
  setup: z.string().max(128).optional(),
  invitation: z.string().max(128).optional(),
});

const SignupForm = Grant.extend({
  csrf: z.string().max(128),
  email: z.string().max(254),
  name: z.string().max(MAX_NAME_LENGTH),
  password: z.string().max(MAX_PASSWORD_LENGTH),
});

function page(
  c: Context<AppEnv>,
  { title, body, status = 200 }: {
    title: string;
    body: ReturnType<typeof html>;
    status?: 200 | 400 | 403 | 409;
  },
) {
  return c.body(renderPage(title, body), status, pageHeaders());
}

function closedPage(c: Context<AppEnv>, reason: string) {
  const body = html`
    <h1>Sign-up closed</h1>
    <p class="error">${reason}</p>
  `;
  return page(c, { title: "Sign-up closed", body, status: 403 });
}

function signupForm(
  c: Context<AppEnv>,
  grant: SignupGrant,
  options: {
    fixedEmail?: string;
    error?: string;
    name?: string;
    email?: string;
    status?: 200 | 400 | 409;
  } = {},
) {
  const csrf = issueCsrfToken(c, CSRF_COOKIE, "/signup");
  const { fixedEmail } = options;
  const email = fixedEmail ?? options.email ?? "";
  const body = html`<h1>Create your account</h1>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ""}
<form method="post" action="/signup">
${grant.setup ? html`<input type="hidden" name="setup" value="${grant.setup}">` : ""}
${grant.invitation ? html`<input type="hidden" name="invitation" value="${grant.invitation}">` : ""}
<input type="hidden" name="csrf" value="${csrf}">
<label for="name">Name</label>
<input id="name" name="name" autocomplete="name" required maxlength="${MAX_NAME_LENGTH}" value="${
    options.name ?? ""
  }">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${email}"${
    fixedEmail
      ? html`
        readonly
      `
      : ""
  }>
<label for="password">Password (at least ${MIN_PASSWORD_LENGTH} characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}">
<button type="submit">Create account</button>
</form>`;
  return page(c, { title: "Create account", body, status: options.status });
}

signupRoutes.openapi(
  createRoute({
    method: "get",
    path: "/signup",
    operationId: "signupForm",
    tags,
    summary: "Account creation form (built-in identity provider)",
    request: { query: Grant },
    responses: {
      200: { ...HtmlPage, description: "The form" },
      403: { ...HtmlPage, description: "Sign-up is not open to this request" },
    },
  }),
  async (c) => {
    const grant = c.req.valid("query");
    const allowed = await checkSignupPermission(c.var.services, grant);
    if (!allowed.ok) return closedPage(c, allowed.reason);
    return signupForm(c, grant, { fixedEmail: allowed.email });
  },
);

signupRoutes.openapi(
  createRoute({
    method: "post",
    path: "/signup",
    operationId: "signupSubmit",
    tags,
    summary: "Create an account",
    request: {
      body: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: SignupForm } },
      },
    },
    responses: {
      303: {
        description:
          "Account created: to the dashboard, which signs in at once with a one-time cookie for /oauth2/authorize (five minutes)",
      },
      400: { ...HtmlPage, description: "The form again, with an error" },
      403: { ...HtmlPage, description: "Sign-up is not open to this request" },
      409: { ...HtmlPage, description: "The email already has an account" },
    },
  }),
  async (c) => {
    const form = c.req.valid("form");
    if (!isCsrfTokenValid(c, CSRF_COOKIE, form.csrf)) {
      const body = html`
        <h1>Sign-up expired</h1>
        <p class="error">The form expired; please reload it.</p>
      `;
      return page(c, { title: "Sign-up expired", body, status: 400 });
    }
    const allowed = await checkSignupPermission(c.var.services, form);
    if (!allowed.ok) return closedPage(c, allowed.reason);
    const email = (allowed.email ?? form.email).trim().toLowerCase();
    const name = form.name.trim();
    let account;
    try {
      account = await registerAccount(c.var.services, {
        email,
        name,
        password: form.password,
        setup: form.setup,
      });
    } catch (error) {
      if (!(error instanceof SignupFailure)) throw error;
      const { message, status } = error;
      return signupForm(c, form, {
        fixedEmail: allowed.email,
        error: message,
        name,
        email,
        status,
      });
    }
    setCookie(c, SIGN_IN_COOKIE, await issueSignInTicket(c.var.services, account), {
      path: "/oauth2/authorize",
      httpOnly: true,
      sameSite: "Strict",
      secure: c.var.services.config.baseUrl.startsWith("https:"),
      maxAge: SIGN_IN_TICKET_TTL_MS / 1000,
    });
    c.header("Cache-Control", "no-store");
    const invitation = form.invitation ? `#invitation=${encodeURIComponent(form.invitation)}` : "";
    return c.redirect(`/dashboard/?signed-up${invitation}`, 303);
  },
);
