/**
 * The vendor's answers for people: the searchable answers page (a GET form, no script) in
 * HTML and Markdown, one answer as an article, and the restricted answers an access link
 * opens. Questions, categories and ids are escaped; answers arrive rendered by the safe
 * Markdown renderer (src/lib/safe_markdown.ts), as update bodies do.
 */
import type { PublicAnswer, PublicAnswers, PublicCitation } from "../../domain/answers.ts";
import { type Html, Html as RawHtml, html } from "../../lib/html.ts";
import { page, pill, topBar } from "./_page.ts";
import { trustPageCsp } from "./_style.ts";
import { escapeMarkdown, link } from "./markdown.ts";

export const ANSWERS_STYLE = `
.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end;margin:1rem 0 0}
.search label{display:block;font-weight:600;width:100%}
.search input{flex:1 1 12rem;min-width:0;padding:.5rem .625rem;font:inherit;color:var(--fg);
background:var(--bg);border:1px solid var(--muted);border-radius:8px}
.search button{font:inherit;font-weight:600;padding:.5rem 1.1rem;border:0;border-radius:8px;
background:var(--accent);color:var(--on-accent);cursor:pointer}
.answers{display:grid;gap:.75rem;margin:0 0 1.5rem;padding:0;list-style:none}
.ans{padding:1rem 1.25rem}
.ans h3{font-size:1.0625rem;margin:0}
.ans .eyebrow{margin:0 0 .25rem}
.refs{margin:.35rem 0 0;color:var(--muted);font-size:.875rem}
.abody{margin-top:.5rem}
.abody>:first-child{margin-top:0}
.abody>:last-child{margin-bottom:0}
.abody pre{overflow-x:auto;padding:.75rem;border:1px solid var(--border);border-radius:8px}
.cites{margin:.5rem 0 0;padding-left:1.1rem;font-size:.875rem}
.cites li{margin:.15rem 0}
.img-alt{color:var(--muted)}
`;

/** The CSP of the answers page: its stylesheet, and its search form's own origin. */
export function answersCsp(formOrigin: string): string {
  return trustPageCsp({ styles: [ANSWERS_STYLE] })
    .replace("form-action 'none'", `form-action ${formOrigin}`);
}

const QUESTIONNAIRE_LABELS: Record<string, string> = {
  "caiq-v4": "CAIQ v4",
  sig: "SIG",
  other: "Other",
};

/** "CAIQ v4 IAM-02.1 · SIG A.1". */
export function refsLabel(answer: Pick<PublicAnswer, "questionnaireRefs">): string {
  return answer.questionnaireRefs
    .map((r) => `${QUESTIONNAIRE_LABELS[r.questionnaire] ?? r.questionnaire} ${r.id}`).join(" · ");
}

function citationItem(citation: PublicCitation): Html {
  const name = citation.kind === "control"
    ? `${citation.project?.name ?? ""}: ${citation.title}`
    : citation.kind === "document"
    ? `Document: ${citation.title}`
    : `Certification: ${citation.title ?? citation.id}`;
  const label = citation.url ? html`<a href="${citation.url}">${name}</a>` : html`${name}`;
  return html`<li>${label}${
    citation.state
      ? html`
        ${pill(citation.state)}
      `
      : ""
  }</li>`;
}

/** One answer as an article under a heading of `level`; restricted ones say how to ask. */
export function answerArticle(
  answer: PublicAnswer,
  level: 2 | 3,
  options: { category?: boolean } = {},
): Html {
  const id = `answer-${answer.id}`;
  const heading = level === 2
    ? html`<h2 id="${id}">${answer.question}</h2>`
    : html`<h3 id="${id}">${answer.question}</h3>`;
  const refs = refsLabel(answer);
  const body = answer.answerHtml !== null
    ? html`<div class="abody">${new RawHtml(answer.answerHtml)}</div>`
    : answer.requestAccessUrl
    ? html`
      <p
        class="abody">Restricted answer. <a href="${answer
          .requestAccessUrl}">Request access<span class="vh"> to the answer: ${answer
          .question}</span></a></p>
    `
    : html`<p class="abody">Restricted answer, available on request (requests are not open yet).</p>`;
  const cites = answer.citations?.length
    ? html`
      <p class="refs">Sources</p>
      <ul class="cites" aria-label="${`Sources of the answer: ${answer.question}`}">${answer
        .citations.map(citationItem)}</ul>
    `
    : "";
  return html`
    <article class="card ans" aria-labelledby="${id}">
      ${options.category === false ? "" : html`<p class="eyebrow">${answer.category}</p>`}
      ${heading}
      ${refs ? html`<p class="refs">${refs}</p>` : ""}
      ${body}
      ${cites}
    </article>
  `;
}

