/**
 * Public reads beyond one project: a profile by verified custom domain, and
 * an organization's trust center listing its published projects.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { notFound } from "../../domain/errors.ts";
import {
  OrganizationTrustCenter,
  type OrganizationTrustCenter as OrganizationTrustCenterType,
  PublishedTrustProfileResponse,
} from "../../domain/publish.ts";
import { normalizeDomain } from "../../publish/domain_name.ts";
import {
  renderOrgTrustCenterHtml,
  renderOrgTrustCenterMarkdown,
} from "../../publish/render/mod.ts";
import { getDomainByName } from "../../store/domains.ts";
import { getOrganizationBySlug } from "../../store/organizations.ts";
import { getProject, listProjectsByOrganization } from "../../store/projects.ts";
import { getLatestPublication } from "../../store/publications.ts";
import { createRouter } from "../env.ts";
import { errors, json } from "../openapi.ts";
import { wantsMarkdown } from "./docs.ts";
import { publicHeaders, serveLatestProfile, trustPageHeaders } from "./public_trust.ts";

export const publicOrgRoutes = createRouter();

const tags = ["Public trust"];

publicOrgRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/domains/{domain}",
    operationId: "getTrustProfileByDomain",
    tags,
    summary: "The latest trust profile of the project that verified this domain",
    request: {
      params: z.object({
        domain: z.string().min(1).max(300).openapi({
          param: { name: "domain", in: "path" },
          example: "trust.acme.example",
        }),
      }),
    },
    responses: {
      200: json(PublishedTrustProfileResponse, "The same envelope as /trust/{projectSlug}"),
      ...errors(404),
    },
  }),
  async (c) => {
    const raw = c.req.valid("param").domain;
    let name: string;
    try {
      name = normalizeDomain(raw);
    } catch {
      throw notFound("No verified domain by that name");
    }
    const { kv } = c.var.services;
    const domain = await getDomainByName(kv, name);
    const project = domain?.verificationStatus === "verified"
      ? await getProject(kv, domain.projectId)
      : null;
    const publication = project?.visibility === "public"
      ? await getLatestPublication(kv, project.id)
      : null;
    if (!publication) throw notFound("No verified domain by that name");
    return await serveLatestProfile(c, publication, "json") as never;
  },
);

publicOrgRoutes.openapi(
  createRoute({
    method: "get",
    path: "/public/trust/{orgSlug}",
    operationId: "getOrganizationTrustCenter",
    tags,
    summary: "An organization's trust center: every public, published project",
    description: "JSON by default; HTML for Accept: text/html; Markdown for Accept: text/markdown.",
    request: {
      params: z.object({
        orgSlug: z.string().min(1).max(100).openapi({ param: { name: "orgSlug", in: "path" } }),
      }),
    },
    responses: {
      200: {
        content: {
          "application/json": { schema: OrganizationTrustCenter },
          "text/html": { schema: z.string() },
          "text/markdown": { schema: z.string() },
        },
        description: "The organization and its published projects",
      },
      ...errors(404),
    },
  }),
  async (c) => {
    const { kv, config } = c.var.services;
    const org = await getOrganizationBySlug(kv, c.req.valid("param").orgSlug);
    if (!org) throw notFound("No public trust center by that name");
    const projects = await listProjectsByOrganization(kv, org.id);
    const center: OrganizationTrustCenterType = {
      organization: { name: org.name, slug: org.slug },
      projects: [],
    };
    for (const project of projects.filter((p) => p.visibility === "public")) {
      const publication = await getLatestPublication(kv, project.id);
      if (!publication) continue;
      center.projects.push({
        slug: project.slug,
        name: project.name,
        hostedSubdomain: project.hostedSubdomain,
        version: publication.version,
        publishedAt: publication.publishedAt,
        summary: publication.summary,
      });
    }
    publicHeaders(c);
    c.header("Vary", "Accept");
    const link = (slug: string) => `${config.baseUrl}/trust/${encodeURIComponent(slug)}`;
    if (wantsMarkdown(c)) {
      return c.body(renderOrgTrustCenterMarkdown(center, link), 200, {
        "content-type": "text/markdown; charset=utf-8",
      }) as never;
    }
    if (/text\/html/i.test(c.req.header("accept") ?? "")) {
      return c.body(renderOrgTrustCenterHtml(center, link), 200, trustPageHeaders()) as never;
    }
    return c.json(center, 200);
  },
);
