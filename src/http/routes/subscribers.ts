/**
 * Email subscribers, operator side: members see how many subscribers the organization and
 * each project have; owners also see the addresses (personal data) and remove subscribers.
 * GET /service/status tells the dashboard whether email is configured, without saying how.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import { forbidden, notFound } from "../../domain/errors.ts";
import {
  ServiceStatus,
  SubscriberListResponse,
  SubscriberResponse,
  subscriberView,
} from "../../domain/subscriptions.ts";
import { liveStatus } from "../../live/jobs_view.ts";
import { getOrganization } from "../../store/organizations.ts";
import {
  countSubscriptions,
  deleteSubscription,
  getSubscription,
  listSubscribersPage,
} from "../../store/subscriptions.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json } from "../openapi.ts";
import { DEFAULT_LIST_PAGE, listPageQuery, MAX_LIST_PAGE } from "../../domain/list_page.ts";
import { linkNext, pageOf } from "../list_pages.ts";

export const subscriberRoutes = createRouter();

const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
const ItemParams = OrgParams.extend({ subscriptionId: uuidParam("subscriptionId") });
const tags = ["Subscriptions"];

subscriberRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/subscribers",
    operationId: "listSubscribers",
    tags,
    summary:
      "Email subscribers of the organization and its projects (members; addresses for owners)",
    description:
      `Counts of confirmed and pending subscribers per scope for every member; the addresses, newest first, only for owners (\`subscribers\` is null for members). \`mail.configured\` is false when no email is sent (neither SMTP_URL nor SES_REGION is set). The addresses come in pages of ${DEFAULT_LIST_PAGE} (\`limit\` 1 to ${MAX_LIST_PAGE}): pass nextCursor as cursor for the next; the answer links it (Link: rel="next"). The counts are of every subscriber, on every page.`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, query: listPageQuery("Subscribers") },
    responses: {
      200: json(SubscriberListResponse, "Counts, and the addresses for owners"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const membership = await requireMembership(c, organizationId);
    const page = pageOf("subscribers", c.req.valid("query"));
    const { kv, clock, mailer } = c.var.services;
    const now = clock.now();
    const owner = membership.role === "owner";
    const [counts, listed] = await Promise.all([
      countSubscriptions(kv, organizationId, now),
      owner ? listSubscribersPage(kv, organizationId, { now, ...page }) : null,
    ]);
    const nextCursor = listed?.nextCursor ?? null;
    linkNext(c, nextCursor);
    return c.json({
      mail: { configured: mailer.configured },
      counts,
      subscribers: listed ? listed.values.map(subscriberView) : null,
      nextCursor,
    }, 200);
  },
);

subscriberRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/organizations/{organizationId}/subscribers/{subscriptionId}",
    operationId: "removeSubscriber",
    tags,
    summary: "Remove a subscriber (owners)",
    description: "The subscription and its address are deleted; no email is sent to it again.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams },
    responses: {
      200: json(SubscriberResponse, "The subscriber that was removed"),
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { organizationId, subscriptionId } = c.req.valid("param");
    await requireMembership(c, organizationId, "owner");
    const { kv } = c.var.services;
    if (!(await getOrganization(kv, organizationId))) throw forbidden();
    const found = await getSubscription(kv, subscriptionId);
    if (!found || found.organizationId !== organizationId) {
      throw notFound("No subscriber with that id in this organization");
    }
    const removed = await deleteSubscription(kv, subscriptionId);
    if (!removed) throw notFound("No subscriber with that id in this organization");
    return c.json({ subscriber: subscriberView(removed) }, 200);
  },
);

subscriberRoutes.openapi(
  createRoute({
    method: "get",
    path: "/service/status",
    operationId: "getServiceStatus",
    // The whole service's status (mail and live work), read by every dashboard page.
    tags: ["Service"],
    summary:
      "What this service can do: whether email is configured and live work runs (signed-in users)",
    description:
      "`mail.configured` is false when neither SMTP_URL nor SES_REGION is set: no subscription email is sent, and subscribe requests answer 409. Where mail goes is never shown. `live` is what `/health/ready` answers: whether the job worker runs, how long the oldest due job has waited, and how many jobs were dead-lettered.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    responses: { 200: json(ServiceStatus, "The service's status"), ...errors(401) },
  }),
  async (c) =>
    c.json({
      mail: { configured: c.var.services.mailer.configured },
      live: await liveStatus(c.var.services),
    }, 200),
);
