/**
 * Public reads beyond one project: a profile by verified custom domain
 * (mounted at /trust/domains), and an organization's trust center listing
 * its published projects (mounted at /public/trust).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { OrganizationTrustCenter, PublishedTrustProfileResponse } from "../../domain/publish.ts";
import {
  renderSubprocessorsHtml,
  renderSubprocessorsMarkdown,
  subprocessorsCsp,
} from "../../publish/render/mod.ts";
import { orgTrustCenter, orgTrustCenterPage } from "../../serve/org_center.ts";
import { answersContent } from "../../serve/live/answers.ts";
import { getOrganizationBySlug } from "../../store/organizations.ts";
import { publicSubprocessors } from "../../serve/subprocessors.ts";
import { OrgSlugParams, PublicSubprocessors } from "../../domain/subprocessors.ts";
import type { Context } from "hono";
import type { AppEnv } from "../env.ts";
import { JSON_TYPE, PUBLIC_CACHE, trustPageHeaders } from "../../serve/headers.ts";
import { profileWrap } from "../../serve/bodies.ts";
import { publicationByDomain } from "../../serve/public_read.ts";
import { nameChangeOf } from "../../serve/log.ts";
import { normalizeDomain } from "../../publish/domain_name.ts";
import { NameChange } from "../../domain/log.ts";
import { createRouter } from "../env.ts";
import { negotiatedFormat } from "../negotiation.ts";
import { documentedJson, errors, json } from "../openapi.ts";
import { publicHeaders, serveArtifact } from "../public_responses.ts";
import { AccessGuide, AdsDocument } from "../../domain/ads.ts";
import { PublicStatus } from "../../domain/public_status.ts";
import {
  accessPageCsp,
  renderAccessHtml,
  renderAccessMarkdown,
  renderStatusHtml,
  renderStatusMarkdown,
} from "../../publish/render/offering.ts";
import { trustCenterUrl } from "../../publish/urls.ts";
import { accessGuide, adsDocument, publicOrganization } from "../../serve/ads.ts";
import { readPublicStatus } from "../../store/public_status.ts";
import { statusRecorder } from "../public_status.ts";

/** The envelope of /trust/domains/{domain}: the project's, and the domain's change of holder. */
const DomainTrustProfileResponse = PublishedTrustProfileResponse.extend({
  publisherChange: NameChange.optional().openapi({
    description:
      "Present when this domain was a deleted project's verified domain and, released by the service's operator, was verified by this project: the log entry that recorded it",
  }),
}).openapi("DomainTrustProfileResponse");

/** The profile of a verified custom domain, mounted at /trust/domains. */
export const trustDomainRoutes = createRouter();
/** Organization trust centers, mounted at /public/trust. */
export const trustCenterRoutes = createRouter();

const tags = ["Public trust"];

trustDomainRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{domain}",
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
      200: json(
        DomainTrustProfileResponse,
        "The same envelope as /trust/{projectSlug}, with `publisherChange` when the domain passed to this publisher after a release",
      ),
      ...errors(404),
    },
  }),
  async (c) => {
    const { services } = c.var;
    const raw = c.req.valid("param").domain;
    const { project, publication } = await publicationByDomain(services.kv, raw);
    const wrap = await profileWrap(services, project);
    // A deleted project's domain, released by the operator and verified by this project: the
    // envelope says since which log entry the domain is this publisher's.
    const change = await nameChangeOf(
      services.kv,
      project.organizationId,
      "domain",
      normalizeDomain(raw),
    );
    const part = change ? `,"publisherChange":${JSON.stringify(change)}` : "";
    const response = await serveArtifact(c, publication.artifacts.trustJson, {
      headers: { "cache-control": PUBLIC_CACHE, vary: "Accept", "content-type": JSON_TYPE },
      wrap: change
        ? {
          prefix: wrap.prefix,
          suffix: `${wrap.suffix.slice(0, -1)}${part}}`,
          tag: `${wrap.tag}-change-${change.leafIndex}`,
        }
        : wrap,
    });
    return documentedJson(DomainTrustProfileResponse, response);
  },
);

trustCenterRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}",
    operationId: "getOrganizationTrustCenter",
    tags,
    summary:
      "An organization's trust center: who the vendor is and every public, published project",
    description:
      "JSON by default; HTML for Accept: text/html; Markdown for Accept: text/markdown; `/public/trust/{orgSlug}.md` and `.html` choose explicitly.",
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
    const { kv, config, clock } = c.var.services;
    const raw = c.req.valid("param").orgSlug;
    const suffix = raw.match(/\.(md|html)$/)?.[1];
    const slug = suffix ? raw.slice(0, -suffix.length - 1) : raw;
    const center = await orgTrustCenter(kv, slug, { config, now: clock.now() });
    publicHeaders(c);
    c.header("Vary", "Accept");
    const link = (slug: string) => `${config.baseUrl}/trust/${encodeURIComponent(slug)}`;
    const format = negotiatedFormat(c, suffix);
    const org = format === "json" ? null : await getOrganizationBySlug(kv, slug);
    const sections = org ? [await answersContent(kv, config, org, "answers")] : [];
    if (format === "md") {
      const md = orgTrustCenterPage(center, { config, format: "md", links: link, sections });
      return c.body(md.bytes, 200, { "content-type": "text/markdown; charset=utf-8" });
    }
    if (format === "html") {
      const page = orgTrustCenterPage(center, { config, format: "html", links: link, sections });
      return c.body(page.bytes, 200, trustPageHeaders(page.csp));
    }
    return c.json(center, 200);
  },
);

/** The subprocessor list as JSON, Markdown (`.md` or Accept) or HTML (Accept: text/html). */
async function serveSubprocessors(c: Context<AppEnv>, slug: string, markdown: boolean) {
  const { kv, config } = c.var.services;
  const list = await publicSubprocessors(kv, slug, { config });
  publicHeaders(c);
  c.header("Vary", "Accept");
  const center = list.url.slice(0, -"/subprocessors".length);
  const format = negotiatedFormat(c, markdown ? "md" : undefined);
  if (format === "md") {
    return c.body(renderSubprocessorsMarkdown(list, center), 200, {
      "content-type": "text/markdown; charset=utf-8",
    });
  }
  if (format === "html") {
    return c.body(renderSubprocessorsHtml(list, center), 200, trustPageHeaders(subprocessorsCsp()));
  }
  return c.json(list, 200);
}

trustCenterRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/subprocessors",
    operationId: "getOrganizationSubprocessors",
    tags,
    summary: "An organization's subprocessors and the history of changes to them",
    description:
      "JSON by default; HTML for Accept: text/html; Markdown for Accept: text/markdown or at `/public/trust/{orgSlug}/subprocessors.md`. The same body as the MCP tool get_subprocessors. The history does not say who made a change.",
    request: { params: OrgSlugParams },
    responses: {
      200: {
        content: {
          "application/json": { schema: PublicSubprocessors },
          "text/html": { schema: z.string() },
          "text/markdown": { schema: z.string() },
        },
        description: "Current subprocessors and their history",
      },
      ...errors(404),
    },
  }),
  (c) => serveSubprocessors(c, c.req.valid("param").orgSlug, false),
);

trustCenterRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/subprocessors.md",
    operationId: "getOrganizationSubprocessorsMarkdown",
    tags,
    summary: "An organization's subprocessors as Markdown",
    request: { params: OrgSlugParams },
    responses: {
      200: {
        content: { "text/markdown": { schema: z.string() } },
        description: "Current subprocessors and their history",
      },
      ...errors(404),
    },
  }),
  (c) => serveSubprocessors(c, c.req.valid("param").orgSlug, true),
);

const AccessContent = {
  "application/json": { schema: AccessGuide },
  "text/html": { schema: z.string() },
  "text/markdown": { schema: z.string() },
};

/** "How to get access" as JSON, Markdown (`.md` or Accept) or HTML (Accept: text/html). */
async function serveAccess(c: Context<AppEnv>, slug: string, markdown: boolean) {
  const { kv, config } = c.var.services;
  const org = await publicOrganization(kv, slug);
  const guide = await accessGuide(kv, org, { config });
  publicHeaders(c);
  c.header("Vary", "Accept");
  const format = negotiatedFormat(c, markdown ? "md" : undefined);
  if (format === "md") {
    return c.body(renderAccessMarkdown(guide), 200, {
      "content-type": "text/markdown; charset=utf-8",
    });
  }
  if (format === "html") {
    return c.body(renderAccessHtml(guide), 200, trustPageHeaders(accessPageCsp()));
  }
  return c.json(guide, 200);
}

trustCenterRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/access",
    operationId: "getTrustCenterAccessGuide",
    tags,
    summary:
      "How to get access to a trust center's documents, in plain language (FedRAMP ADS AC-01)",
    description:
      "Generated from the organization's settings: how many documents are public, whether restricted ones can be requested, the NDA, whether some work-email domains are approved at once (the domains are not listed), how the link arrives and how long it lasts; then the vendor's own words and support contacts. JSON by default; HTML for Accept: text/html; Markdown for Accept: text/markdown or at `/public/trust/{orgSlug}/access.md`. Answered live.",
    request: { params: OrgSlugParams },
    responses: {
      200: { content: AccessContent, description: "The steps and the facts they come from" },
      ...errors(404),
    },
  }),
  (c) => serveAccess(c, c.req.valid("param").orgSlug, false),
);

trustCenterRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/access.md",
    operationId: "getTrustCenterAccessGuideMarkdown",
    tags,
    summary: "How to get access to a trust center's documents, as Markdown",
    request: { params: OrgSlugParams },
    responses: {
      200: {
        content: { "text/markdown": { schema: z.string() } },
        description: "The steps in plain language",
      },
      ...errors(404),
    },
  }),
  (c) => serveAccess(c, c.req.valid("param").orgSlug, true),
);

/** The trust center's status as JSON, Markdown (`.md` or Accept) or HTML (Accept: text/html). */
async function serveStatus(c: Context<AppEnv>, slug: string, markdown: boolean) {
  const { kv, config, clock } = c.var.services;
  const org = await publicOrganization(kv, slug);
  const now = clock.now();
  await statusRecorder(c.var.services).flush(now);
  const status = await readPublicStatus(kv, now);
  const center = trustCenterUrl(config, org.slug);
  c.header("Cache-Control", "public, max-age=60");
  c.header("Vary", "Accept");
  const format = negotiatedFormat(c, markdown ? "md" : undefined);
  if (format === "md") {
    return c.body(renderStatusMarkdown(status, org, center), 200, {
      "content-type": "text/markdown; charset=utf-8",
      "cache-control": "public, max-age=60",
    });
  }
  if (format === "html") {
    return c.body(renderStatusHtml(status, org, center), 200, {
      ...trustPageHeaders(accessPageCsp()),
      "cache-control": "public, max-age=60",
    });
  }
  return c.json(status, 200);
}

const StatusContent = {
  "application/json": { schema: PublicStatus },
  "text/html": { schema: z.string() },
  "text/markdown": { schema: z.string() },
};

trustCenterRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/status",
    operationId: "getTrustCenterStatus",
    tags,
    summary: "The trust center's own availability and recent disruptions (FedRAMP ADS-01, TC-07)",
    description:
      "As the service measures it: every answer of a public route (`/trust/…`, `/public/…`) is counted per UTC hour as served or failed (5xx); availability over the last 24 hours, 7 and 30 days, the days, and the disruptions (consecutive hours with failed answers). The counts are the service's, which serves every trust center. JSON by default; HTML for Accept: text/html; Markdown for Accept: text/markdown or at `/public/trust/{orgSlug}/status.md`. Answered live, cached a minute.",
    request: { params: OrgSlugParams },
    responses: {
      200: { content: StatusContent, description: "Availability and disruptions" },
      ...errors(404),
    },
  }),
  (c) => serveStatus(c, c.req.valid("param").orgSlug, false),
);

trustCenterRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/status.md",
    operationId: "getTrustCenterStatusMarkdown",
    tags,
    summary: "The trust center's own availability and recent disruptions, as Markdown",
    request: { params: OrgSlugParams },
    responses: {
      200: {
        content: { "text/markdown": { schema: z.string() } },
        description: "Availability and disruptions",
      },
      ...errors(404),
    },
  }),
  (c) => serveStatus(c, c.req.valid("param").orgSlug, true),
);

trustCenterRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/ads.json",
    operationId: "getTrustCenterAdsDocument",
    tags,
    summary:
      "Everything FedRAMP's ADS-01 lists, as one machine-readable document (offering, contacts, access, status)",
    description:
      "The cloud service offering (service and deployment model, business category, UEI, Marketplace link, services with impact levels, customer responsibilities, secure configuration guide, support contacts, next Ongoing Authorization Report), the vendor, how to get access and the trust center's status, with the URLs of the human-readable pages that render the same record (the trust center's HTML and Markdown). Answered live.",
    request: { params: OrgSlugParams },
    responses: {
      200: json(AdsDocument, "The document"),
      ...errors(404),
    },
  }),
  async (c) => {
    const { kv, config, clock } = c.var.services;
    const now = clock.now();
    await statusRecorder(c.var.services).flush(now);
    const doc = await adsDocument(kv, c.req.valid("param").orgSlug, { config, now });
    c.header("Cache-Control", "public, max-age=60");
    return c.json(doc, 200);
  },
);
