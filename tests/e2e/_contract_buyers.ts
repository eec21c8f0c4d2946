/**
 * The contract test's pass over buyer organizations (docs/ads.md): the server has no mail,
 * so signing in is refused (409) and the emailed link's token is stored here as the service
 * would have stored it; from the session on, every buyer operation runs through HTTP with a
 * buyer token, then the vendor's inventory, rules, settings, summaries and revocation.
 */
import { makePdf } from "../support/documents.ts";
import { tokenHash } from "../../src/serve/buyers.ts";
import { saveBuyerSignIn } from "../../src/store/buyers.ts";

type Call = (operationId: string, spec: {
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  auth?: "human" | "collector" | "none";
  expect: number;
  // deno-lint-ignore no-explicit-any
}) => Promise<any>;

/** `fx.human` is the organization's owner; an NDA is set. */
export async function exerciseBuyers(call: Call, fx: Record<string, string>, kv: Deno.Kv) {
  const org = { organizationId: fx.org };
  const center = { orgSlug: fx.orgSlug };
  const uploaded = await call("uploadDocument", {
    params: org,
    query: { title: "Pen test", visibility: "restricted" },
    body: await makePdf("Pen test") as Uint8Array<ArrayBuffer>,
    headers: { "content-type": "application/pdf" },
    expect: 201,
  });
  const documentId = uploaded.document.id as string;
  const rule = { ...org, documentId };
  await call("listAccessRules", { params: org, expect: 200 });
  await call("putAccessRule", { params: rule, json: { mode: "sideways" }, expect: 400 });
  await call("putAccessRule", { params: rule, json: { mode: "manual" }, expect: 200 });
  await call("deleteAccessRule", { params: rule, expect: 200 });
  await call("putAccessRule", { params: rule, json: { mode: "click-through" }, expect: 200 });
  const group = { ...org, projectId: fx.project };
  await call("putProjectAccessRule", { params: group, json: { mode: "public" }, expect: 400 });
  await call("deleteProjectAccessRule", { params: group, expect: 404 });
  await call("putProjectAccessRule", {
    params: group,
    json: { mode: "verified", buyerOrganizations: true, denyDomains: ["rival.example"] },
    expect: 200,
  });
  await call("listProjectAccessRules", { params: org, expect: 200 });
  await call("deleteProjectAccessRule", { params: group, expect: 204 });
  await call("putProjectAccessRule", {
    params: { ...org, projectId: crypto.randomUUID() },
    json: { mode: "manual" },
    expect: 404,
  });
  await call("getAccessSettings", { params: org, expect: 200 });
  await call("putAccessSettings", {
    params: org,
    json: { denyDomains: ["rival.example"], summaryMonths: 3 },
    expect: 400,
  });
  await call("putAccessSettings", {
    params: org,
    json: { denyDomains: ["rival.example"], summaryMonths: 12 },
    expect: 200,
  });

  await call("buyerPage", { params: center, auth: "none", expect: 200 });
  await call("buyerPage", { params: { orgSlug: "no-such-center" }, auth: "none", expect: 404 });
  await call("buyerSignIn", {
    params: center,
    json: { email: "ada@gmail.com" },
    auth: "none",
    expect: 400,
  });
  await call("buyerSignIn", {
    params: center,
    json: { email: "ada@customer.example" },
    auth: "none",
    expect: 409,
  });
  const signIn = "s".repeat(43);
  await saveBuyerSignIn(kv, fx.org, tokenHash(signIn), {
    email: "ada@customer.example",
    createdAt: new Date().toISOString(),
  }, 60_000);
  await call("startBuyerSession", {
    params: center,
    json: { token: "t".repeat(43) },
    auth: "none",
    expect: 401,
  });
  const session = await call("startBuyerSession", {
    params: center,
    json: { token: signIn },
    auth: "none",
    expect: 201,
  });
  const as = (secret: string) => ({
    auth: "none" as const,
    headers: { authorization: `Bearer ${secret}` },
  });
  const admin = as(session.sessionToken);
  const nda = await call("getNda", { params: org, expect: 200 });
  const decided = await call("requestBuyerAccess", {
    params: center,
    json: { documentIds: [documentId], ndaVersion: nda.current.version, acceptNda: true },
    ...admin,
    expect: 200,
  });
  if (decided.decisions[0].outcome !== "granted") throw new Error("click-through not granted");
  await call("getBuyerContext", { params: center, ...admin, expect: 200 });
  await call("addBuyerMember", {
    params: center,
    json: { email: "bob@other.example" },
    ...admin,
    expect: 400,
  });
  await call("addBuyerMember", {
    params: center,
    json: { email: "bob@customer.example" },
    ...admin,
    expect: 201,
  });
  await call("listBuyerMembers", { params: center, ...admin, expect: 200 });
  await call("removeBuyerMember", {
    params: { ...center, email: "bob@customer.example" },
    ...admin,
    expect: 204,
  });
  await call("removeBuyerMember", {
    params: { ...center, email: "bob@customer.example" },
    ...admin,
    expect: 404,
  });
  const created = await call("createBuyerServiceToken", {
    params: center,
    json: { name: "GRC", documentIds: [documentId], expiresInDays: 30 },
    ...admin,
    expect: 201,
  });
  const tool = as(created.secret);
  await call("listBuyerServiceTokens", { params: center, ...admin, expect: 200 });
  await call("listBuyerDocuments", { params: center, ...tool, expect: 200 });
  await call("downloadBuyerDocument", { params: { ...center, documentId }, ...tool, expect: 200 });
  await call("downloadBuyerDocument", {
    params: { ...center, documentId: crypto.randomUUID() },
    ...tool,
    expect: 404,
  });
  await call("getBuyerAccessSummary", { params: center, ...tool, expect: 200 });
  await call("getBuyerAccessSummary", {
    params: center,
    query: { format: "csv" },
    ...tool,
    expect: 200,
  });
  await call("revokeBuyerServiceToken", {
    params: { ...center, tokenId: created.token.id },
    ...admin,
    expect: 204,
  });
  await call("listBuyerDocuments", { params: center, ...tool, expect: 401 });

  await call("listBuyerOrganizations", { params: org, expect: 200 });
  await call("getAccessSummaries", { params: org, expect: 200 });
  await call("getAccessSummaries", { params: org, query: { format: "csv" }, expect: 200 });
  await call("getAccessSummaryChart", { params: org, expect: 200 });
  await call("listAccessEvents", { params: org, expect: 200 });
  await call("listPageViews", { params: org, expect: 200 });
  const domain = { ...org, domain: "customer.example" };
  await call("revokeBuyerOrganization", { params: domain, expect: 200 });
  await call("getBuyerContext", { params: center, ...admin, expect: 401 });
  await call("restoreBuyerOrganization", { params: domain, expect: 200 });
  await call("revokeBuyerOrganization", {
    params: { ...org, domain: "nobody.example" },
    expect: 404,
  });
}
