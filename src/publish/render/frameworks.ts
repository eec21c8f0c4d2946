/**
 * The framework view for people: for each framework, the criteria the latest version's
 * controls support, each with the controls, their state and when their evidence was observed
 * ("ISO/IEC 27001 A.8.8 — Vulnerability scan: pass, evidence of 14 Mar 2026, 09:30 UTC"). HTML under the
 * trust pages' CSP (FRAMEWORKS_STYLE allowed by hash) and Markdown. Evidence times are
 * absolute, so the page stays true while it is stored and served.
 */
import type { FrameworkControl, PublicFrameworkView } from "../../domain/frameworks.ts";
import { Html as RawHtml, html } from "../../lib/html.ts";
import { humanUtc } from "./_format.ts";
import { page, pill, time, topBar } from "./_page.ts";
import { trustPageCsp } from "./_style.ts";
import { escapeMarkdown, link } from "./markdown.ts";

export const FRAMEWORKS_STYLE = `
.fw{display:grid;gap:.75rem;margin:0;padding:0;list-style:none}
.fw>li{padding:.85rem 1rem}
.crit{margin:0;font-weight:650}
.crit code{margin-right:.4rem}
.fwc{margin:.4rem 0 0;padding:0;list-style:none;display:grid;gap:.35rem}
.fwc li{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem .6rem}
.age{color:var(--muted);font-size:.875rem}
`;

/** The CSP of the framework page. */
export function frameworksCsp(): string {
  return trustPageCsp({ styles: [FRAMEWORKS_STYLE] });
}

/**
 * "evidence of 27 Nov 2026 08:00 UTC" or "no evidence": an absolute time, because the page is
 * rendered once and kept (src/edge), where "2 hours old" would grow wrong while it is served.
 */
export function evidenceAge(control: Pick<FrameworkControl, "evidenceObservedAt">, _now: Date) {
  if (!control.evidenceObservedAt) return "no evidence";
  return `evidence of ${humanUtc(control.evidenceObservedAt)}`;
}

/** The criteria of one framework as the coverage line counts them: each with its controls. */
export type CoverageCriteria = ReadonlyArray<{ controls: ReadonlyArray<{ state: string }> }>;

const not = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * What a framework's mapping says, without reading as a share of compliance: how many
 * criteria the controls are mapped to, for how many every mapped control passes, and why the
 * others do not (a control that fails or is out of date, or one that has not reported), e.g.
 * "SOC 2: 5 criteria mapped; every mapped control passes for 1; 4 wait on a control not
 * reported yet".
 */
export function coverageLine(name: string, criteria: CoverageCriteria): string {
  const mapped = criteria.length;
  const passing = criteria.filter((x) => x.controls.every((c) => c.state === "pass")).length;
  const failing =
    criteria.filter((x) =>
      x.controls.some((c) => c.state === "fail" || c.state === "stale" || c.state === "degraded")
    ).length;
  const waiting = mapped - passing - failing;
  const parts = passing === mapped ? ["every mapped control passes"] : [
    passing > 0 ? `every mapped control passes for ${passing}` : "",
    failing > 0
      ? `${not(failing, "has a control that fails", "have a control that fails")} or is out of date`
      : "",
    waiting > 0 ? `${not(waiting, "waits", "wait")} on a control not reported yet` : "",
  ].filter(Boolean);
  return `${name}: ${not(mapped, "criterion", "criteria")} mapped; ${parts.join("; ")}`;
}

export interface FrameworkLinks {
  page: string;
  json: string;
  markdown: string;
}

function controlItem(control: FrameworkControl, now: Date) {
  return html`<li><span>${control.name}</span>${pill(control.state)}<span class="age">${
    evidenceAge(control, now)
  }</span></li>`;
}

/** The view as a complete HTML document. */
export function renderFrameworksHtml(
  view: PublicFrameworkView,
  options: { now: Date; links: FrameworkLinks },
): string {
  const { now, links } = options;
  const name = view.project.name;
  const mapped = view.frameworks.filter((f) => f.criteria.length > 0);
  const sections = mapped.map((f) =>
    html`
      <section aria-labelledby="fw-${f.id}">
        <h2 id="fw-${f.id}">${f.name}</h2>
        <p class="note">${coverageLine(f.edition, f.criteria)}.</p>
        <ul class="fw">${f.criteria.map((x) =>
          html`
            <li class="card">
              <p class="crit"><code>${x.id}</code>${x.title}</p>
              <ul class="fwc">${x.controls.map((c) => controlItem(c, now))}</ul>
            </li>
          `
        )}</ul>
      </section>
    `
  );
  const none = mapped.length === 0
    ? html`<p class="card hero">No published control of ${name} is mapped to a framework.</p>`
    : "";
  const body = html`
    ${topBar("Trust page")}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Framework mappings</p>
          <h1 id="title">${name}: framework mappings</h1>
          <p class="lede">Which criteria of SOC 2, ISO/IEC 27001, NIST SSDF and SLSA the controls of version ${String(
            view.version,
          )} support, published ${time(view.publishedAt)}. ${view.notice}</p>
          <p><a href="${links.page}">Back to the trust page</a> · <a href="${links
            .markdown}">Markdown</a> · <a href="${links.json}">JSON</a></p>
        </div>
      </section>
      ${none}${sections}
    </main>
  `;
  const head = html`<meta name="description" content="${`Framework mappings of ${name}`}">`;
  return page(
    `${name}: framework mappings`,
    html`${head}<style>${new RawHtml(FRAMEWORKS_STYLE)}</style>`,
    body,
  );
}

/** One line per criterion and control: "ISO/IEC 27001 A.8.8 (…) — Vulnerability scan: pass, …". */
export function frameworkLines(view: PublicFrameworkView, now: Date): string[] {
  return view.frameworks.flatMap((f) =>
    f.criteria.flatMap((x) =>
      x.controls.map((c) =>
        `- ${escapeMarkdown(`${f.name} ${x.id}`)} (${escapeMarkdown(x.title)}) — ${
          escapeMarkdown(c.name)
        }: ${c.state}, ${evidenceAge(c, now)}`
      )
    )
  );
}

/** The view as Markdown. */
export function renderFrameworksMarkdown(
  view: PublicFrameworkView,
  options: { now: Date; links: FrameworkLinks },
): string {
  const { now, links } = options;
  const name = escapeMarkdown(view.project.name);
  const parts = [
    `# ${name}: framework mappings`,
    "",
    `Version ${view.version}, published ${humanUtc(view.publishedAt)}. ${
      escapeMarkdown(view.notice)
    } ${link("Trust page", links.page)} · ${link("JSON", links.json)}`,
    "",
  ];
  const mapped = view.frameworks.filter((f) => f.criteria.length > 0);
  if (mapped.length === 0) parts.push(`No published control of ${name} is mapped to a framework.`);
  for (const f of mapped) {
    parts.push(
      `## ${escapeMarkdown(f.name)}`,
      "",
      `${escapeMarkdown(coverageLine(f.edition, f.criteria))}.`,
      "",
      ...frameworkLines({ ...view, frameworks: [f] }, now),
      "",
    );
  }
  return parts.join("\n").trimEnd() + "\n";
}
