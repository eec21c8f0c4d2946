/**
 * The email channel: trust events become one email per confirmed subscriber, each a
 * delivery record created with its "mail" job (so handing an event out again changes
 * nothing), sent by the "mail" handler with its own bounded backoff. Private projects notify
 * nobody; with no email transport configured nothing is sent and each notification is
 * recorded as skipped.
 *
 * Email is sent at most once: the handler records that it is sending before it sends, so a
 * run that finds that mark left by a run that stopped mid-way (a crash) records the email as
 * possibly undelivered instead of sending it again. Each email's Message-ID is derived from
 * its delivery, so a resend by the mail server itself is recognizable too.
 */
import type { Config } from "../config.ts";
import type { TrustEvent } from "../domain/events.ts";
import {
  MAIL_BACKOFF_MS,
  type MailDelivery,
  MAX_MAIL_ATTEMPTS,
  type Subscription,
} from "../domain/subscriptions.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { JobWorker } from "../live/worker.ts";
import type { Mailer } from "../mail/mod.ts";
import { publicUrls, trustCenterUrl } from "../publish/urls.ts";
import { getOrganization } from "../store/organizations.ts";
import { getProject, listProjectsByOrganization } from "../store/projects.ts";
import {
  createNotification,
  getDelivery,
  getSubscription,
  listSubscriptions,
  type MailMessage,
  recordDelivery,
} from "../store/subscriptions.ts";
import type { EventBus } from "./events.ts";
import { linkToken, linkUrl, subscriptionScope } from "./links.ts";
import { confirmationContent, type MailScope, notificationContent } from "./mail_content.ts";

export interface EmailDeps {
  kv: Deno.Kv;
  config: Config;
  clock: Clock;
  log: Logger;
  mailer: Mailer;
}

/** The scopes (project ids, "organization") whose subscribers hear of `event`. */
async function scopesOf(kv: Deno.Kv, event: TrustEvent): Promise<string[]> {
  if (event.type === "control.regressed" || event.type === "update.posted") {
    if (!event.projectId) return [];
    const project = await getProject(kv, event.projectId);
    if (!project || project.visibility !== "public") return [];
    return [project.id, "organization"];
  }
  if (event.type === "subprocessor.changed") {
    const projects = await listProjectsByOrganization(kv, event.organizationId);
    return ["organization", ...projects.filter((p) => p.visibility === "public").map((p) => p.id)];
  }
  return [];
}

/** Confirmed subscribers of the event's scopes, one per address (the first scope wins). */
async function recipientsOf(kv: Deno.Kv, event: TrustEvent, now: Date): Promise<Subscription[]> {
  const byEmail = new Map<string, Subscription>();
  for (const scope of await scopesOf(kv, event)) {
    for (const s of await listSubscriptions(kv, event.organizationId, { now, scope })) {
      if (s.status === "confirmed" && !byEmail.has(s.email)) byEmail.set(s.email, s);
    }
  }
  return [...byEmail.values()];
}

/** The channel registered on the event bus as "email". */
export function emailChannel(deps: EmailDeps) {
  return async (event: TrustEvent): Promise<void> => {
    const now = deps.clock.now();
    const skipped = deps.mailer.configured ? undefined : "email not configured";
    let created = 0;
    for (const subscription of await recipientsOf(deps.kv, event, now)) {
      const made = await createNotification(deps.kv, {
        event,
        subscriptionId: subscription.id,
        skipped,
      }, now);
      if (made) created++;
    }
    if (skipped && created > 0) {
      deps.log.warn(
        "Email is not configured (SMTP_URL or SES_REGION); subscribers were not notified",
        {
          eventId: event.id,
          type: event.type,
          subscribers: created,
        },
      );
    }
  };
}

/** The event's own scope (its project, or the organization) for subject lines and links. */
async function scopeOfEvent(deps: EmailDeps, event: TrustEvent, fallback: MailScope) {
  if (!event.projectId) {
    const organization = await getOrganization(deps.kv, event.organizationId);
    return organization
      ? { name: organization.name, url: trustCenterUrl(deps.config, organization.slug) }
      : fallback;
  }
  const project = await getProject(deps.kv, event.projectId);
  return project
    ? { name: project.name, url: publicUrls(deps.config, project.slug).page }
    : fallback;
}

