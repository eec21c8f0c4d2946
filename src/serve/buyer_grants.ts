/**
 * What a buyer organization may read and how it comes to: its live grants, the rule of a
 * document, a signed-in buyer's request decided by the rules at once, and an owner's approval
 * granting the whole buyer organization. Re-exported by src/serve/buyers.ts.
 */
import type { AccessRequest } from "../domain/access_requests.ts";
import {
  type AccessRule,
  type BuyerGrant,
  type BuyerOrganization,
  decide,
  type Decision,
  domainOf,
} from "../domain/buyers.ts";
import type { TrustDocument } from "../domain/documents.ts";
import { conflict, forbidden, validationFailed } from "../domain/errors.ts";
import type { Organization } from "../domain/workspace.ts";
import { timeOrderedUuid } from "../lib/ids.ts";
import { addAccessRequest } from "../store/access_requests.ts";
import {
  getAccessSettings,
  getBuyerMember,
  getBuyerOrganization,
  listBuyerGrants,
  setBuyerGrant,
} from "../store/buyers.ts";
import { currentNda, getDocument, getDocumentSettings } from "../store/documents.ts";
import { explainByRule } from "../domain/access_rules.ts";
import { chooseRule } from "./access_rules.ts";
import { listMembershipsByOrganization } from "../store/organizations.ts";
import { withdrawnProjectIds } from "../store/deletions.ts";
import { requestableDocuments } from "./documents.ts";
import { DEFAULT_ACCESS_SETTINGS } from "./buyer_inventory.ts";
import type { BuyerCaller } from "./buyer_sessions.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What a buyer organization may read at `now`: its unexpired grants of documents that are
 * still restricted, within a service token's scope.
 */
export async function liveGrants(
  kv: Deno.Kv,
  org: Organization,
  caller: Pick<BuyerCaller, "buyer" | "token"> | { buyer: BuyerOrganization; token: null },
  now: Date,
): Promise<{ grant: BuyerGrant; document: TrustDocument }[]> {
  const scope = caller.token?.documentIds ?? null;
  const out = [];
  for (const grant of await listBuyerGrants(kv, org.id, caller.buyer.domain)) {
    if (Date.parse(grant.expiresAt) <= now.getTime()) continue;
    if (scope && !scope.includes(grant.documentId)) continue;
    const document = await getDocument(kv, org.id, grant.documentId);
    if (!document || document.visibility !== "restricted") continue;
    out.push({ grant: { ...grant, title: document.title }, document });
  }
  // A project's withdrawal (docs/lifecycle.md) takes its documents off every grant at once.
  const withdrawn = await withdrawnProjectIds(
    kv,
    out.flatMap(({ document }) => document.projectId ? [document.projectId] : []),
  );
  return out.filter(({ document }) => !document.projectId || !withdrawn.has(document.projectId))
    .sort((a, b) => a.document.title.localeCompare(b.document.title));
}

/**
 * The rule of a document: its own, else its project's, else the trust center's rule for every
 * restricted document (access settings' `defaultRule`), else the built-in default
 * (`chooseRule`, src/serve/access_rules.ts).
 */
export async function ruleOf(kv: Deno.Kv, orgId: string, documentId: string): Promise<AccessRule> {
  const document = await getDocument(kv, orgId, documentId);
  return (await chooseRule(kv, orgId, { id: documentId, projectId: document?.projectId ?? null }))
    .rule;
}

/**
 * A signed-in buyer asks for documents: each is decided by its rule at once. Granted ones
 * are the buyer organization's from this moment (a renewal extends an existing grant);
 * denied ones are refused with the reason; the rest are filed as one access request for an
 * owner, with an email to each owner staged.
 */
