/**
 * Wording shared by every rendering of a trust profile (HTML, Markdown, Atom, badge), so a
 * reader sees the same state names, times and percentages whichever format they chose.
 * Nothing here reads a clock or the locale: the same data always gives the same words.
 */
import { formatAge } from "../../lib/duration.ts";
import type { ControlState } from "../../domain/control.ts";
import type {
  PublishedTrustControl,
  PublishedTrustSummary,
  PublishedVersionChange,
} from "../../domain/publish.ts";

/** What each state means to a reader of the page (the rules are in /docs/evaluation.md). */
export const STATE_MEANING: Readonly<Record<ControlState, string>> = {
  pass: "Current evidence satisfies the control",
  fail: "Current evidence does not satisfy the control",
  degraded: "Evidence is older than its freshness window",
  stale: "Evidence is too old to rely on",
  unknown: "Not reported: no usable evidence has been received yet",
};

/** The state's own word, capitalized: the same vocabulary as trust.json, so the two agree. */
export function stateLabel(state: ControlState): string {
  return state[0].toUpperCase() + state.slice(1);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A date-time normalized to UTC (`…Z`), the form `<time datetime>` and Atom both accept. */
export function utc(value: string): string {
  return new Date(value).toISOString().replace(/\.000Z$/, "Z");
}

/** "14 Mar 2026, 09:30 UTC": fixed wording and zone, never the renderer's locale. */
export function humanUtc(value: string): string {
  const d = new Date(value);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

/** How `at` relates to a reference instant, worded for that reference. */
export interface Anchor {
  at: string;
  before: string;
  after: string;
  same: string;
}

/** The publication as the reference: "3 hours before publication". */
export function publicationAnchor(publishedAt: string): Anchor {
  return {
    at: publishedAt,
    before: "before publication",
    after: "after publication",
    same: "at publication",
  };
}

/** A viewing instant as the reference: "3 hours ago", "in 2 days". */
export function nowAnchor(now: string): Anchor {
  return { at: now, before: "ago", after: "from now", same: "now" };
}

/** `value` relative to the anchor; times within a second of it read as the same instant. */
export function relative(value: string, anchor: Anchor): string {
  const delta = Date.parse(value) - Date.parse(anchor.at);
  if (Math.abs(delta) < 1000) return anchor.same;
  return `${formatAge(Math.abs(delta))} ${delta < 0 ? anchor.before : anchor.after}`;
}

/** Confidence 0..1 as a whole percentage ("25%"). */
export function percent(confidence: number): string {
  return `${Math.round(confidence * 100)}%`;
}

/**
 * The headline's verdict: the worst state among the reported controls and the required ones
 * (a required control not reported counts as `unknown`), in the evaluator's order (fail,
 * stale, degraded, unknown, pass). A control neither reported nor required leaves it
 * unchanged; nothing reported and nothing required is `unknown`. trust.json's `overallState`
 * keeps the evaluator's rule over every control; this is what the headline leads with.
 * Versions published before controls could be required count none as required.
 */
export function headlineVerdict(
  counts: Omit<PublishedTrustSummary, "verdict" | "requiredUnknownCount" | "overallState">,
  requiredUnknown: number,
): ControlState {
  if (counts.failCount > 0) return "fail";
  if (counts.staleCount > 0) return "stale";
  if (counts.degradedCount > 0) return "degraded";
  if (requiredUnknown > 0) return "unknown";
  return counts.passCount > 0 ? "pass" : "unknown";
}

/** The verdict of a published summary (the same rule for versions that do not record it). */
export function verdict(summary: PublishedTrustSummary): ControlState {
  return headlineVerdict(summary, summary.requiredUnknownCount ?? 0);
}

/**
 * One line on the overall state that keeps what was reported apart from what was not:
 * "3 of 3 reported controls pass · 4 not reported", so controls without evidence never read
 * as failing ones, and says how many of those not reported the vendor requires ("· 4 not
 * reported, 1 required"); or why there is nothing to say.
 */
export function summaryLine(summary: PublishedTrustSummary): string {
  if (summary.totalControls === 0) return "No control is enabled yet";
  const required = summary.requiredUnknownCount ?? 0;
  const reported = summary.totalControls - summary.unknownCount;
  if (reported === 0) {
    if (summary.totalControls === 1) {
      return `The control has not reported yet${required > 0 ? " (required)" : ""}`;
    }
    const of = required === 0 ? "" : `, ${required} of them required`;
    return `None of ${summary.totalControls} controls has reported yet${of}`;
  }
  const of = `of ${reported} reported control${reported === 1 ? "" : "s"}`;
  const passing = `${summary.passCount} ${of} pass${summary.passCount === 1 ? "es" : ""}`;
  if (summary.unknownCount === 0) return passing;
  const marked = required === 0 ? "" : `, ${required} required`;
  return `${passing} · ${summary.unknownCount} not reported${marked}`;
}

/** What the page leads with: the state it is coloured by, a label, the words and the detail. */
export interface Headline {
  state: ControlState;
  label: string;
  title: string;
  detail: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The headline of a profile, led by its verdict (`verdict`). When every reported control
 * passes and none required is missing it leads with that ("All 3 reported controls pass",
 * "4 not reported yet · overall: unknown"), since an overall state of unknown only says that
 * some controls never reported; when a required control has not reported it names it ("Not
 * reported: SBOM (required)", or how many when several; `controls` gives the names);
 * otherwise the verdict (then the overall state: the worst of any control) with the summary
 * line. Nothing reported reads as such, never as a bare "Unknown".
 */
export function headline(
  summary: PublishedTrustSummary,
  controls: readonly PublishedTrustControl[] = [],
): Headline {
  const { totalControls: total, unknownCount: unknown, passCount: pass } = summary;
  const required = summary.requiredUnknownCount ?? 0;
  const reported = total - unknown;
  const state = verdict(summary);
  if (total === 0) {
    return {
      state: "unknown",
      label: "Overall state",
      title: "No controls",
      detail: summaryLine(summary),
    };
  }
  if (state === "unknown" && required > 0) {
    const missing = controls.filter((c) => c.required === true && c.state === "unknown");
    const title = required === 1 && missing.length === 1
      ? `Not reported: ${missing[0].name} (required)`
      : `${plural(required, "required control", "required controls")} not reported`;
    return { state, label: "Required controls", title, detail: summaryLine(summary) };
  }
  if (reported === 0) {
    return {
      state: "unknown",
      label: "Overall state",
      title: "Not reported yet",
      detail: summaryLine(summary),
    };
  }
  if (pass === reported) {
    const title = unknown === 0
      ? total === 1 ? "The control passes" : `All ${total} controls pass`
      : reported === 1
      ? "The 1 reported control passes"
      : `All ${reported} reported controls pass`;
    const detail = unknown === 0
      ? "Every control has evidence that satisfies it"
      : `${plural(unknown, "control", "controls")} not reported yet · overall: unknown`;
    return { state: "pass", label: "Reported controls", title, detail };
  }
  return {
    state,
    label: "Overall state",
    title: stateLabel(state),
    detail: summaryLine(summary),
  };
}

/** The non-empty counts, worst first, e.g. "1 fail, 1 degraded, 5 pass, 2 not reported". */
export function countsLine(summary: PublishedTrustSummary): string {
  const parts: [number, string][] = [
    [summary.failCount, "fail"],
    [summary.staleCount, "stale"],
    [summary.degradedCount, "degraded"],
    [summary.passCount, "pass"],
    [summary.unknownCount, "not reported"],
  ];
  return parts.filter(([n]) => n > 0).map(([n, s]) => `${n} ${s}`).join(", ") || "no controls";
}

// Characters XML 1.0 forbids even escaped (C0 controls other than tab and line breaks,
// U+FFFE, U+FFFF): one in vendor text would make a feed or badge unparsable.
// deno-lint-ignore no-control-regex
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Replaces characters that XML cannot carry (lone surrogates included) with U+FFFD. */
export function xmlSafe(text: string): string {
  return text.toWellFormed().replace(XML_INVALID, "\uFFFD");
}

/** What changed in one version: the version it is compared with, and each control that moved. */
export interface ChangeList {
  /** null for version 1, which has nothing to be compared with. */
  previousVersion: number | null;
  items: readonly PublishedVersionChange[];
}

/** Said of a change whose version was published before reasons were recorded. */
export const NO_REASON = "No reason recorded: this version was published before reasons were kept.";

/** What version 1's change list says instead of listing every control as new. */
export function firstVersion(count: number): string {
  return `First published version, with ${count} ${count === 1 ? "control" : "controls"}.`;
}
