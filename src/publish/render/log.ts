/**
 * The publication log's description for people: an HTML page for browsers and the same
 * content as Markdown for agents (the JSON stays the default for machines). Pure.
 */
import { html } from "../../lib/html.ts";
import { companion } from "./_links.ts";
import { page, topBar } from "./_page.ts";
import { escapeMarkdown, link } from "./markdown.ts";

/** What GET /log describes, and where the page points (every URL used verbatim). */
export interface LogPageInput {
  info: {
    origin: string;
    verifierKey: string;
    treeSize: number;
    hashing: string;
    entryFormat: string;
  };
  links: {
    json: string;
    markdown: string;
    checkpoint: string;
    verifyKit: string;
    /** `…/log/entries/`, to which an index is appended. */
    entries: string;
    consistency: string;
  };
}

const LEDE = "Every publication of every project on this service is appended to one " +
  "append-only Merkle tree (RFC 6962). A signed checkpoint states the tree's size and root; " +
  "inclusion proofs put a version's trust.json digest in it, and consistency proofs show a " +
  "later checkpoint extends an earlier one, so history cannot be rewritten or dropped unseen.";

function verifyCommand(verifyKit: string): string {
  return `deno run --allow-net ${verifyKit} <trust page URL or slug>`;
}

/** The log's page as a complete HTML document, under the trust pages' stylesheet and CSP. */
export function renderLogHtml(input: LogPageInput): string {
  const { info, links } = input;
  const nav = html`
    <nav aria-label="Page">
      <ul>
        <li>${companion({
          href: links.json,
          label: "JSON",
          about: "",
          download: "log.json",
          type: "application/json",
        })}</li>
        <li><a href="${links.markdown}">Markdown</a></li>
      </ul>
    </nav>
  `;
  const body = html`
    ${topBar("Publication log", nav)}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Transparency</p>
          <h1 id="title">Publication log</h1>
          <p class="lede">${LEDE}</p>
          <dl class="facts">
            <div>
              <dt>Entries</dt>
              <dd>${info.treeSize}</dd>
            </div>
            <div>
              <dt>Hashing</dt>
              <dd>${info.hashing}</dd>
            </div>
            <div>
              <dt>Origin</dt>
              <dd><code>${info.origin}</code></dd>
            </div>
          </dl>
        </div>
      </section>
      <section class="card" aria-labelledby="key-title">
        <h2 id="key-title">Checkpoint verifier key</h2>
        <p class="digest"><code>${info.verifierKey}</code></p>
        <p class="note">
          A C2SP signed-note key. Pin it (or a saved checkpoint) to check the log without trusting
          this server.
        </p>
        <p><a href="${links.checkpoint}">Latest signed checkpoint</a></p>
      </section>
      <section class="card" aria-labelledby="verify-title">
        <h2 id="verify-title">Check it yourself</h2>
        <p>The verifier kit checks every version's signature, hash chain and log inclusion:</p>
        <p class="digest"><code>${verifyCommand(links.verifyKit)}</code></p>
        <p>
          Entries are at <code>${links.entries}{index}</code> (with <code>/inclusion</code> for a
          proof), consistency proofs at <code>${links.consistency}?from=&amp;to=</code>.
        </p>
      </section>
      <section class="card" aria-labelledby="entry-title">
        <h2 id="entry-title">Entry format</h2>
        <p>${info.entryFormat}</p>
      </section>
    </main>
  `;
  const head = html`
    <meta name="description" content="The publication log of this trust profile service">
    <link rel="alternate" type="application/json" href="${links.json}" title="Log (JSON)">
    <link rel="alternate" type="text/markdown" href="${links.markdown}" title="Log (Markdown)">
  `;
  return page("Publication log", head, body);
}

/** The same content as Markdown. */
export function renderLogMarkdown(input: LogPageInput): string {
  const { info, links } = input;
  return [
    "# Publication log",
    "",
    LEDE,
    "",
    `- Entries: ${info.treeSize}`,
    `- Hashing: ${info.hashing}`,
    `- Origin: \`${info.origin}\``,
    `- Checkpoint verifier key: \`${info.verifierKey}\``,
    `- ${link("Latest signed checkpoint", links.checkpoint)}`,
    `- ${link("JSON", links.json)}`,
    "",
    "## Check it yourself",
    "",
    "```sh",
    verifyCommand(links.verifyKit),
    "```",
    "",
    `Entries: \`${links.entries}{index}\` (and \`/inclusion\`); consistency proofs: ` +
    `\`${links.consistency}?from=&to=\`.`,
    "",
    "## Entry format",
    "",
    escapeMarkdown(info.entryFormat),
    "",
  ].join("\n");
}
