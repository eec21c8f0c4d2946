/**
 * The links of subscription emails: /subscriptions/confirm/{token} and
 * /unsubscribe/{token}. A GET shows a page with a button and changes nothing (mail scanners
 * open links); the button's POST acts. A mail client's RFC 8058 one-click POST to the
 * unsubscribe link unsubscribes at once.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  linkUrl,
  subscriptionOfConfirmToken,
  subscriptionScope,
  unsubscribeTarget,
} from "../../push/links.ts";
import { trustPageHeaders } from "../../serve/headers.ts";
import {
  confirmedPage,
  confirmPage,
  erasedPage,
  subscriptionPageCsp,
  subscriptionProblemPage,
  unsubscribedPage,
  unsubscribePage,
} from "../../serve/subscription_pages.ts";
import { confirmSubscription, deleteSubscription } from "../../store/subscriptions.ts";
import { eraseSubscriber } from "../../lifecycle/visitor_erasure.ts";
import type { Subscription } from "../../domain/subscriptions.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { errors } from "../openapi.ts";

export const subscriptionLinkRoutes = createRouter();

const tags = ["Subscriptions"];
const page = (description: string) => ({
  content: { "text/html": { schema: z.string() } },
  description,
});

function scopeOf(c: Context<AppEnv>, s: Subscription) {
  return subscriptionScope(c.var.services.kv, c.var.services.config, s);
}

function htmlPage(
  c: Context<AppEnv>,
  body: string,
  options: { form?: boolean; status?: 200 | 404 } = {},
) {
  const origin = options.form ? new URL(c.var.services.config.baseUrl).origin : undefined;
  return c.body(body, options.status ?? 200, trustPageHeaders(subscriptionPageCsp(origin)));
}

const BROKEN =
  "This link is not valid: it may have expired, belong to a subscription that has ended, or been copied incompletely";
const broken = (c: Context<AppEnv>) =>
  htmlPage(c, subscriptionProblemPage(404, BROKEN), { status: 404 });

const TokenParams = z.object({
  token: z.string().min(1).max(200).openapi({ param: { name: "token", in: "path" } }),
});
const linkResponses = (ok: string) => ({ 200: page(ok), ...errors(400, 404) });

/**
 * What RFC 8058 §3.1 has a mail client POST: `List-Unsubscribe=One-Click`, as
 * multipart/form-data or application/x-www-form-urlencoded. The page's button posts an empty
 * form. The value is not otherwise checked (at most 100 characters, as every string is
 * bounded): any such POST of the link unsubscribes.
 */
const OneClickForm = z.object({
  "List-Unsubscribe": z.string().max(100).optional().openapi({ example: "One-Click" }),
}).openapi("OneClickUnsubscribe");

subscriptionLinkRoutes.openapi(
  createRoute({
    method: "get",
    path: "/subscriptions/confirm/{token}",
    operationId: "showSubscriptionConfirmation",
    tags,
    summary: "The page of a confirmation link: a button that confirms",
    description:
      "Opening the link changes nothing (mail scanners open links); the page's button POSTs to the same address.",
    request: { params: TokenParams },
    responses: linkResponses("A page with the confirm button"),
  }),
  async (c) => {
    const { token } = c.req.valid("param");
    const { kv, config, clock } = c.var.services;
    const s = await subscriptionOfConfirmToken(kv, token);
    const scope = s && await scopeOf(c, s);
    const live = s && (s.status === "confirmed" || (s.expiresAt ?? "") > clock.now().toISOString());
    if (!s || !scope || !live) return broken(c);
    if (s.status === "confirmed") return htmlPage(c, confirmedPage(scope.name, scope.url));
    return htmlPage(c, confirmPage(scope.name, linkUrl(config.baseUrl, "confirm", token)), {
      form: true,
    });
  },
);