/** The search form; `value` is the current query. */
export function searchForm(action: string, value: string, idPrefix: string): Html {
  return html`
    <form class="search" role="search" method="get" action="${action}">
      <label for="${idPrefix}-q">Search the answers</label>
      <input id="${idPrefix}-q" name="q" type="search" value="${value}" maxlength="200"
        autocomplete="off">
      <button type="submit">Search</button>
    </form>
  `;
}

export interface AnswersLinks {
  center: string;
  json: string;
  markdown: string;
  /** The next page in this format, or null on the last one. */
  next: string | null;
  /** The first page in this format, or null when this is it. */
  first: string | null;
}

function pager(links: AnswersLinks): Html | string {
  if (!links.next && !links.first) return "";
  const first = links.first ? html`<li><a href="${links.first}">First answers</a></li>` : "";
  const next = links.next ? html`<li><a href="${links.next}">More answers</a></li>` : "";
  return html`
    <nav aria-label="Pages of answers">
      <ul class="pager">${first}${next}</ul>
    </nav>
  `;
}

/** Answers grouped by category, in the order given. */
function byCategory(answers: readonly PublicAnswer[]): [string, PublicAnswer[]][] {
  const groups = new Map<string, PublicAnswer[]>();
  for (const answer of answers) {
    groups.set(answer.category, [...(groups.get(answer.category) ?? []), answer]);
  }
  return [...groups];
}

/** The answers page as a complete HTML document. */
export function renderAnswersHtml(list: PublicAnswers, links: AnswersLinks): string {
  const name = list.organization.name;
  const query = list.query ?? "";
  const found = list.query
    ? html`<p>${
      list.matched === 0
        ? `No answer matches “${list.query}”.`
        : `${list.matched} of ${list.total} answers match “${list.query}”, best first.`
    } <a href="${list.url}">All answers</a></p>`
    : "";
  const results = list.query
    ? html`
      <section aria-labelledby="results-title">
        <h2 id="results-title">Results</h2>
        <ul class="answers">${list.answers.map((a) => html`<li>${answerArticle(a, 3)}</li>`)}</ul>
      </section>
    `
    : byCategory(list.answers).map(([category, answers], i) =>
      html`
        <section aria-labelledby="category-${String(i)}">
          <h2 id="category-${String(i)}">${category}</h2>
          <ul class="answers">${answers.map((a) =>
            html`<li>${answerArticle(a, 3, { category: false })}</li>`
          )}</ul>
        </section>
      `
    );
  const empty = list.total === 0
    ? html`<p class="card hero">${name} has published no answers yet.</p>`
    : "";
  const body = html`
    ${topBar("Trust center")}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Security answers</p>
          <h1 id="title">${name}: security answers</h1>
          <p class="lede">${name}'s answers to common security questionnaire questions, with the controls and documents they cite. Restricted answers open after an approved access request.</p>
          <p>Download for your questionnaire: <a href="${list.exports
            .csv}">CSV</a> · <a href="${list.exports.xlsx}">Excel (XLSX)</a> · <a href="${links
            .markdown}">Markdown</a> · <a href="${links.json}">JSON</a> · <a href="${links
            .center}">Trust center</a></p>
          ${searchForm(list.url, query, "answers")}
        </div>
      </section>
      ${found}${empty}${results} ${pager(links)}
    </main>
  `;
  const head = html`<meta name="description" content="${`Security answers of ${name}`}">`;
  return page(
    list.query ? `${name}: answers matching “${list.query}”` : `${name}: security answers`,
    html`${head}<style>${new RawHtml(ANSWERS_STYLE)}</style>`,
    body,
  );
}

