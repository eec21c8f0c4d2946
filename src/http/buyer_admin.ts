/**
 * What the vendor's routes of buyer access share (src/http/routes/buyer_inventory.ts,
 * access_rules.ts, access_reports.ts, project_access_rules.ts): their tag, the organization
 * in the path, and the member (or owner) of it the request must come from.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { EmailDomain } from "../domain/buyers.ts";
import { uuidParam } from "../domain/common.ts";
import { forbidden } from "../domain/errors.ts";
import { getOrganization } from "../store/organizations.ts";
import { requireMembership } from "./auth.ts";
import type { AppEnv } from "./env.ts";

export { tags } from "./buyer_caller.ts";
export const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
export const DomainParams = OrgParams.extend({
  domain: EmailDomain.openapi({ param: { name: "domain", in: "path" }, example: "agency.gov" }),
});
export const DocParams = OrgParams.extend({ documentId: uuidParam("documentId") });

/**
 * The organization of the path, when the caller is a member of it (an owner when `role` says
 * so; else 403); the answer is private and never stored.
 */
export async function orgFor(c: Context<AppEnv>, organizationId: string, role?: "owner") {
  await requireMembership(c, organizationId, role);
  const org = await getOrganization(c.var.services.kv, organizationId);
  if (!org) throw forbidden();
  c.header("Cache-Control", "private, no-store");
  return org;
}
