/**
 * Emails to owners when a visitor asks for restricted documents: the "owner-mail" job sends
 * one notice (src/store/owner_notices.ts), composed when it is sent, so it says what the
 * request is then (still pending, or approved automatically), names the documents and links
 * to the dashboard where the owner decides. Like subscribers' email it is sent at most once:
 * an attempt marks the notice as sending first, and a run that finds that mark from a crash
 * records it as interrupted instead of sending a second copy. Without SMTP it is recorded as
 * skipped; the dashboard still counts the pending request.
 */
import type { Config } from "../config.ts";
import {
  MAX_OWNER_NOTICE_ATTEMPTS,
  OWNER_NOTICE_BACKOFF_MS,
  type OwnerNotice,
} from "../domain/access_requests.ts";
import { html } from "../lib/html.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { JobWorker } from "../live/worker.ts";
import type { Mailer } from "../mail/mod.ts";
import { getAccessRequest } from "../store/access_requests.ts";
import { listDocuments } from "../store/documents.ts";
import { getMembership, getOrganization } from "../store/organizations.ts";
import {
  getOwnerNotice,
  type OwnerMailMessage,
  recordOwnerNotice,
} from "../store/owner_notices.ts";
import { getUser } from "../store/users.ts";

export interface OwnerMailDeps {
  kv: Deno.Kv;
  config: Config;
  clock: Clock;
  log: Logger;
  mailer: Mailer;
}

/** One line for a subject: no control characters, bounded. */
const oneLine = (text: string, max = 200) =>
  // deno-lint-ignore no-control-regex -- header values must not carry CR, LF or other controls
  text.replace(/[\x00-\x1f\x7f]+/g, " ").trim().slice(0, max);

/** The email of a notice, or why it is no longer to be sent. */
async function compose(deps: OwnerMailDeps, notice: OwnerNotice) {
  const { kv, config } = deps;
  const [organization, request, membership, user] = await Promise.all([
    getOrganization(kv, notice.organizationId),
    getAccessRequest(kv, notice.organizationId, notice.requestId),
    getMembership(kv, notice.organizationId, notice.userId),
    getUser(kv, notice.userId),
  ]);
  if (!organization || !request) return { skip: "the request is gone" };
  if (membership?.role !== "owner") return { skip: "no longer an owner" };
  if (!user?.email) return { skip: "the owner has no email address" };
  const titles = new Map((await listDocuments(kv, organization.id)).map((d) => [d.id, d.title]));
  const documents = [
    ...request.documentIds.map((id) => titles.get(id) ?? "a removed document"),
    ...(request.answers ? ["The restricted answers to security questions"] : []),
  ];
  const review = `${config.baseUrl}/dashboard/#/orgs/${
    encodeURIComponent(organization.id)
  }/documents`;
  const status = request.status === "pending"
    ? "It waits for an owner's decision: approve or deny it in the dashboard."
    : request.autoApproved
    ? "It was approved automatically (its email domain is auto-approved) and the link was emailed."
    : `It was ${request.status} already.`;
  const who = `${request.name} <${request.email}> of ${request.company}`;
  const lines = [
    `${who} asked for documents of ${organization.name}:`,
    ...documents.map((title) => `- ${title}`),
    `They accepted NDA version ${request.nda.version} on ${request.nda.acceptedAt}.`,
    status,
  ];
  const text = [
    ...lines,
    "",
    `Review it: ${review}`,
    "",
    "-- ",
    `You get this because you are an owner of ${organization.name}.`,
    "",
  ].join("\n");
  const body = html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <title>Access request</title>
      </head>
      <body>
        <p>${who} asked for documents of ${organization.name}:</p>
        <ul>${documents.map((title) => html`<li>${title}</li>`)}</ul>
        <p>They accepted NDA version ${request.nda.version} on ${request.nda.acceptedAt}.</p>
        <p>${status}</p>
        <p><a href="${review}">Review it in the dashboard</a></p>
        <hr>
        <p><small>You get this because you are an owner of ${organization.name}.</small></p>
      </body>
    </html>
  `;
  return {
    to: user.email,
    subject: oneLine(
      `[${organization.name}] Access request from ${request.name}, ${request.company}`,
    ),
    text,
    html: body.value,
  };
}

/** Sends one attempt of a notice and records what happened. */
async function attempt(deps: OwnerMailDeps, read: Deno.KvEntry<OwnerNotice>): Promise<void> {
  const notice = read.value;
  let entry = read;
  const now = () => deps.clock.now();
  const finish = (fields: Partial<OwnerNotice>, retryInMs?: number) =>
    recordOwnerNotice(deps.kv, entry, {
      next: { ...notice, ...fields, sendingSince: null },
      now: now(),
      retryInMs,
    });
  if (notice.sendingSince) {
    deps.log.warn("An owner's email was interrupted; it is not sent again", { id: notice.id });
    return void await finish({
      status: "failed",
      reason: "Sending was interrupted; it may not have arrived, and is not sent again",
    });
  }
  const message = await compose(deps, notice);
  if ("skip" in message) return void await finish({ status: "skipped", reason: message.skip! });
  if (!deps.mailer.configured) {
    return void await finish({ status: "skipped", reason: "email not configured" });
  }
  const claimed = await recordOwnerNotice(deps.kv, entry, {
    next: { ...notice, sendingSince: now().toISOString() },
    now: now(),
  });
  if (!claimed) return; // another run got there first
  entry = claimed;
  const attempts = notice.attempts + 1;
  try {
    const host = new URL(deps.config.baseUrl).hostname;
    await deps.mailer.send({ ...message, messageId: `<${notice.id}.${notice.attempts}@${host}>` });
    await finish({ status: "sent", attempts, sentAt: now().toISOString() });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (attempts >= MAX_OWNER_NOTICE_ATTEMPTS) {
      deps.log.error("An owner's email could not be sent; giving up", { id: notice.id, reason });
      return void await finish({ status: "failed", attempts, reason });
    }
    const retryInMs =
      OWNER_NOTICE_BACKOFF_MS[Math.min(attempts - 1, OWNER_NOTICE_BACKOFF_MS.length - 1)];
    deps.log.warn("An owner's email could not be sent; trying again", { id: notice.id, reason });
    await finish({ attempts, reason }, retryInMs);
  }
}

/** Registers the "owner-mail" job handler: sends a notice that is still queued, once. */
export function registerOwnerMail(deps: OwnerMailDeps & { jobs: JobWorker }): void {
  deps.jobs.on("owner-mail", async (message) => {
    const { noticeId } = message as OwnerMailMessage;
    if (typeof noticeId !== "string") return;
    const entry = await getOwnerNotice(deps.kv, noticeId);
    if (!entry.value || entry.value.status !== "queued") return;
    await attempt(deps, entry as Deno.KvEntry<OwnerNotice>);
  });
}