export async function requestAsBuyer(
  kv: Deno.Kv,
  options: {
    org: Organization;
    caller: BuyerCaller;
    documentIds: string[];
    ndaVersion: number;
    name?: string;
    company?: string;
    ip: string;
    now: Date;
  },
): Promise<{ decisions: Decision[]; requestId: string | null }> {
  const { org, caller, now } = options;
  if (!caller.member) throw forbidden("A service token reads; a person asks for access");
  const nda = await currentNda(kv, org.id);
  if (!nda) throw conflict(`${org.name} does not take access requests yet`);
  if (options.ndaVersion !== nda.version) {
    throw validationFailed("The NDA changed since you read it; please read it again");
  }
  const ids = [...new Set(options.documentIds)];
  const requestable = new Map(
    (await requestableDocuments(kv, org.id, ids)).map((d) => [d.document.id, d.document]),
  );
  if (!ids.every((id) => requestable.has(id))) {
    throw validationFailed("Choose restricted documents this trust center lists");
  }
  const settings = await getAccessSettings(kv, org.id, DEFAULT_ACCESS_SETTINGS);
  const { autoApproveDomains } = await getDocumentSettings(kv, org.id);
  const email = caller.member.email;
  const domain = caller.buyer.domain;
  const decisions: Decision[] = [];
  const pending: string[] = [];
  for (const id of ids) {
    const document = requestable.get(id)!;
    const choice = await chooseRule(kv, org.id, document);
    const rule = choice.rule;
    const decided = decide(rule, {
      title: document.title,
      vendor: org.name,
      domain,
      isBuyerOrganization: true,
      orgDenyDomains: settings.denyDomains,
      orgAutoApproveDomains: autoApproveDomains,
    });
    const verdict = {
      outcome: decided.outcome,
      explanation: explainByRule(decided, {
        origin: choice,
        rule,
        title: document.title,
        vendor: org.name,
        domain,
      }),
    };
    let expiresAt: string | null = null;
    if (verdict.outcome === "granted") {
      expiresAt = new Date(now.getTime() + rule.expiresInDays * DAY_MS).toISOString();
      await setBuyerGrant(kv, org.id, domain, {
        documentId: id,
        title: document.title,
        grantedAt: now.toISOString(),
        expiresAt,
        via: "rule",
        reason: verdict.explanation,
        grantedTo: email,
      });
    } else if (verdict.outcome === "pending") pending.push(id);
    decisions.push({
      documentId: id,
      title: document.title,
      outcome: verdict.outcome,
      explanation: verdict.outcome === "granted"
        ? `${verdict.explanation} Everyone in ${domain}'s buyer organization can read it until ${
          expiresAt!.slice(0, 10)
        }; ask again before then to renew.`
        : verdict.explanation,
      expiresAt,
    });
  }
  let requestId: string | null = null;
  if (pending.length > 0) {
    const request: AccessRequest = {
      id: timeOrderedUuid(now),
      documentIds: pending,
      name: options.name ?? email,
      email,
      company: options.company ?? domain,
      nda: { version: nda.version, sha256: nda.sha256, acceptedAt: now.toISOString() },
      ip: options.ip,
      status: "pending",
      createdAt: now.toISOString(),
      decidedAt: null,
      decidedBy: null,
      autoApproved: false,
      autoApproval: null,
      linkId: null,
    };
    const owners = (await listMembershipsByOrganization(kv, org.id))
      .filter((m) => m.role === "owner").map((m) => m.userId);
    await addAccessRequest(kv, org.id, { request, notify: owners, now });
    requestId = request.id;
  }
  return { decisions, requestId };
}

/**
 * An owner approved a request: when its email belongs to a buyer organization's person, the
 * organization is granted the documents until the link's end, so colleagues read them too
 * without asking again.
 */
export async function grantApprovedToBuyer(
  kv: Deno.Kv,
  options: { org: Organization; request: AccessRequest; expiresAt: string; now: Date },
): Promise<void> {
  const { org, request, now } = options;
  const domain = domainOf(request.email);
  const buyer = await getBuyerOrganization(kv, org.id, domain);
  if (!buyer || buyer.revokedAt) return;
  if (!(await getBuyerMember(kv, org.id, domain, request.email))) return;
  for (const documentId of request.documentIds) {
    const document = await getDocument(kv, org.id, documentId);
    if (!document) continue;
    await setBuyerGrant(kv, org.id, domain, {
      documentId,
      title: document.title,
      grantedAt: now.toISOString(),
      expiresAt: options.expiresAt,
      via: "approval",
      reason: `An owner of ${org.name} approved ${request.email}'s request`,
      grantedTo: request.email,
    });
  }
}
