/**
 * Authentication and authorization middleware for human callers.
 */
import type { Context, MiddlewareHandler } from "hono";
import { forbidden, unauthorized } from "../domain/errors.ts";
import type { OrganizationMember, Project } from "../domain/workspace.ts";
import { ACCESS_TOKEN_PREFIX } from "../domain/access_tokens.ts";
import { sha256Hex } from "../lib/hash.ts";
import { useAccessToken } from "../store/access_tokens.ts";
import { getMembership, getOrganization } from "../store/organizations.ts";
import { getProject } from "../store/projects.ts";
import { getUser, upsertUser } from "../store/users.ts";
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
  if (token.startsWith(ACCESS_TOKEN_PREFIX)) return await withAccessToken(c, token, next);
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

/** Where a personal access token is accepted: its organization's routes and its projects'. */
const TOKEN_PATH = /^\/(organizations|projects)\/([^/]+)(\/[^?]*)?$/;
/** Routes a token never reaches, read-write or not: minting tokens and deleting. */
const SESSION_ONLY = /^\/(access-tokens|deletion)(\/|$)/;
const READ_METHODS = new Set(["GET", "HEAD"]);

/**
 * A personal access token (docs/api_access.md): the request acts as the token's holder on its
 * organization's routes only (requireMembership refuses any other organization, and the
 * holder must still be a member), GET and HEAD only for a read-only token.
 */
async function withAccessToken(c: Context<AppEnv>, token: string, next: () => Promise<void>) {
  const { kv, clock } = c.var.services;
  const accessToken = token.length <= 128
    ? await useAccessToken(kv, await sha256Hex(token), clock.now())
    : null;
  if (!accessToken) throw unauthorized("The personal access token is unknown, revoked or expired");
  const place = c.req.path.match(TOKEN_PATH);
  if (
    !place || SESSION_ONLY.test(place[3] ?? "") ||
    (place[1] === "organizations" && place[2] !== accessToken.organizationId)
  ) {
    throw forbidden(
      "A personal access token is accepted only on its organization's and its projects' routes (not to manage tokens or delete)",
    );
  }
  if (accessToken.scope === "read" && !READ_METHODS.has(c.req.method)) {
    throw forbidden("This personal access token is read-only");
  }
  const user = await getUser(kv, accessToken.userId);
  if (!user) throw unauthorized("The personal access token's holder no longer exists");
  c.set("user", user);
  c.set("accessToken", accessToken);
  await next();
}

/**
 * The caller's membership of an organization; 403 for non-members (existing or not), and for
 * a personal access token of another organization.
 */
export async function requireMembership(
  c: Context<AppEnv>,
  organizationId: string,
  role?: "owner",
): Promise<OrganizationMember> {
  const accessToken = c.var.accessToken;
  if (accessToken && accessToken.organizationId !== organizationId) throw forbidden();
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

/**
 * The caller of an organization's route (a member, or an owner with `role`), the organization and
 * the actor its changes are recorded under; 403 otherwise, as `requireMembership`.
 */
export async function organizationCaller(
  c: Context<AppEnv>,
  organizationId: string,
  role?: "owner",
) {
  await requireMembership(c, organizationId, role);
  const organization = await getOrganization(c.var.services.kv, organizationId);
  if (!organization) throw forbidden();
  return { organization, actor: { userId: c.var.user.id, email: c.var.user.email ?? null } };
}
