/**
 * Email subscriptions, public side: subscribe to a public project's trust page or to an
 * organization's trust center (JSON, or the plain HTML form of the pages), confirm from
 * the emailed link, unsubscribe in one click (RFC 8058). A subscribe request answers the
 * same whether the address is new, pending or confirmed; requests are throttled per client
 * address, and confirmation emails per address per day.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AppError, conflict, notFound, validationFailed } from "../../domain/errors.ts";
import { EmailAddress, SubscribeRequest, SubscribeResponse } from "../../domain/subscriptions.ts";
import { publicUrls, trustCenterUrl } from "../../publish/urls.ts";
import { publicPublication } from "../../serve/public_read.ts";
import {
  checkInboxPage,
  subscriptionPageCsp,
  subscriptionProblemPage,
} from "../../serve/subscription_pages.ts";
import { trustPageHeaders } from "../../serve/headers.ts";
import { getOrganizationBySlug } from "../../store/organizations.ts";
import { countSubscribeRequest, requestSubscription } from "../../store/subscriptions.ts";
import { clientIp } from "../client_ip.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { ERROR_DESCRIPTIONS, errors, json } from "../openapi.ts";

/** POST /trust/{projectSlug}/subscriptions, mounted at /trust. */
export const projectSubscriptionRoutes = createRouter();
/** POST /public/trust/{orgSlug}/subscriptions, mounted at /public/trust. */
export const organizationSubscriptionRoutes = createRouter();

const tags = ["Subscriptions"];
const page = (description: string) => ({
  content: { "text/html": { schema: z.string() } },
  description,
});
/** An error as the envelope, or as a page for the HTML form. */
const either = (status: 400 | 409 | 429) => ({
  content: { ...json(z.any(), "").content, "text/html": { schema: z.string() } },
  description: `${ERROR_DESCRIPTIONS[status]}; the HTML form gets a page`,
});
const FormBody = z.object({ email: z.string().max(1000) });

const subscribeDoc = {
  request: {
    body: {
      content: {
        "application/json": { schema: SubscribeRequest },
        "application/x-www-form-urlencoded": { schema: FormBody },
      },
    },
  },
  responses: {
    200: page("The HTML form was posted: a page saying a confirmation link is on its way"),
    202: json(SubscribeResponse, "Accepted: a confirmation link is on its way (or was not needed)"),
    ...errors(404, 413, 415),
    400: either(400),
    409: either(409),
    429: either(429),
  },
};
const SUBSCRIBE_DESCRIPTION =
  "Double opt-in: a pending subscription is stored and a confirmation link emailed; nothing is sent to the address until it is confirmed (within 48 hours). The answer is the same whether the address is new, pending or already subscribed. At most 20 requests per client address per hour (429), and at most 3 confirmation emails per address per day (further requests are answered the same and send nothing). 409 when the service has no email configured. JSON `{email}` answers 202 JSON; the HTML form (application/x-www-form-urlencoded) answers a page.";

interface Target {
  organizationId: string;
  projectId: string | null;
  name: string;
  url: string;
}

function isForm(c: Context<AppEnv>): boolean {
  return /^application\/x-www-form-urlencoded/i.test(c.req.header("content-type") ?? "");
}

async function subscribe(c: Context<AppEnv>, target: () => Promise<Target>) {
  const form = isForm(c);
  try {
    const { kv, clock, mailer } = c.var.services;
    const raw = form
      ? (c.req.valid("form" as never) as { email?: string }).email
      : (c.req.valid("json" as never) as { email?: string }).email;
    const parsed = EmailAddress.safeParse(raw);
    if (!parsed.success) throw validationFailed("Give a valid email address");
    const about = await target();
    if (!mailer.configured) {
      throw conflict("This service has no email configured, so it cannot send subscriptions");
    }
    const now = clock.now();
    await countSubscribeRequest(kv, clientIp(c), now);
    await requestSubscription(kv, { ...about, email: parsed.data }, now);
    if (form) {
      return c.body(
        checkInboxPage(about.name, about.url),
        200,
        trustPageHeaders(subscriptionPageCsp()),
      );
    }
    return c.json({
      status: "confirmation_sent" as const,
      message: "If this address is not subscribed yet, a confirmation link is on its way",
    }, 202);
  } catch (error) {
    if (!form || !(error instanceof AppError) || error.status === 404) throw error;
    return c.body(subscriptionProblemPage(error.status, error.message), error.status as 400, {
      ...trustPageHeaders(subscriptionPageCsp()),
      ...error.headers,
    });
  }
}

projectSubscriptionRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{projectSlug}/subscriptions",
    operationId: "subscribeToProject",
    tags,
    summary: "Subscribe an email address to a public project's trust updates",
    description:
      `${SUBSCRIBE_DESCRIPTION} Subscribers hear of controls that regress, updates posted and subprocessor changes. Private projects answer 404.`,
    request: {
      params: z.object({
        projectSlug: z.string().min(1).max(100).openapi({
          param: { name: "projectSlug", in: "path" },
        }),
      }),
      ...subscribeDoc.request,
    },
    responses: subscribeDoc.responses,
  }),
  (c) =>
    subscribe(c, async () => {
      const { project } = await publicPublication(c.var.services, c.req.valid("param").projectSlug);
      const url = publicUrls(c.var.services.config, project.slug).page;
      return {
        organizationId: project.organizationId,
        projectId: project.id,
        name: project.name,
        url,
      };
    }),
);

organizationSubscriptionRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{orgSlug}/subscriptions",
    operationId: "subscribeToOrganization",
    tags,
    summary: "Subscribe an email address to an organization's trust updates",
    description:
      `${SUBSCRIBE_DESCRIPTION} Organization subscribers hear of every public project's regressions and updates, and of subprocessor changes.`,
    request: {
      params: z.object({
        orgSlug: z.string().min(1).max(100).openapi({ param: { name: "orgSlug", in: "path" } }),
      }),
      ...subscribeDoc.request,
    },
    responses: subscribeDoc.responses,
  }),
  (c) =>
    subscribe(c, async () => {
      const { kv, config } = c.var.services;
      const org = await getOrganizationBySlug(kv, c.req.valid("param").orgSlug);
      if (!org) throw notFound("No public trust center by that name");
      return {
        organizationId: org.id,
        projectId: null,
        name: org.name,
        url: trustCenterUrl(config, org.slug),
      };
    }),
);
