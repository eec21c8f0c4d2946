/**
 * Access to restricted documents: a visitor's request (the NDA version they accepted, its
 * hash and time, their address), the operator's decision, the emailed link and downloads
 * through it. A link's token is 32 random bytes shown only in the URL emailed (and once to
 * the approver); the store keeps its SHA-256. Every download through a link is logged.
 */
import type { Config } from "../config.ts";
import {
  type AccessLink,
  type AccessRequest,
  DEFAULT_LINK_DAYS,
  type SubmitAccessRequest,
} from "../domain/access_requests.ts";
import type { TrustDocument } from "../domain/documents.ts";
import { AppError, conflict, rateLimited, validationFailed } from "../domain/errors.ts";
import type { Organization } from "../domain/workspace.ts";
import { randomToken } from "../lib/encoding.ts";
import { sha256HexSync } from "../lib/hash.ts";
import { timeOrderedUuid } from "../lib/ids.ts";
import type { Mailer } from "../mail/mod.ts";
import {
  addAccessRequest,
  countAccessRequestAttempt,
  decideAccessRequest,
} from "../store/access_requests.ts";
import { currentNda, getDocumentSettings } from "../store/documents.ts";
import { listMembershipsByOrganization } from "../store/organizations.ts";
import { countRestrictedAnswers } from "./answers.ts";
import { requestableDocuments } from "./documents.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Requests allowed per client address and per email in one window (docs/decisions.md, "Documents
 * and NDA access requests").
 */
export const REQUEST_LIMITS = { windowMs: 60 * 60 * 1000, max: { ip: 20, email: 5 } } as const;

/** The URL of an access link's page. */
export function accessLinkUrl(config: Pick<Config, "baseUrl">, token: string): string {
  return `${config.baseUrl}/documents/access/${token}`;
}

/** Hashes a link token as stored. */
export function accessTokenHash(token: string): string {
  return sha256HexSync(token);
}

/** A new link for `request`, its token and the token's hash. */
function newLink(request: AccessRequest, options: { now: Date; days: number }) {
  const token = randomToken(32);
  const value: AccessLink = {
    id: timeOrderedUuid(options.now),
    requestId: request.id,
    documentIds: request.documentIds,
    email: request.email,
    createdAt: options.now.toISOString(),
    expiresAt: new Date(options.now.getTime() + options.days * DAY_MS).toISOString(),
    revokedAt: null,
    ...(request.answers ? { answers: true } : {}),
  };
  return { token, value, tokenHash: accessTokenHash(token) };
}

/** Emails the link; says whether it went, never throws. */
async function emailLink(
  mailer: Mailer,
  options: { org: Organization; link: AccessLink; url: string; titles: string[] },
): Promise<{ sent: boolean; detail: string }> {
  if (!mailer.configured) {
    return {
      sent: false,
      detail: "Email is not configured (SMTP_URL or SES_REGION): copy the link and send it",
    };
  }
  const { org, link, url, titles } = options;
  const text = [
    `Your request for documents of ${org.name} was approved.`,
    "",
    ...titles.map((title) => `- ${title}`),
    "",
    `Download them here until ${link.expiresAt} (UTC):`,
    url,
    "",
    "The link is for you only; every download is logged and PDFs are stamped with your email.",
  ].join("\n");
  try {
    await mailer.send({ to: link.email, subject: `Documents from ${org.name}`, text });
    return { sent: true, detail: `Emailed to ${link.email}` };
  } catch (error) {
    return { sent: false, detail: `The email could not be sent (${(error as Error).name})` };
  }
}

interface SubmitDeps {
  kv: Deno.Kv;
  config: Config;
  mailer: Mailer;
}

/**
 * Records a visitor's request after checking it against the current NDA version and the
 * restricted documents the trust center lists (or unlisted ones it names, from their request
 * URL), with an email to each owner of the organization staged in the same commit (a job
 * sends it). Throttled per address and email. When the email's domain is auto-approved and mail is configured, the link is emailed at once and
 * the request approved (without mail, it waits for an operator, who can copy the link).
 */
export async function submitAccessRequest(
  deps: SubmitDeps,
  options: { org: Organization; submission: SubmitAccessRequest; ip: string; now: Date },
): Promise<AccessRequest> {
  const { kv } = deps;
  const { org, submission, now } = options;
  const { nda, documentIds, answers } = await checkSubmission(kv, org, submission);
  const wait = await countAccessRequestAttempt(kv, { ip: options.ip, email: submission.email }, {
    now,
    ...REQUEST_LIMITS,
  });
  if (wait > 0) throw rateLimited("Too many access requests; try again later", wait / 1000);
  const request: AccessRequest = {
    id: timeOrderedUuid(now),
    documentIds,
    name: submission.name,
    email: submission.email,
    company: submission.company,
    nda: { version: nda.version, sha256: nda.sha256, acceptedAt: now.toISOString() },
    ip: options.ip,
    status: "pending",
    createdAt: now.toISOString(),
    decidedAt: null,
    decidedBy: null,
    autoApproved: false,
    ...(answers ? { answers: true } : {}),
    autoApproval: null,
    linkId: null,
  };
  const owners = (await listMembershipsByOrganization(kv, org.id))
    .filter((m) => m.role === "owner").map((m) => m.userId);
  await addAccessRequest(kv, org.id, { request, notify: owners, now });
  const domain = submission.email.slice(submission.email.lastIndexOf("@") + 1);
  const { autoApproveDomains } = await getDocumentSettings(kv, org.id);
  if (!deps.mailer.configured || !autoApproveDomains.includes(domain)) return request;
  return await autoApprove(deps, { org, request, now });
}

