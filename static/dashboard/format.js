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
