/**
 * The live part of the latest trust page. A published version's page is an immutable
 * artifact; what a vendor keeps current between versions (updates, documents, the
 * subprocessor list, the subscription form) is rendered per request from the store and
 * inserted before the page's `</main>`, in a block marked as live. Versioned pages
 * (`/trust/{slug}/versions/{n}`) stay exactly as published.
 *
 * A feature adds its section to {@linkcode LIVE_SECTIONS}. A section may bring its own
 * stylesheet (allowed by hash) and forms (their targets join `form-action`), so the page's
 * CSP stays as strict as the content needs.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { Config } from "../config.ts";
import type { Publication } from "../domain/publication.ts";
import type { Project } from "../domain/workspace.ts";
import type { Clock } from "../lib/clock.ts";
import { sha256HexSync } from "../lib/hash.ts";
import { Html, html } from "../lib/html.ts";
import { cssHash, trustPageCsp } from "../publish/render/_style.ts";
import type { ArtifactCache } from "./artifacts.ts";
import { answersSection } from "./live/answers.ts";
import { documentsSection } from "./live/documents.ts";
import { frameworksSection } from "./live/frameworks.ts";
import { subscribeSection } from "./live/subscribe.ts";
import { subprocessorsSection } from "./live/subprocessors.ts";
import { updatesSection } from "./live/updates.ts";
import { certificationsLiveSection } from "./live/certifications.ts";
import { bannerSection } from "./live/banner.ts";
import { failingSection } from "./live/failing.ts";
import { changedAtKey } from "../store/edge_pages.ts";
import { publicUrls } from "../publish/urls.ts";
import { humanUtc } from "../publish/render/_format.ts";

/** What a section is rendered from. */
export interface LiveContext {
  kv: Deno.Kv;
  config: Config;
  clock: Clock;
  project: Project;
  publication: Publication;
  /** Where the version's artifacts are read (sections that read its trust.json need them). */
  blobs?: BlobStore;
  artifacts?: ArtifactCache;
}

/**
 * Where a section goes: `banner` at the top of the page (what a reader must not miss),
 * `top` after the page's headline (the first screen), `end` (the default) before `</main>`.
 */
export type LivePlacement = "banner" | "top" | "end";

/** One section's part of the block; null when it has nothing to show. */
export interface LiveSectionContent {
  html: Html;
  markdown: string;
  placement?: LivePlacement;
  /** `<style>` texts the section's HTML needs beyond the trust page's stylesheet. */
  styles?: string[];
  /** Absolute URLs the section's forms post to. */
  formActions?: string[];
}

export interface LiveSection {
  /** Stable id, used for the section's anchor. */
  id: string;
  render(context: LiveContext): Promise<LiveSectionContent | null>;
}

/** The live sections, in page order (each within its placement). */
export const LIVE_SECTIONS: readonly LiveSection[] = [
  bannerSection,
  failingSection,
  certificationsLiveSection,
  updatesSection,
  frameworksSection,
  subprocessorsSection,
  documentsSection,
  answersSection,
  subscribeSection,
];

/** The rendered block, ready to insert, with what it needs from the CSP. */
export interface LiveBlock {
  /** The sections placed at the end of the page. */
  html: string;
  markdown: string;
  /** The banner and the first-screen sections (empty when none). */
  bannerHtml: string;
  topHtml: string;
  /** The banner's and the first-screen sections' Markdown, in that order. */
  bannerMarkdown: string;
  topMarkdown: string;
  styles: string[];
  formActions: string[];
  /** Changes whenever the block's bytes change; part of the page's ETag. */
  tag: string;
}

/** Renders every live section for the latest page of `project`. */
export async function renderLiveBlock(
  context: LiveContext,
  sections: readonly LiveSection[] = LIVE_SECTIONS,
): Promise<LiveBlock> {
  return liveBlockOf(await Promise.all(sections.map((s) => s.render(context))));
}