/** The answer quoted, so its headings and lists stay inside it in a Markdown page. */
function quoted(markdown: string): string {
  return markdown.replace(/\r\n?/g, "\n").trimEnd().split("\n").map((l) => `> ${l}`.trimEnd())
    .join("\n");
}

function citationMarkdown(citation: PublicCitation): string {
  const name = citation.kind === "control"
    ? `${citation.project?.name ?? ""}: ${citation.title} (${citation.state})`
    : citation.kind === "document"
    ? `Document: ${citation.title}`
    : `Certification: ${citation.title ?? citation.id}`;
  return citation.url ? link(name, citation.url) : escapeMarkdown(name);
}

/** One answer in Markdown. */
export function answerMarkdown(answer: PublicAnswer, level: 2 | 3): string {
  const refs = refsLabel(answer);
  const facts = [escapeMarkdown(answer.category), ...(refs ? [escapeMarkdown(refs)] : [])];
  const body = answer.answer !== null
    ? quoted(answer.answer)
    : answer.requestAccessUrl
    ? `Restricted answer: ${link("request access", answer.requestAccessUrl)}.`
    : "Restricted answer, available on request (requests are not open yet).";
  const cites = answer.citations?.length
    ? ["", `Sources: ${answer.citations.map(citationMarkdown).join("; ")}`]
    : [];
  return [
    `${"#".repeat(level)} ${escapeMarkdown(answer.question)}`,
    "",
    facts.join(" · "),
    "",
    body,
    ...cites,
  ].join("\n");
}

/** The answers page as Markdown. */
export function renderAnswersMarkdown(list: PublicAnswers, links: AnswersLinks): string {
  const name = escapeMarkdown(list.organization.name);
  const intro = list.query
    ? `${list.matched} of ${list.total} answers match “${escapeMarkdown(list.query)}”, best first.`
    : `${list.total} answers, by category.`;
  const shown = list.answers.length < list.matched
    ? ` This page shows ${list.answers.length} of them${
      links.next ? `; ${link("more answers", links.next)}` : ""
    }.`
    : "";
  const parts = [
    `# ${name}: security answers`,
    "",
    `${intro}${shown} Downloads: ${link("CSV", list.exports.csv)} · ${
      link("XLSX", list.exports.xlsx)
    } · ${link("JSON", links.json)}. Search: add \`?q=words\` to ${list.url}.md.`,
    "",
  ];
  if (list.query) {
    for (const answer of list.answers) parts.push(answerMarkdown(answer, 2), "");
  } else {
    for (const [category, answers] of byCategory(list.answers)) {
      parts.push(`## ${escapeMarkdown(category)}`, "");
      for (const answer of answers) parts.push(answerMarkdown(answer, 3), "");
    }
  }
  if (links.next) parts.push(link("More answers", links.next), "");
  return parts.join("\n").trimEnd() + "\n";
}

/** The restricted answers on an access link's page (the document pages' stylesheet only). */
export function restrictedAnswersSection(answers: readonly PublicAnswer[]): Html {
  const items = answers.length === 0
    ? html`<p class="card hero">There are no restricted answers now.</p>`
    : html`<ul class="card docs">${
      answers.map((a) =>
        html`<li><strong>${a.question}</strong><p class="kind">${a.category}${
          refsLabel(a) ? ` · ${refsLabel(a)}` : ""
        }</p><div>${new RawHtml(a.answerHtml ?? "")}</div>${
          a.citations?.length ? html`<ul>${a.citations.map(citationItem)}</ul>` : ""
        }</li>`
      )
    }</ul>`;
  return html`
    <section aria-labelledby="answers-title">
      <h2 id="answers-title">Restricted answers</h2>
      ${items}
    </section>
  `;
}
