/**
 * The trust page and organization trust center as Markdown, for agents and terminals: the
 * same facts as the HTML page, with every vendor string escaped so it reads as literal text
 * and can neither inject Markdown structure nor raw HTML.
 */
import type {
  PublishedTrustControl,
  PublishedTrustProfile,
  PublishedVersionChange,
} from "../../domain/publish.ts";
import {
  type Anchor,
  type ChangeList,
  countsLine,
  firstVersion,
  headline,
  NO_REASON,
  percent,
  publicationAnchor,
  relative,
  STATE_MEANING,
  utc,
} from "./_format.ts";
import type { TrustSignalDetection } from "../../domain/collector.ts";
import { groupControls } from "./_groups.ts";
import { shortCommit, signalLines } from "./_signals.ts";
import type { TrustPageLinks, TrustPageOptions } from "./html.ts";
import { vendorMarkdown } from "./vendor.ts";
import { exportItems, verifyCommand } from "./_links.ts";

const MARKDOWN_SIGNIFICANT = /[\\`*_{}[\]()#+!|~]/g;
const HTML_SIGNIFICANT: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
};

/**
 * Escapes vendor text for any inline Markdown position, table cells included: HTML
 * specials become entities (so `<img …>` is text, never a tag), Markdown punctuation gets
 * a backslash (no emphasis, link, code, heading or cell break), and line breaks become
 * spaces because a newline would end a table row or start a block.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\r\n]+/g, " ")
    .replace(MARKDOWN_SIGNIFICANT, (c) => `\\${c}`)
    .replace(/[&<>]/g, (c) => HTML_SIGNIFICANT[c]);
}

/** A control key as a code span when it is plainly safe there, otherwise escaped text. */
function key(text: string): string {
  return /^[A-Za-z0-9._:-]+$/.test(text) ? `\`${text}\`` : escapeMarkdown(text);
}

/** A link destination in the `<…>` form, which tolerates parentheses in the URL. */
export function link(label: string, url: string): string {
  const destination = url.replace(/[\s<>\\]/g, (c) => encodeURIComponent(c));
  return `[${escapeMarkdown(label)}](<${destination}>)`;
}

function changeLine(change: PublishedVersionChange): string {
  const from = change.from === null ? "new" : change.from;
  const reason = change.reason ? escapeMarkdown(change.reason) : NO_REASON;
  return `- **${escapeMarkdown(change.name)}** (${
    key(change.key)
  }): ${from} → ${change.to}. ${reason}`;
}

/** The change list of one version as Markdown lines (before → after and the reason). */
export function changeListMarkdown(changes: ChangeList): string[] {
  if (changes.previousVersion === null) return [firstVersion(changes.items.length)];
  if (changes.items.length === 0) {
    return [`No control changed state since version ${changes.previousVersion}.`];
  }
  return changes.items.map(changeLine);
}

function changesSection(changes: ChangeList | undefined): string[] {
  if (!changes) return [];
  const title = changes.previousVersion === null
    ? "Changes since the previous version"
    : `Changes since version ${changes.previousVersion}`;
  return [`## ${title}`, "", ...changeListMarkdown(changes), ""];
}

function when(value: string | null, anchor: Anchor, missing: string): string {
  return value === null ? missing : `${utc(value)} (${relative(value, anchor)})`;
}

export function row(cells: string[]): string {
  return `| ${cells.join(" | ")} |`;
}

function evidenceCell(control: PublishedTrustControl, anchor: Anchor): string {
  const observedAt = control.evidence?.observedAt ?? control.latestEvidenceAt;
  const at = when(observedAt, anchor, "no evidence yet");
  const digest = control.evidence?.digest;
  return digest ? `${at}, \`${digest}\`` : at;
}

/**
 * The page's first line, the HTML headline's words: "**Overall state: fail.** 2 of 3
 * reported controls pass · 4 not reported." when the page leads with the overall state, else
 * the headline itself ("**Not reported: SBOM (required).** …").
 */
function headlineMarkdown(profile: PublishedTrustProfile): string {
  const lead = headline(profile.summary, profile.controls);
  return lead.label === "Overall state"
    ? `**Overall state: ${profile.summary.overallState}.** ${lead.detail}.`
    : `**${escapeMarkdown(lead.title)}.** ${lead.detail}.`;
}

function controlRow(control: PublishedTrustControl, anchor: Anchor): string {
  return row([
    escapeMarkdown(control.name) + (control.required === true ? " (required)" : ""),
    key(control.key),
    escapeMarkdown(control.description ?? ""),
    control.state,
    percent(control.confidence),
    escapeMarkdown(control.reason ?? "not recorded in this version"),
    evidenceCell(control, anchor),
    when(
      control.freshUntil,
      anchor,
      control.latestEvidenceAt === null ? "awaiting evidence" : "no freshness window",
    ),
    when(control.nextCheckAt, anchor, "when new evidence arrives"),
  ]);
}