/** The block of rendered sections (null ones left out); also for pages other than a project's. */
export function liveBlockOf(rendered: readonly (LiveSectionContent | null)[]): LiveBlock {
  const parts = rendered.filter((part): part is LiveSectionContent => part !== null);
  const at = (placement: LivePlacement) =>
    parts.filter((p) => (p.placement ?? "end") === placement);
  // Stylesheets are the service's own constants, hashed into the CSP: inserted as they are.
  const styles = [...new Set(parts.flatMap((p) => p.styles ?? []))];
  const formActions = [...new Set(parts.flatMap((p) => p.formActions ?? []))];
  const wrap = (placed: LiveSectionContent[]) =>
    placed.length === 0 ? "" : html`
      <div class="live" data-live="true">
        ${placed.map((p) => p.html)}
      </div>
    `.value;
  const end = at("end");
  const sheets = styles.map((css) => html`<style>${new Html(css)}</style>`);
  // The end sections and every section's stylesheet go before `</main>`.
  const block = end.length > 0
    ? html`
      <div class="live" data-live="true">
        ${end.map((p) => p.html)}
      </div>
      ${sheets}
    `.value
    : styles.length > 0
    ? html`
      ${sheets}
    `.value
    : "";
  const markdownOf = (placed: LiveSectionContent[]) =>
    placed.map((p) => p.markdown.trimEnd()).join("\n\n");
  const markdown = markdownOf(end);
  const bannerHtml = wrap(at("banner"));
  const topHtml = wrap(at("top"));
  const bannerMarkdown = markdownOf(at("banner"));
  const topMarkdown = markdownOf(at("top"));
  return {
    html: block,
    markdown: markdown ? `\n${markdown}\n` : "",
    bannerHtml,
    topHtml,
    bannerMarkdown,
    topMarkdown,
    styles,
    formActions,
    tag: sha256HexSync(
      [block, markdown, bannerHtml, topHtml, bannerMarkdown, topMarkdown].join("\u0000"),
    ).slice(0, 16),
  };
}

/** Where the banner goes: just inside `<main …>`; -1 when the page has no main. */
function afterMainOpen(text: string): number {
  const open = text.indexOf("<main");
  if (open < 0) return -1;
  const close = text.indexOf(">", open);
  return close < 0 ? -1 : close + 1;
}

/**
 * Where first-screen sections go: after the headline card (the section labelled by the
 * page's `<h1 id="title">`), else just inside `<main …>`.
 */
function afterHeadline(text: string): number {
  const hero = text.indexOf('aria-labelledby="title"');
  if (hero >= 0) {
    const end = text.indexOf("</section>", hero);
    if (end >= 0) return end + "</section>".length;
  }
  return afterMainOpen(text);
}

/**
 * The published page with the block inserted: the end sections before its last `</main>`,
 * the first-screen sections after its headline card, and the banner at the top of `<main>`.
 */
export function insertLiveBlock(page: Uint8Array, block: LiveBlock): Uint8Array<ArrayBuffer> {
  let text = new TextDecoder().decode(page);
  const insert = (at: number, part: string) => {
    if (at >= 0 && part) text = `${text.slice(0, at)}${part}${text.slice(at)}`;
  };
  insert(text.lastIndexOf("</main>"), block.html);
  insert(afterHeadline(text), block.topHtml);
  insert(afterMainOpen(text), block.bannerHtml);
  return new TextEncoder().encode(text);
}

/**
 * The published Markdown page with the block's Markdown: the banner after the title line,
 * the first-screen sections before the first `## ` section, the rest after the page.
 */
