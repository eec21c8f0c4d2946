/**
 * The access side's mutating operations (docs/ads.md, docs/api_access.md) as requests over the
 * differential world: the vendor's access settings and rules, a buyer organization founded
 * through the emailed sign-in link (the world's mail sink) and what its admin does, the
 * vendor's revocation of it, and personal access tokens. The credentials each operation hands
 * out (a buyer session, a service token, an access token) are kept per world for the next.
 */
import type { DifferentialWorld } from "../support/differential_world.ts";
import type { Step } from "./_operations.ts";

type Entry = (w: DifferentialWorld) => Step | Promise<Step>;

const BUYER = "ada@customer.example";
const COLLEAGUE = "bob@customer.example";

interface Credentials {
  session?: string;
  serviceTokenId?: string;
  accessTokenId?: string;
}

const held = new WeakMap<DifferentialWorld, Credentials>();

function credentials(w: DifferentialWorld): Credentials {
  if (!held.has(w)) held.set(w, {});
  return held.get(w)!;
}

function session(w: DifferentialWorld): string {
  const token = credentials(w).session;
  if (!token) throw new Error("no buyer session: startBuyerSession runs first");
  return token;
}

const buyer = (w: DifferentialWorld) => `/public/trust/${w.target.orgSlug}/buyer`;

/** The token of the last sign-in link mailed to `to` (the sign-in ran and its jobs settled). */
async function signInToken(w: DifferentialWorld, to: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const found: string[] = [];
    w.smtp.messages.forEach((mail, i) => {
      if (!w.smtp.recipients[i].includes(to)) return;
      const match = `${mail.text ?? ""}`.match(/#sign-in=([A-Za-z0-9_-]{43})/);
      if (match) found.push(match[1]);
    });
    if (found.length > 0) return found.at(-1)!;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no sign-in link was mailed to ${to}`);
}

/** Sends `step` and keeps what `keep` takes from its JSON answer; returns the status. */
function keeping(
  w: DifferentialWorld,
  method: string,
  step: Step,
  // deno-lint-ignore no-explicit-any
  keep: (body: any) => void,
): Step {
  return {
    ...step,
    perform: async () => {
      const answer = await w.send(method, step.path, step.call);
      if (answer.status >= 200 && answer.status < 300) keep(answer.json);
      else throw new Error(`${method} ${step.path} answered ${answer.status}: ${answer.text}`);
      return answer.status;
    },
  };
}

export const ACCESS_OPERATIONS: Record<string, Entry> = {
  putAccessSettings: (w) => ({
    path: `/organizations/${w.target.orgId}/access-settings`,
    call: {
      token: w.tokens.owner,
      json: {
        denyDomains: ["rival.example"],
        summaryMonths: 12,
        defaultRule: { mode: "manual" },
      },
    },
  }),
  putAccessRule: (w) => ({
    path: `/organizations/${w.target.orgId}/access-rules/${w.target.documentIds.restricted}`,
    call: {
      token: w.tokens.owner,
      json: { mode: "click-through", buyerOrganizations: true, expiresInDays: 30 },
    },
  }),
  buyerSignIn: (w) => ({
    path: `${buyer(w)}/sign-in`,
    call: { json: { email: BUYER } },
    expect: 202,
  }),
  startBuyerSession: async (w) =>
    keeping(w, "POST", {
      path: `${buyer(w)}/sessions`,
      call: { json: { token: await signInToken(w, BUYER) } },
      expect: 201,
    }, (body) => {
      credentials(w).session = body.sessionToken;
    }),
  requestBuyerAccess: async (w) => {
    const nda = await w.ok("GET", `/organizations/${w.target.orgId}/nda`, {
      token: w.tokens.owner,
    });
    return {
      path: `${buyer(w)}/access`,
      call: {
        token: session(w),
        json: {
          documentIds: [w.target.documentIds.restricted],
          ndaVersion: nda.current.version,
          acceptNda: true,
        },
      },
    };
  },
  addBuyerMember: (w) => ({
    path: `${buyer(w)}/members`,
    call: { token: session(w), json: { email: COLLEAGUE } },
    expect: 201,
  }),
  removeBuyerMember: (w) => ({
    path: `${buyer(w)}/members/${encodeURIComponent(COLLEAGUE)}`,
    call: { token: session(w) },
    expect: 204,
  }),
  createBuyerServiceToken: (w) =>
    keeping(w, "POST", {
      path: `${buyer(w)}/tokens`,
      call: {
        token: session(w),
        json: { name: "GRC", documentIds: [w.target.documentIds.restricted], expiresInDays: 30 },
      },
      expect: 201,
    }, (body) => {
      credentials(w).serviceTokenId = body.token.id;
    }),
  revokeBuyerServiceToken: (w) => ({
    path: `${buyer(w)}/tokens/${credentials(w).serviceTokenId}`,
    call: { token: session(w) },
    expect: 204,
  }),
  revokeBuyerOrganization: (w) => ({
    path: `/organizations/${w.target.orgId}/buyer-organizations/customer.example/revoke`,
    call: { token: w.tokens.owner },
  }),
  restoreBuyerOrganization: (w) => ({
    path: `/organizations/${w.target.orgId}/buyer-organizations/customer.example/restore`,
    call: { token: w.tokens.owner },
  }),
  putProjectAccessRule: (w) => ({
    path: `/organizations/${w.target.orgId}/project-access-rules/${w.target.projectId}`,
    call: {
      token: w.tokens.owner,
      json: { mode: "verified", autoApproveDomains: ["customer.example"], expiresInDays: 20 },
    },
  }),
  deleteProjectAccessRule: (w) => ({
    path: `/organizations/${w.target.orgId}/project-access-rules/${w.target.projectId}`,
    call: { token: w.tokens.owner },
    expect: 204,
  }),
  deleteAccessRule: (w) => ({
    path: `/organizations/${w.target.orgId}/access-rules/${w.target.documentIds.restricted}`,
    call: { token: w.tokens.owner },
  }),
  createAccessToken: (w) =>
    keeping(w, "POST", {
      path: `/organizations/${w.target.orgId}/access-tokens`,
      call: { token: w.tokens.owner, json: { name: "CI", scope: "read-write", expiresInDays: 90 } },
      expect: 201,
    }, (body) => {
      credentials(w).accessTokenId = body.accessToken.id;
    }),
  revokeAccessToken: (w) => ({
    path: `/organizations/${w.target.orgId}/access-tokens/${credentials(w).accessTokenId}`,
    call: { token: w.tokens.owner },
    expect: 204,
  }),
};

/** The access group, in order: each operation uses what the ones before it made. */
export const ACCESS_GROUP = [
  "putAccessSettings",
  "putAccessRule",
  "putProjectAccessRule",
  "buyerSignIn",
  "startBuyerSession",
  "requestBuyerAccess",
  "addBuyerMember",
  "removeBuyerMember",
  "createBuyerServiceToken",
  "revokeBuyerServiceToken",
  "revokeBuyerOrganization",
  "restoreBuyerOrganization",
  "deleteProjectAccessRule",
  "deleteAccessRule",
  "createAccessToken",
  "revokeAccessToken",
];
