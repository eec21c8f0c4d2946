/** Display formats shared by the views. */

const UNITS = [
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
  ["second", 1],
];

/** "7 days", "1 day 12 hours", "90 seconds" → "1 minute 30 seconds" (at most two units). */
export function formatDuration(totalSeconds) {
  const parts = [];
  let rest = totalSeconds;
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0 && parts.length < 2) {
      parts.push(`${n} ${unit}${n === 1 ? "" : "s"}`);
      rest -= n * size;
    } else if (parts.length > 0) break;
  }
  return parts.join(" ") || "0 seconds";
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
  dateStyle: "medium",
  timeStyle: "short",
});

/** A `<time>`-ready pair: the ISO value and its local rendering. */
export function formatDate(iso, withTime = false) {
  const date = new Date(iso);
  return (withTime ? dateTimeFormat : dateFormat).format(date);
}

/** The freshness window of a control's FreshnessPolicy, for people. */
export function describeFreshness(policy) {
  if (!policy || policy.kind !== "time_window") return "No window";
  return formatDuration(policy.windowSeconds);
}

/** "owner" → "Owner". */
export const capitalize = (s) => s.charAt(0).toUpperCase() + s.slice(1);

const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const RELATIVE_UNITS = [
  ["year", 31_536_000],
  ["month", 2_592_000],
  ["week", 604_800],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

/** "5 minutes ago", "in 6 days", "just now": how far `iso` is from now. */
export function formatRelative(iso, now = Date.now()) {
  const seconds = (new Date(iso).getTime() - now) / 1000;
  for (const [unit, size] of RELATIVE_UNITS) {
    if (Math.abs(seconds) >= size) return relativeFormat.format(Math.trunc(seconds / size), unit);
  }
  return seconds < 0 ? "just now" : "in under a minute";
}

/** "sha256:23daa226…c840": enough of a checksum to tell records apart. */
export function shortChecksum(checksum) {
  const [algorithm, hex = ""] = checksum.split(":");
  return hex.length > 16 ? `${algorithm}:${hex.slice(0, 8)}…${hex.slice(-4)}` : checksum;
}

/** "1 record", "27 records". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** 0.25 → "25%". */
export const formatPercent = (ratio) => `${Math.round(ratio * 100)}%`;

/** Units a duration input offers, largest first. */
export const DURATION_UNITS = [
  ["days", 86_400],
  ["hours", 3_600],
  ["minutes", 60],
  ["seconds", 1],
];

/** The largest unit that expresses `seconds` exactly: 604800 → { amount: 7, unit: "days" }. */
export function splitDuration(seconds) {
  const [unit, size] = DURATION_UNITS.find(([, size]) => seconds % size === 0);
  return { amount: seconds / size, unit };
}