/** The current NDA and the requested documents, or a 409 (no NDA) or validation_failed. */
async function checkSubmission(kv: Deno.Kv, org: Organization, submission: SubmitAccessRequest) {
  const nda = await currentNda(kv, org.id);
  if (!nda) throw conflict(`${org.name} does not take access requests yet`);
  if (submission.ndaVersion !== nda.version) {
    throw validationFailed("The NDA changed since the form was loaded; please read it again");
  }
  const documentIds = [...new Set(submission.documentIds)];
  const restricted = new Set(
    (await requestableDocuments(kv, org.id, documentIds)).map((d) => d.document.id),
  );
  if (!documentIds.every((id) => restricted.has(id))) {
    throw validationFailed("Choose restricted documents this trust center lists");
  }
  const answers = submission.answers === true;
  if (answers && (await countRestrictedAnswers(kv, org.id)) === 0) {
    throw validationFailed(`${org.name} has no restricted answers to ask for`);
  }
  return { nda, documentIds, answers };
}

/**
 * Approves a stored pending request of an auto-approved domain: the link is emailed first
 * and committed (with the approval) only once the SMTP server accepted the message, so a
 * link nobody received never works. When the email fails, the request stays pending with
 * `autoApproval` saying why, for an owner to approve by hand (who is shown the link).
 */
async function autoApprove(
  deps: SubmitDeps,
  options: { org: Organization; request: AccessRequest; now: Date },
): Promise<AccessRequest> {
  const { org, request, now } = options;
  const link = newLink(request, { now, days: DEFAULT_LINK_DAYS });
  const email = await emailLink(deps.mailer, {
    org,
    link: link.value,
    url: accessLinkUrl(deps.config, link.token),
    titles: await titlesOf(deps.kv, org.id, request),
  });
  const failedAt = now.toISOString();
  try {
    return await decideAccessRequest(deps.kv, org.id, {
      id: request.id,
      decide: (current) => ({
        next: email.sent
          ? {
            ...current,
            status: "approved",
            decidedAt: failedAt,
            autoApproved: true,
            linkId: link.value.id,
          }
          : { ...current, autoApproval: { failedAt, detail: email.detail } },
        link: email.sent ? link : undefined,
      }),
    });
  } catch (error) {
    // An owner decided it meanwhile: their decision stands.
    if (error instanceof AppError && error.status === 409) return request;
    throw error;
  }
}

/** What a request asked for, as the email lists it: document titles, then the answers. */
async function titlesOf(
  kv: Deno.Kv,
  organizationId: string,
  request: Pick<AccessRequest, "documentIds" | "answers">,
): Promise<string[]> {
  const listed = await requestableDocuments(kv, organizationId, request.documentIds);
  const byId = new Map<string, TrustDocument>(listed.map((d) => [d.document.id, d.document]));
  const titles = request.documentIds.map((id) => byId.get(id)?.title)
    .filter((t): t is string => t !== undefined);
  return request.answers ? [...titles, "Restricted answers to security questions"] : titles;
}

/** Approves a pending request: a new link, emailed when mail is configured. */
export async function approveAccessRequest(
  deps: SubmitDeps,
  options: {
    org: Organization;
    id: string;
    days?: number;
    actor: { userId: string; email: string | null };
    now: Date;
  },
) {
  const { org, now } = options;
  let created: ReturnType<typeof newLink> | null = null;
  const request = await decideAccessRequest(deps.kv, org.id, {
    id: options.id,
    decide: (current) => {
      created = newLink(current, { now, days: options.days ?? DEFAULT_LINK_DAYS });
      return {
        next: {
          ...current,
          status: "approved",
          decidedAt: now.toISOString(),
          decidedBy: options.actor,
          linkId: created.value.id,
        },
        link: created,
      };
    },
  });
  const link = created as unknown as ReturnType<typeof newLink>;
  const url = accessLinkUrl(deps.config, link.token);
  const email = await emailLink(deps.mailer, {
    org,
    link: link.value,
    url,
    titles: await titlesOf(deps.kv, org.id, request),
  });
  return { request, link: { ...link.value, url }, email };
}

/** Denies a pending request; nothing is sent. */
export function denyAccessRequest(
  kv: Deno.Kv,
  options: {
    org: Organization;
    id: string;
    actor: { userId: string; email: string | null };
    now: Date;
  },
): Promise<AccessRequest> {
  return decideAccessRequest(kv, options.org.id, {
    id: options.id,
    decide: (current) => ({
      next: {
        ...current,
        status: "denied",
        decidedAt: options.now.toISOString(),
        decidedBy: options.actor,
      },
    }),
  });
}
