/**
 * Who may manage a project's webhooks: members of its organization manage every endpoint of
 * the project; any other signed-in user ("a buyer with an account") may register endpoints
 * on a public project and sees and manages only their own. On a private project a
 * non-member gets 403, as on every project route, whether or not the project exists.
 */
import type { Context } from "hono";
import { forbidden, notFound } from "../domain/errors.ts";
import type { WebhookRecord } from "../domain/webhooks.ts";
import type { Project } from "../domain/workspace.ts";
import { getMembership } from "../store/organizations.ts";
import { getProject } from "../store/projects.ts";
import { getWebhook } from "../store/webhooks.ts";
import type { AppEnv } from "./env.ts";

export interface WebhookAccess {
  project: Project;
  /** A member of the project's organization: sees and manages every endpoint. */
  member: boolean;
  userId: string;
}

/** The caller's access to a project's webhooks; 403 when they have none. */
export async function requireWebhookAccess(
  c: Context<AppEnv>,
  projectId: string,
): Promise<WebhookAccess> {
  const { kv } = c.var.services;
  const userId = c.var.user.id;
  const project = await getProject(kv, projectId);
  if (!project) throw forbidden();
  if (await getMembership(kv, project.organizationId, userId)) {
    return { project, member: true, userId };
  }
  if (project.visibility !== "public") throw forbidden();
  return { project, member: false, userId };
}

/** Whether the caller may see and manage `webhook`. */
export function canManage(access: WebhookAccess, webhook: WebhookRecord): boolean {
  return access.member || webhook.createdBy === access.userId;
}

/** An endpoint the caller may manage; 404 for one that is missing or someone else's. */
export async function requireWebhook(
  c: Context<AppEnv>,
  access: WebhookAccess,
  webhookId: string,
): Promise<WebhookRecord> {
  const webhook = await getWebhook(c.var.services.kv, access.project.id, webhookId);
  if (!webhook || !canManage(access, webhook)) {
    throw notFound("No webhook with that id in this project");
  }
  return webhook;
}