subscriptionLinkRoutes.openapi(
  createRoute({
    method: "post",
    path: "/subscriptions/confirm/{token}",
    operationId: "confirmSubscription",
    tags,
    summary: "Confirm a subscription (the confirm page's button)",
    request: { params: TokenParams },
    responses: linkResponses("Confirmed (confirming again changes nothing)"),
  }),
  async (c) => {
    const { kv, clock } = c.var.services;
    const s = await subscriptionOfConfirmToken(kv, c.req.valid("param").token);
    const scope = s && await scopeOf(c, s);
    const confirmed = s && scope && await confirmSubscription(kv, s.id, clock.now());
    if (!confirmed || !scope) return broken(c);
    return htmlPage(c, confirmedPage(scope.name, scope.url));
  },
);

subscriptionLinkRoutes.openapi(
  createRoute({
    method: "get",
    path: "/unsubscribe/{token}",
    operationId: "showUnsubscribe",
    tags,
    summary: "The page of an unsubscribe link: a button that unsubscribes",
    description:
      "The link of every notification's `List-Unsubscribe` header. Opening it changes nothing; the button, or a mail client's one-click POST (RFC 8058), unsubscribes. Once unsubscribed, the link shows the \"You are unsubscribed\" page.",
    request: { params: TokenParams },
    responses: linkResponses("A page with the unsubscribe button"),
  }),
  async (c) => {
    const { token } = c.req.valid("param");
    const { kv, config } = c.var.services;
    const target = await unsubscribeTarget(kv, token);
    if (!target) return broken(c);
    const s = target.subscription;
    if (!s) return htmlPage(c, unsubscribedPage());
    const name = (await scopeOf(c, s))?.name ?? "this trust center";
    return htmlPage(c, unsubscribePage(name, linkUrl(config.baseUrl, "unsubscribe", token)), {
      form: true,
    });
  },
);

subscriptionLinkRoutes.openapi(
  createRoute({
    method: "post",
    path: "/unsubscribe/{token}",
    operationId: "unsubscribe",
    tags,
    summary: "Unsubscribe at once (RFC 8058 one-click; no sign-in, no confirmation)",
    description:
      "Mail clients POST `List-Unsubscribe=One-Click` here (RFC 8058), form-encoded; the page's button posts an empty form, and a POST without a body works too. The value is not otherwise checked (at most 100 characters). The subscription and its address are deleted. Unsubscribing again (a repeated POST, an old link) answers the same page and changes nothing; a forged token is a 404. A body of another media type is 415.",
    request: {
      params: TokenParams,
      body: {
        required: false,
        content: {
          "application/x-www-form-urlencoded": { schema: OneClickForm },
          "multipart/form-data": { schema: OneClickForm },
        },
      },
    },
    responses: {
      ...linkResponses("Unsubscribed (again: the same page, nothing changed)"),
      ...errors(413, 415),
    },
  }),
  async (c) => {
    const { kv } = c.var.services;
    const target = await unsubscribeTarget(kv, c.req.valid("param").token);
    if (!target) return broken(c);
    if (target.subscription) await deleteSubscription(kv, target.id);
    return htmlPage(c, unsubscribedPage());
  },
);

subscriptionLinkRoutes.openapi(
  createRoute({
    method: "post",
    path: "/unsubscribe/{token}/erase",
    operationId: "eraseSubscriber",
    tags,
    summary: "Erase a subscriber's data (the unsubscribe page's second button)",
    description:
      "The unsubscribe link's token proves the address: every subscription of that address, in every organization, is deleted with the record of the emails sent for them. Once the link's own subscription has ended, the address is no longer known through it: the page says nothing is left under this link.",
    request: { params: TokenParams },
    responses: { ...linkResponses("Erased (or nothing was left under this link)"), ...errors(413) },
  }),
  async (c) => {
    const { kv } = c.var.services;
    const target = await unsubscribeTarget(kv, c.req.valid("param").token);
    if (!target) return broken(c);
    if (!target.subscription) return htmlPage(c, unsubscribedPage());
    await eraseSubscriber(kv, target.subscription.email);
    return htmlPage(c, erasedPage());
  },
);