export function appendLiveMarkdown(page: Uint8Array, block: LiveBlock): Uint8Array<ArrayBuffer> {
  let text = new TextDecoder().decode(page);
  if (block.topMarkdown) {
    const at = text.search(/^## /m);
    text = at < 0
      ? `${text.trimEnd()}\n\n${block.topMarkdown}\n`
      : `${text.slice(0, at)}${block.topMarkdown}\n\n${text.slice(at)}`;
  }
  if (block.bannerMarkdown) {
    const title = text.indexOf("\n");
    text = title < 0
      ? `${block.bannerMarkdown}\n\n${text}`
      : `${text.slice(0, title + 1)}\n${block.bannerMarkdown}\n${text.slice(title + 1)}`;
  }
  return new TextEncoder().encode(block.markdown ? `${text.trimEnd()}\n${block.markdown}` : text);
}

/** A page's CSP, widened by exactly what the block needs. */
export function liveCsp(csp: string, block: Pick<LiveBlock, "styles" | "formActions">): string {
  return csp.split("; ").map((directive) => {
    if (directive.startsWith("style-src ") && block.styles.length > 0) {
      return [directive, ...block.styles.map(cssHash)].join(" ");
    }
    if (directive === "form-action 'none'" && block.formActions.length > 0) {
      const origins = [...new Set(block.formActions.map((url) => new URL(url).origin))];
      return `form-action ${origins.join(" ")}`;
    }
    return directive;
  }).join("; ");
}

/** The footer sentence of a published page, in HTML (wrapped) and in Markdown. */
const IMMUTABLE_HTML =
  /Version (\d+) is immutable: its trust\.json, signature and this page never\s+change once published\./;
const IMMUTABLE_MARKDOWN =
  /Version (\d+) is immutable: its trust\.json, signature and this page never change once published\./;

/**
 * The latest page's footer says what the page is: the signed version, which never changes at
 * its own address, with live sections that are not part of it, current as of `asOf`.
 */
export function labelLatest(
  text: string,
  format: "html" | "md",
  options: { versionPage: string; asOf: string },
): string {
  const { versionPage, asOf } = options;
  if (format === "html") {
    return text.replace(
      IMMUTABLE_HTML,
      (_, version) =>
        html`This page is version ${version}, signed and immutable at
        <a href="${versionPage}">its own address</a>, with the live sections marked as such,
        which are not part of the signed version, as of
        <time datetime="${asOf}">${humanUtc(asOf)}</time>.`.value,
    );
  }
  return text.replace(
    IMMUTABLE_MARKDOWN,
    (_, version) =>
      `This page is version ${version}, signed and immutable at [its own address](${versionPage}), ` +
      `with live sections that are not part of the signed version, as of ${humanUtc(asOf)}.`,
  );
}

/**
 * When the live sections were last current: the organization's last public change, or the
 * version's publication when nothing changed since.
 */
async function liveAsOf(kv: Deno.Kv, project: Project, publication: Publication) {
  const changed = await kv.get<string>(changedAtKey(project.organizationId));
  const at = changed.value && changed.value > publication.publishedAt
    ? changed.value
    : publication.publishedAt;
  return at;
}

/** A composed latest page: its bytes, ETag and Content-Security-Policy. */
export interface LivePage {
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
  csp: string;
}

/**
 * The latest page (HTML or Markdown) with its live block: bytes, ETag and CSP. Composed on each
 * call: the render job stores the result (src/edge), which is what readers are answered.
 */
export async function latestPageWithLiveBlock(
  deps: LiveContext & { blobs: BlobStore; artifacts: ArtifactCache },
  format: "html" | "md",
): Promise<LivePage> {
  const { publication, project } = deps;
  const artifact = format === "html" ? publication.artifacts.html : publication.artifacts.markdown;
  const [published, block, asOf] = await Promise.all([
    deps.artifacts.bytes(deps.blobs, artifact),
    renderLiveBlock(deps),
    liveAsOf(deps.kv, project, publication),
  ]);
  const urls = publicUrls(deps.config, project.slug);
  const versionPage = format === "html"
    ? urls.versionPage(publication.version)
    : urls.versionMarkdown(publication.version);
  const composed = format === "html"
    ? insertLiveBlock(published, block)
    : appendLiveMarkdown(published, block);
  const text = labelLatest(new TextDecoder().decode(composed), format, { versionPage, asOf });
  return {
    bytes: new TextEncoder().encode(text),
    etag: `"${artifact.digest}.live-${block.tag}-${sha256HexSync(asOf).slice(0, 8)}"`,
    csp: liveCsp(publication.htmlCsp ?? trustPageCsp(), block),
  };
}
