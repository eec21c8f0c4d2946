/**
 * Account creation for the built-in identity provider, governed by SIGNUP:
 * `first-run` (a one-time link printed at start while no account exists),
 * `open`, or `invite` (an organization invitation's token is required).
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../../auth/password.ts";
import { MAX_NAME_LENGTH } from "../../domain/common.ts";
import { sha256Hex } from "../../lib/hash.ts";
import { createAccount, getSetupToken, hasAnyAccount } from "../../store/accounts.ts";
import { getInvitation } from "../../store/invitations.ts";
import type { AppEnv } from "../env.ts";
import { createRouter } from "../env.ts";
import { isCsrfTokenValid, issueCsrfToken } from "../csrf.ts";
import { html } from "../../lib/html.ts";
import { pageHeaders, renderPage } from "../html.ts";

export const signupRoutes = createRouter();

const CSRF_COOKIE = "tp_signup_csrf";
const tags = ["OAuth"];
const HtmlPage = { content: { "text/html": { schema: z.string() } } };

const Grant = z.object({
  setup: z.string().max(128).optional(),
  invitation: z.string().max(128).optional(),
});
type Grant = z.infer<typeof Grant>;

const SignupForm = Grant.extend({
  csrf: z.string().max(128),
  email: z.string().max(254),
  name: z.string().max(MAX_NAME_LENGTH),
  password: z.string().max(MAX_PASSWORD_LENGTH),
});

type Permission = { ok: true; email?: string } | { ok: false; reason: string };

/** Whether a sign-up with this grant is allowed now, and for which email if fixed. */
async function permission(c: Context<AppEnv>, grant: Grant): Promise<Permission> {
  const { kv, config, clock } = c.var.services;
  if (grant.invitation) {
    const invitation = (await getInvitation(kv, await sha256Hex(grant.invitation))).value;
    if (
      !invitation || invitation.acceptedAt ||
      Date.parse(invitation.expiresAt) <= clock.now().getTime()
    ) {
      return {
        ok: false,
        reason: "This invitation does not exist, has expired or was already used",
      };
    }
    return { ok: true, email: invitation.email };
  }
  if (config.signup === "open") return { ok: true };
  if (config.signup === "first-run" && grant.setup) {
    const stored = await getSetupToken(kv);
    const hash = await sha256Hex(grant.setup);
    if (stored.value && stored.value === hash && !(await hasAnyAccount(kv))) return { ok: true };
    return { ok: false, reason: "This setup link is no longer valid; an account already exists" };
  }
  return { ok: false, reason: "Sign-up needs an invitation from an organization owner" };
}

function page(
  c: Context<AppEnv>,
  title: string,
  body: ReturnType<typeof html>,
  status: 200 | 400 | 403 | 409 = 200,
) {
  return c.body(renderPage(title, body), status, pageHeaders());
}

function closedPage(c: Context<AppEnv>, reason: string) {
  return page(
    c,
    "Sign-up closed",
    html`
      <h1>Sign-up closed</h1>
      <p class="error">${reason}</p>
    `,
    403,
  );
}

function signupForm(
  c: Context<AppEnv>,
  grant: Grant,
  fixedEmail: string | undefined,
  options: { error?: string; name?: string; email?: string; status?: 200 | 400 | 409 } = {},
) {
  const csrf = issueCsrfToken(c, CSRF_COOKIE, "/signup");
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
  return page(c, "Create account", body, options.status ?? 200);
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
    const allowed = await permission(c, grant);
    if (!allowed.ok) return closedPage(c, allowed.reason);
    return signupForm(c, grant, allowed.email);
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
      200: { ...HtmlPage, description: "Account created, with a link to sign in" },
      400: { ...HtmlPage, description: "The form again, with an error" },
      403: { ...HtmlPage, description: "Sign-up is not open to this request" },
      409: { ...HtmlPage, description: "The email already has an account" },
    },
  }),
  async (c) => {
    const form = c.req.valid("form");
    if (!isCsrfTokenValid(c, CSRF_COOKIE, form.csrf)) {
      return page(
        c,
        "Sign-up expired",
        html`
          <h1>Sign-up expired</h1>
          <p class="error">The form expired; please reload it.</p>
        `,
        400,
      );
    }
    const allowed = await permission(c, form);
    if (!allowed.ok) return closedPage(c, allowed.reason);
    const email = (allowed.email ?? form.email).trim().toLowerCase();
    const name = form.name.trim();
    const retry = (error: string, status: 400 | 409 = 400) =>
      signupForm(c, form, allowed.email, { error, name, email, status });
    if (!z.email().safeParse(email).success) return retry("Enter a valid email address");
    if (!name) return retry("Enter your name");
    if (form.password.length < MIN_PASSWORD_LENGTH) {
      return retry(`The password must have at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    const { kv, clock } = c.var.services;
    const setup = form.setup ? await getSetupToken(kv) : null;
    const created = await createAccount(kv, {
      id: crypto.randomUUID(),
      email,
      name,
      passwordHash: await hashPassword(form.password),
      createdAt: clock.now().toISOString(),
    }, (op) => setup ? op.check(setup).delete(setup.key) : op);
    if (!created) return retry("An account with this email already exists", 409);
    const next = form.invitation
      ? `/dashboard/#invitation=${encodeURIComponent(form.invitation)}`
      : "/dashboard/";
    return page(
      c,
      "Account created",
      html`<h1>Account created</h1>
<p>Welcome, ${name}. Your account for ${email} is ready.</p>
<p><a href="${next}">Continue to the dashboard</a> and sign in.</p>`,
    );
  },
);
