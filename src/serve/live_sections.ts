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
import { sha256HexSync } from "../lib/hash.ts";
import { Html, html } from "../lib/html.ts";
import { cssHash, trustPageCsp } from "../publish/render/_style.ts";
import type { ArtifactCache } from "./artifacts.ts";
import type { LivePage, LivePageCache } from "./live_pages.ts";
import { answersSection } from "./live/answers.ts";
import { documentsSection } from "./live/documents.ts";
import { frameworksSection } from "./live/frameworks.ts";
import { subscribeSection } from "./live/subscribe.ts";
import { subprocessorsSection } from "./live/subprocessors.ts";
import { updatesSection } from "./live/updates.ts";

/** What a section is rendered from. */
export interface LiveContext {
  kv: Deno.Kv;
  config: Config;
  project: Project;
  publication: Publication;
}

/** One section's part of the block; null when it has nothing to show. */
export interface LiveSectionContent {
  html: Html;
  markdown: string;
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

/** The live sections, in page order. */
export const LIVE_SECTIONS: readonly LiveSection[] = [
  updatesSection,
  frameworksSection,
  subprocessorsSection,
  documentsSection,
  answersSection,
  subscribeSection,
];

/** The rendered block, ready to insert, with what it needs from the CSP. */
export interface LiveBlock {
  html: string;
  markdown: string;
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
  // Stylesheets are the service's own constants, hashed into the CSP: inserted as they are.
  const styles = [...new Set(parts.flatMap((p) => p.styles ?? []))];
  const formActions = [...new Set(parts.flatMap((p) => p.formActions ?? []))];
  const block = parts.length === 0 ? "" : html`
    <div class="live" data-live="true">
      ${parts.map((p) => p.html)}
    </div>
    ${styles.map((css) => html`<style>${new Html(css)}</style>`)}
  `.value;
  const markdown = parts.map((p) => p.markdown.trimEnd()).join("\n\n");
  return {
    html: block,
    markdown: markdown ? `\n${markdown}\n` : "",
    styles,
    formActions,
    tag: sha256HexSync(`${block}\u0000${markdown}`).slice(0, 16),
  };
}

/** The published page with the block inserted before its last `</main>`. */
export function insertLiveBlock(page: Uint8Array, block: LiveBlock): Uint8Array<ArrayBuffer> {
  const text = new TextDecoder().decode(page);
  const at = text.lastIndexOf("</main>");
  const joined = at < 0 || !block.html
    ? text
    : `${text.slice(0, at)}${block.html}${text.slice(at)}`;
  return new TextEncoder().encode(joined);
}

/** The published Markdown page with the block's Markdown after it. */
export function appendLiveMarkdown(page: Uint8Array, block: LiveBlock): Uint8Array<ArrayBuffer> {
  const text = new TextDecoder().decode(page);
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

/** The latest page (HTML or Markdown) with its live block: bytes, ETag and CSP. */
export function latestPageWithLiveBlock(
  deps: LiveContext & { blobs: BlobStore; artifacts: ArtifactCache; livePages: LivePageCache },
  format: "html" | "md",
): Promise<LivePage> {
  const { publication } = deps;
  const artifact = format === "html" ? publication.artifacts.html : publication.artifacts.markdown;
  return deps.livePages.get(`${deps.project.id}/${artifact.digest}`, async () => {
    const [published, block] = await Promise.all([
      deps.artifacts.bytes(deps.blobs, artifact),
      renderLiveBlock(deps),
    ]);
    return {
      bytes: format === "html"
        ? insertLiveBlock(published, block)
        : appendLiveMarkdown(published, block),
      etag: `"${artifact.digest}.live-${block.tag}"`,
      csp: liveCsp(publication.htmlCsp ?? trustPageCsp(), block),
    };
  });
}
