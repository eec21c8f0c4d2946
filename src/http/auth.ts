/**
 * Authentication and authorization middleware for human callers.
 */
import type { Context, MiddlewareHandler } from "hono";
import { forbidden, unauthorized } from "../domain/errors.ts";
import type { OrganizationMember, Project } from "../domain/workspace.ts";
import { getMembership } from "../store/organizations.ts";
import { getProject } from "../store/projects.ts";
import { upsertUser } from "../store/users.ts";
import { refuseUnlessWritable } from "./storage_guard.ts";
import type { AppEnv } from "./env.ts";

/** The bearer token of the request, or null when the header is absent or not Bearer. */
export function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer[ ]+([^\s]+)[ ]*$/i);
  return match ? match[1] : null;
}

/**
 * Requires a valid human access token and attaches the user (created on
 * first sight of the token's subject). The handler never runs otherwise.
 */
export const requireHuman: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header("authorization");
  if (!header) throw unauthorized("A bearer access token is required");
  const token = bearerToken(header);
  if (!token) throw unauthorized('The Authorization header must be "Bearer <token>"');
  const { verifier, kv, clock } = c.var.services;
  const payload = await verifier.verify(token);
  const identity = await verifier.identify(token, payload);
  const user = await upsertUser(
    kv,
    { idpSub: identity.sub, email: identity.email, name: identity.name },
    clock.now(),
    // A first sign-in creates the user: not while the KV may be this isolate's memory.
    { beforeCreate: () => refuseUnlessWritable(c.var.services.storage) },
  );
  c.set("user", user);
  await next();
};

/** The caller's membership of an organization; 403 for non-members (existing or not). */
export async function requireMembership(
  c: Context<AppEnv>,
  organizationId: string,
  role?: "owner",
): Promise<OrganizationMember> {
  const membership = await getMembership(c.var.services.kv, organizationId, c.var.user.id);
  if (!membership) throw forbidden();
  if (role && membership.role !== role) {
    throw forbidden("Only an owner of the organization can do this");
  }
  return membership;
}

/**
 * The project, when the caller is a member of its organization. A project
 * that does not exist and one of another organization both answer 403, so
 * the response never reveals which ids exist elsewhere.
 */
export async function requireProjectAccess(
  c: Context<AppEnv>,
  projectId: string,
): Promise<Project> {
  const project = await getProject(c.var.services.kv, projectId);
  if (!project) throw forbidden();
  await requireMembership(c, project.organizationId);
  return project;
}
