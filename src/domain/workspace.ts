/**
 * Users, organizations, memberships, invitations and projects: the typed
 * contract of SPEC.md plus the request bodies DESIGN.md §7 settles.
 */
import { z } from "@hono/zod-openapi";
import { NextCursor } from "./list_page.ts";
import { DateTime, Name, Slug, Uuid } from "./common.ts";

export const Role = z.enum(["owner", "member"]);
export type Role = z.infer<typeof Role>;

export const Visibility = z.enum(["private", "public"]);

export const User = z.object({
  id: Uuid,
  idpSub: z.string(),
  email: z.email(),
  name: z.string(),
  createdAt: DateTime,
  updatedAt: DateTime,
}).openapi("User");
export type User = z.infer<typeof User>;

export const Organization = z.object({
  id: Uuid,
  name: z.string(),
  slug: z.string(),
  createdAt: DateTime,
  updatedAt: DateTime,
}).openapi("Organization");
export type Organization = z.infer<typeof Organization>;

export const OrganizationSummary = z.object({
  id: Uuid,
  name: z.string(),
  slug: z.string(),
  role: Role,
}).openapi("OrganizationSummary");
export type OrganizationSummary = z.infer<typeof OrganizationSummary>;

export const OrganizationMember = z.object({
  id: Uuid,
  organizationId: Uuid,
  userId: Uuid,
  role: Role,
  createdAt: DateTime,
}).openapi("OrganizationMember");
export type OrganizationMember = z.infer<typeof OrganizationMember>;

export const OrganizationMemberSummary = z.object({
  membership: OrganizationMember,
  user: User,
}).openapi("OrganizationMemberSummary");

export const OrganizationMembersResponse = z.object({
  organization: Organization,
  members: z.array(OrganizationMemberSummary),
  nextCursor: NextCursor,
}).openapi("OrganizationMembersResponse");

/** A DNS label used as `<hostedSubdomain>.<trust page host>`. */
export const HostedSubdomain = Slug.openapi({ example: "acme" });

export const Project = z.object({
  id: Uuid,
  organizationId: Uuid,
  name: z.string(),
  slug: z.string(),
  hostedSubdomain: z.string().nullable(),
  visibility: Visibility,
  autoPublish: z.boolean().openapi({
    description:
      "Publish a new version by itself when a recompute changes any control state (after the first publication). Off for new projects unless asked for.",
  }),
  createdAt: DateTime,
  updatedAt: DateTime,
}).openapi("Project");
export type Project = z.infer<typeof Project>;

export const MeResponse = z.object({
  user: User,
  organizations: z.array(OrganizationSummary),
}).openapi("MeResponse");

export const BootstrapWorkspaceRequest = z.strictObject({
  workspaceName: Name,
  projectName: Name,
  workspaceSlug: Slug.optional(),
  projectSlug: Slug.optional(),
  projectHostedSubdomain: HostedSubdomain.nullable().optional(),
  projectVisibility: Visibility.optional(),
}).openapi("BootstrapWorkspaceRequest");

export const BootstrapWorkspaceResponse = z.object({
  organization: Organization,
  project: Project,
}).openapi("BootstrapWorkspaceResponse");

export const CreateOrganizationRequest = z.strictObject({
  name: Name,
  slug: Slug.optional(),
}).openapi("CreateOrganizationRequest");

export const OrganizationResponse = z.object({ organization: Organization })
  .openapi("OrganizationResponse");

export const CreateProjectRequest = z.strictObject({
  organizationId: Uuid,
  name: Name,
  slug: Slug.optional(),
  hostedSubdomain: HostedSubdomain.nullable().optional(),
  visibility: Visibility.optional(),
  autoPublish: z.boolean().optional().openapi({
    description: "Publish by itself on state changes; false when omitted",
  }),
}).openapi("CreateProjectRequest");

export const UpdateProjectRequest = z.strictObject({
  name: Name.optional(),
  hostedSubdomain: HostedSubdomain.nullable().optional(),
  visibility: Visibility.optional(),
  autoPublish: z.boolean().optional(),
}).openapi("UpdateProjectRequest");
export type UpdateProjectRequest = z.infer<typeof UpdateProjectRequest>;

export const ProjectResponse = z.object({ project: Project }).openapi("ProjectResponse");
export const ProjectListResponse = z.object({
  projects: z.array(Project),
  nextCursor: NextCursor,
  deletionsDue: z.record(Uuid, DateTime).openapi({
    description:
      "The listed projects whose deletion is scheduled: project id → when it is due (undo before then)",
  }),
}).openapi("ProjectListResponse");

export const Invitation = z.object({
  id: Uuid,
  organizationId: Uuid,
  email: z.email(),
  role: Role,
  invitedByUserId: Uuid,
  createdAt: DateTime,
  expiresAt: DateTime,
}).openapi("Invitation");
export type Invitation = z.infer<typeof Invitation>;

/** An invitation as the service holds it: used once, then `acceptedAt` is set. */
export interface StoredInvitation extends Invitation {
  acceptedAt: string | null;
}

export const CreateInvitationRequest = z.strictObject({
  email: z.email().max(254),
  role: Role,
}).openapi("CreateInvitationRequest");

export const InvitationResponse = z.object({
  invitation: Invitation,
  acceptUrl: z.url().openapi({ description: "Shown once; the token in it is stored hashed" }),
}).openapi("InvitationResponse");

export const MembershipResponse = z.object({ membership: OrganizationMember })
  .openapi("MembershipResponse");
