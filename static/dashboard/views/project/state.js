/** Control states as people read them: a label, a colour and an icon, never colour alone. */
import { badge } from "../../dom.js";

/** States from worst to best, the order the service uses for the overall state. */
const WORST_FIRST = ["fail", "stale", "degraded", "unknown", "pass"];

const STATES = {
  pass: { label: "Pass", tone: "success", icon: "check" },
  fail: { label: "Fail", tone: "danger", icon: "cross" },
  degraded: { label: "Degraded", tone: "warning", icon: "warning" },
  stale: { label: "Stale", tone: "warning", icon: "clock" },
  unknown: { label: "Unknown", tone: "neutral", icon: "question" },
};

/** How a state is shown: `{ label, tone, icon }`. */
export const stateMeta = (state) => STATES[state] ?? STATES.unknown;

/** The badge of a control state. */
export function stateBadge(state) {
  const meta = stateMeta(state);
  return badge(meta.label, meta.tone, meta.icon);
}

/** The worst of `states`; unknown when there are none (DESIGN.md §8). */
export function overallState(states) {
  return WORST_FIRST.find((s) => states.includes(s)) ?? "unknown";
}

/** `[state, count]` pairs in worst-first order, only for states that occur. */
export function stateCounts(states) {
  return WORST_FIRST.map((s) => [s, states.filter((x) => x === s).length]).filter(([, n]) => n);
}