/** The message of a delivery, or why it is no longer to be sent. */
async function compose(deps: EmailDeps, delivery: MailDelivery) {
  const subscription = await getSubscription(deps.kv, delivery.subscriptionId);
  const now = deps.clock.now().toISOString();
  const pending = subscription?.status === "pending" && (subscription.expiresAt ?? "") > now;
  if (delivery.purpose === "confirmation" && !pending) return { skip: "no longer pending" };
  if (delivery.purpose === "notification" && subscription?.status !== "confirmed") {
    return { skip: "unsubscribed" };
  }
  const scope = await subscriptionScope(deps.kv, deps.config, subscription!);
  if (!scope) return { skip: "no longer public" };
  if (delivery.purpose === "confirmation") {
    const token = await linkToken(deps.kv, "confirm", subscription!);
    const confirmUrl = linkUrl(deps.config.baseUrl, "confirm", token);
    return {
      to: subscription!.email,
      ...confirmationContent({ subscribedTo: scope.name, confirmUrl }),
    };
  }
  const unsubscribeUrl = linkUrl(
    deps.config.baseUrl,
    "unsubscribe",
    await linkToken(deps.kv, "unsubscribe", subscription!),
  );
  const event = delivery.event!;
  const content = notificationContent(event, {
    scope: await scopeOfEvent(deps, event, scope),
    subscribedTo: scope.name,
    unsubscribeUrl,
  });
  if (!content) return { skip: "not an event subscribers are told of" };
  return {
    to: subscription!.email,
    ...content,
    headers: {
      // RFC 2369 and RFC 8058: mail clients offer one-click unsubscribe with a POST here.
      "List-Unsubscribe": `<${unsubscribeUrl}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
  };
}

/** Sends one attempt of a delivery and records what happened. */
async function attempt(deps: EmailDeps, read: Deno.KvEntry<MailDelivery>): Promise<void> {
  const delivery = read.value;
  let entry = read;
  const finish = (fields: Partial<MailDelivery>, retryInMs?: number) =>
    recordDelivery(deps.kv, entry, {
      next: { ...delivery, ...fields, sendingSince: null },
      now: deps.clock.now(),
      retryInMs,
    });
  if (delivery.sendingSince) {
    deps.log.warn("An email's sending was interrupted; it is not sent again", { id: delivery.id });
    return void await finish({
      status: "failed",
      reason: "Sending was interrupted (the service stopped); it may not have arrived, and is " +
        "not sent again so that nobody gets it twice",
    });
  }
  const message = await compose(deps, delivery);
  if ("skip" in message) return void await finish({ status: "skipped", reason: message.skip! });
  if (!deps.mailer.configured) {
    deps.log.warn("Email is not configured (SMTP_URL or SES_REGION); an email was not sent", {
      id: delivery.id,
    });
    return void await finish({ status: "skipped", reason: "email not configured" });
  }
  const claimed = await recordDelivery(deps.kv, entry, {
    next: { ...delivery, sendingSince: deps.clock.now().toISOString() },
    now: deps.clock.now(),
  });
  if (!claimed) return; // another run got there first
  entry = claimed;
  const attempts = delivery.attempts + 1;
  try {
    await deps.mailer.send({ ...message, messageId: messageIdOf(deps.config, delivery) });
    await finish({ status: "sent", attempts, sentAt: deps.clock.now().toISOString() });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (attempts >= MAX_MAIL_ATTEMPTS) {
      deps.log.error("An email could not be sent; giving up", { id: delivery.id, reason });
      await finish({ status: "failed", attempts, reason });
      return;
    }
    const retryInMs = MAIL_BACKOFF_MS[Math.min(attempts - 1, MAIL_BACKOFF_MS.length - 1)];
    deps.log.warn("An email could not be sent; trying again", {
      id: delivery.id,
      reason,
      retryInMs,
    });
    await finish({ attempts, reason }, retryInMs);
  }
}

/** A Message-ID of the delivery's own (RFC 5322 §3.6.4), the same on every attempt. */
function messageIdOf(config: Config, delivery: MailDelivery): string {
  return `<${delivery.id}.${delivery.attempts}@${new URL(config.baseUrl).hostname}>`;
}

/** The "mail" job handler: sends a delivery that is still queued, once. */
export function mailHandler(deps: EmailDeps) {
  return async (message: { kind: string }): Promise<void> => {
    const { deliveryId } = message as MailMessage;
    if (typeof deliveryId !== "string") return;
    const entry = await getDelivery(deps.kv, deliveryId);
    if (!entry.value || entry.value.status !== "queued") return;
    await attempt(deps, entry as Deno.KvEntry<MailDelivery>);
  };
}

/** Registers the email channel on the bus and the "mail" job handler. */
export function registerEmail(deps: EmailDeps & { jobs: JobWorker; events: EventBus }) {
  deps.events.subscribe("email", emailChannel(deps));
  deps.jobs.on("mail", mailHandler(deps));
}
