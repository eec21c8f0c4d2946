/**
 * The Markdown renderers, loaded with markdown-it on first use: vendors' Markdown (update
 * bodies, answers) renders when a page shows it, the service's own guides when one is asked
 * for as HTML, so a start loads none of it. Callers await `loadMarkdown()` once and then call
 * the functions, which stay synchronous.
 */
import type { markdownToHtml } from "./markdown.ts";
import type { markdownBlocks } from "./markdown_blocks.ts";
import type { markdownExcerpt, renderSafeMarkdown } from "./safe_markdown.ts";
import type { neutralizeMarkdown } from "./safe_markdown_source.ts";

export interface Markdown {
  /** Vendors' Markdown as safe HTML (src/lib/safe_markdown.ts). */
  renderSafeMarkdown: typeof renderSafeMarkdown;
  /** Vendors' Markdown rewritten as safe Markdown (src/lib/safe_markdown_source.ts). */
  neutralizeMarkdown: typeof neutralizeMarkdown;
  /** The text of vendors' Markdown on one line (src/lib/safe_markdown.ts). */
  markdownExcerpt: typeof markdownExcerpt;
  /** The service's own documents as HTML (src/lib/markdown.ts). */
  markdownToHtml: typeof markdownToHtml;
  /** Markdown as blocks of text (src/lib/markdown_blocks.ts). */
  markdownBlocks: typeof markdownBlocks;
}

let loading: Promise<Markdown> | undefined;

/** The Markdown functions; the first call loads them, later calls share that load. */
export function loadMarkdown(): Promise<Markdown> {
  loading ??= Promise.all([
    import("./safe_markdown.ts"),
    import("./safe_markdown_source.ts"),
    import("./markdown.ts"),
    import("./markdown_blocks.ts"),
  ]).then(([safe, source, docs, blocks]) => ({
    renderSafeMarkdown: safe.renderSafeMarkdown,
    neutralizeMarkdown: source.neutralizeMarkdown,
    markdownExcerpt: safe.markdownExcerpt,
    markdownToHtml: docs.markdownToHtml,
    markdownBlocks: blocks.markdownBlocks,
  }));
  // A failed load is tried again on the next call rather than remembered.
  loading.catch(() => loading = undefined);
  return loading;
}