const CONTROL_HEADER = [
  row([
    "Control",
    "Key",
    "What this checks",
    "State",
    "Confidence",
    "Why",
    "Evidence",
    "Fresh until",
    "Next check",
  ]),
  "|---|---|---|---|---:|---|---|---|---|",
];

function controlsSection(profile: PublishedTrustProfile): string[] {
  if (profile.controls.length === 0) {
    return ["No control is enabled for this project yet, so its overall state is unknown."];
  }
  const anchor = publicationAnchor(profile.publishedAt);
  const groups = groupControls(profile.controls).flatMap((group) => [
    "",
    `### ${group.label}`,
    "",
    `${group.about}.`,
    "",
    ...CONTROL_HEADER,
    ...group.controls.map((c) => controlRow(c, anchor)),
  ]);
  return [
    "Grouped by what they cover. Times are UTC; offsets are measured from the publication " +
    "time. Evidence is the observation time and the sha256 digest of the payload the state " +
    "was decided from.",
    ...groups,
  ];
}

function signalsSection(signals: TrustSignalDetection | null | undefined): string[] {
  if (!signals) return [];
  return [
    "## Signals",
    "",
    `As detected on ${utc(signals.detectedAt)} from commit \`${
      shortCommit(signals.commitSha).replace(/`/g, "")
    }\` of the vendor's repository, and reported by its collector; not verified by this service.`,
    "",
    ...signalLines(signals).map((line) => `- ${line.label}: ${escapeMarkdown(line.found)}`),
    "",
  ];
}

/**
 * Renders a published trust profile as Markdown: a title with the project name, the
 * overall state and summary counts, version and publication time, with `options.changes`
 * the controls that changed since the previous version, the controls under their buyer
 * categories (name, key, what it checks, state, confidence, the evaluator's reason, the
 * evidence's observation time and digest, freshness and next check, each time in UTC with
 * its offset from the publication), the repository signals at publication when given, and
 * links to trust.json, its signature, the versions, the Atom feed, the evaluation rules and
 * the badge. Pure.
 */
export function renderTrustPageMarkdown(
  profile: PublishedTrustProfile,
  links: TrustPageLinks,
  options: Pick<TrustPageOptions, "signals" | "changes"> = {},
): string {
  const { summary } = profile;
  const states = [
    ["pass", summary.passCount],
    ["fail", summary.failCount],
    ["degraded", summary.degradedCount],
    ["stale", summary.staleCount],
    ["unknown", summary.unknownCount],
  ] as const;
  return [
    `# ${escapeMarkdown(profile.project.name)}: trust profile`,
    "",
    headlineMarkdown(profile),
    "",
    `- Version: ${profile.version}`,
    `- Published: ${utc(profile.publishedAt)}`,
    `- Controls: ${summary.totalControls} (${countsLine(summary)})`,
    "",
    ...vendorMarkdown(profile.vendor, { escape: escapeMarkdown, link }),
    "## Summary",
    "",
    "The overall state is the worst state of any control.",
    "",
    "| State | Controls | Meaning |",
    "|---|---:|---|",
    ...states.map(([state, n]) => row([state, String(n), STATE_MEANING[state]])),
    "",
    ...changesSection(options.changes),
    "## Controls",
    "",
    ...controlsSection(profile),
    "",
    ...signalsSection(options.signals),
    "## Verify this profile",
    "",
    `- ${
      link("trust.json", links.trustJson)
    }: the machine-readable profile, the exact bytes that are signed`,
    `- ${
      link("Signature (JWS)", links.signature)
    }: compact JWS (EdDSA) over trust.json, chained to the previous version`,
    `- ${
      link("Version history", links.versions)
    }: every version with its digest and the controls that changed`,
    `- ${link("Atom feed", links.feed)}: new versions and state changes`,
    `- ${
      link("Evaluation rules", links.evaluationRules)
    }: how every state and confidence is computed`,
    `- ${link("Status badge", links.badge)}: an SVG badge of the overall state`,
    ...(links.trustCenter
      ? [`- ${link("Trust center", links.trustCenter)}: every published project of this vendor`]
      : []),
    ...verifyMarkdown(links, profile.project.slug),
    "",
    `Version ${profile.version} is immutable: its trust.json, signature and this page never change once published.`,
    "",
  ].join("\n");
}

/** The exports, the log and the verifier kit's command, when the page links them. */
function verifyMarkdown(links: TrustPageLinks, slug: string): string[] {
  if (!links.verify) return [];
  return [
    ...exportItems(links.verify, slug).map((item) =>
      `- ${link(item.label, item.href)}: ${item.about}`
    ),
    "",
    `Check every version yourself, without trusting this site, with the ${
      link("verifier kit", links.verify.verifyKit)
    } (Deno): it checks each signature, the hash chain and each version's inclusion in the publication log, and exits non-zero on any failure.`,
    "",
    "```sh",
    verifyCommand(links.verify.verifyKit, slug, links.verify.pins),
    "```",
  ];
}
