/**
 * The buyer's first question, answered at the top of the latest trust page: which controls
 * fail, since which published version (and when it was published), and why (the evaluator's
 * reason), each linking to its row in the controls table. Placed with the banner, above the
 * vendor card and the headline, so it is on the first screen at any width. "Since" is the
 * oldest version of the current run of versions that published the control failing, looked up
 * in at most {@linkcode SINCE_VERSIONS} versions ("or earlier" past them).
 */
import type { PublishedTrustControl } from "../../domain/publish.ts";
import type { Publication } from "../../domain/publication.ts";
import { html } from "../../lib/html.ts";
import { utc } from "../../publish/render/_format.ts";
import { icon, time } from "../../publish/render/_page.ts";
import { escapeMarkdown, link } from "../../publish/render/markdown.ts";
import { publicUrls } from "../../publish/urls.ts";
import { listPublications } from "../../store/publications.ts";
import type { LiveSection } from "../live_sections.ts";

/** Most versions read back to find when a control started failing. */
export const SINCE_VERSIONS = 50;
/** Most failing controls listed; the rest are counted. */
const SHOWN = 5;

export const FAILING_STYLE = `
.failing{margin:0 0 1.25rem;padding:1rem 1.25rem;border:1px solid var(--border);
border-left:6px solid var(--st);border-radius:12px;background:var(--st-bg);color:var(--fg)}
.failing h2{display:flex;align-items:center;gap:.5rem;font-size:1.125rem;margin:0 0 .5rem;
color:var(--st)}
.failing h2 svg{width:1.25rem;height:1.25rem}
.failing ul{display:grid;gap:.5rem;margin:0;padding:0;list-style:none}
.failing li{overflow-wrap:anywhere}
.failing a{font-weight:650}
.failing .since,.failing .why{display:block;font-size:.875rem}
.failing time{display:inline}
`;

/** Where a control's row is on the page (the row's id). */
export function controlAnchor(key: string): string {
  return `control-${key}`;
}

/** Since which version each of `keys` has been published failing (oldest of the current run). */
function failingSince(
  versions: readonly Publication[],
  keys: readonly string[],
): Map<string, { version: number; publishedAt: string; orEarlier: boolean }> {
  const since = new Map<string, { version: number; publishedAt: string; orEarlier: boolean }>();
  for (const key of keys) {
    let oldest: Publication | null = null;
    let broken = false;
    for (const version of versions) {
      if (version.states[key] !== "fail") {
        broken = true;
        break;
      }
      oldest = version;
    }
    if (oldest) {
      since.set(key, {
        version: oldest.version,
        publishedAt: oldest.publishedAt,
        orEarlier: !broken && versions.length >= SINCE_VERSIONS && oldest.version > 1,
      });
    }
  }
  return since;
}

export const failingSection: LiveSection = {
  id: "failing",
  async render({ kv, config, project, publication, blobs, artifacts }) {
    const keys = Object.entries(publication.states).filter(([, s]) => s === "fail")
      .map(([key]) => key);
    if (keys.length === 0 || !blobs || !artifacts) return null;
    const bytes = await artifacts.bytes(blobs, publication.artifacts.trustJson);
    const profile = JSON.parse(new TextDecoder().decode(bytes)) as {
      controls: PublishedTrustControl[];
    };
    const failing = profile.controls.filter((c) => c.state === "fail");
    if (failing.length === 0) return null;
    const versions = await listPublications(kv, project.id, SINCE_VERSIONS);
    const since = failingSince(versions, failing.map((c) => c.key));
    const shown = failing.slice(0, SHOWN);
    const more = failing.length - shown.length;
    const title = failing.length === 1 ? "1 control fails" : `${failing.length} controls fail`;
    const page = publicUrls(config, project.slug).page;
    const sinceText = (key: string) => {
      const s = since.get(key);
      return s && { ...s, label: `since version ${s.version}${s.orEarlier ? " or earlier" : ""}` };
    };
    return {
      placement: "banner",
      html: html`
        <section class="failing s-fail" aria-labelledby="live-failing-title">
          <h2 id="live-failing-title">${icon("fail")}${title}</h2>
          <ul>${shown.map((c) => {
            const s = sinceText(c.key);
            return html`
              <li>
                <a href="#${controlAnchor(c.key)}">${c.name}</a>
                ${s
                  ? html`<span class="since">Failing ${s.label}, published ${
                    time(s.publishedAt)
                  }</span>`
                  : ""}
                <span class="why">Why: ${c.reason ??
                  "the reason is not recorded in this version"}</span>
              </li>
            `;
          })}</ul>
          ${more > 0
            ? html`<p><a href="#controls-title">${more} more failing controls</a></p>`
            : ""}
        </section>
      `,
      markdown: [
        `> **${title}**`,
        ">",
        ...shown.map((c) => {
          const s = sinceText(c.key);
          return `> - ${link(c.name, `${page}#${controlAnchor(c.key)}`)}${
            s ? `, failing ${s.label} (published ${utc(s.publishedAt)})` : ""
          }: ${escapeMarkdown(c.reason ?? "the reason is not recorded in this version")}`;
        }),
        ...(more > 0 ? [`> - and ${more} more failing controls`] : []),
      ].join("\n"),
      styles: [FAILING_STYLE],
    };
  },
};
