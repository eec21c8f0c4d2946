/**
 * Form fields of a control's settings: durations (amount and unit) and the
 * optional rule on the latest payload, each with its reader for FormData.
 */
import { h, uniqueId } from "../../dom.js";
import { DURATION_UNITS, splitDuration } from "../../format.js";

/**
 * An amount and a unit for a number of seconds; empty means none. `name` is
 * the amount's form name, `<name>Unit` the unit's.
 */
export function durationField(name, label, seconds, hint) {
  const id = uniqueId(name);
  const current = seconds === null || seconds === undefined ? null : splitDuration(seconds);
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    h(
      "div",
      { class: "duration" },
      h("input", {
        id,
        name,
        type: "number",
        inputmode: "numeric",
        min: "0",
        step: "1",
        value: current ? String(current.amount) : "",
        "aria-describedby": `${id}-hint`,
      }),
      h(
        "select",
        { name: `${name}Unit`, "aria-label": `${label}: unit`, value: current?.unit ?? "days" },
        DURATION_UNITS.map(([unit]) => h("option", { value: unit }, unit)),
      ),
    ),
    h("p", { class: "hint", id: `${id}-hint` }, hint),
  );
}

/** The seconds a duration field holds, or null when its amount is empty. */
export function readDuration(data, name) {
  const amount = String(data.get(name) ?? "").trim();
  if (amount === "") return null;
  const size = DURATION_UNITS.find(([unit]) => unit === data.get(`${name}Unit`))?.[1] ?? 1;
  return Math.round(Number(amount) * size);
}

const OPS = [
  ["eq", "equals"],
  ["ne", "does not equal"],
  ["lt", "is less than"],
  ["lte", "is at most"],
  ["gt", "is greater than"],
  ["gte", "is at least"],
  ["exists", "exists"],
  ["truthy", "is true-like"],
];
const NO_VALUE = new Set(["exists", "truthy"]);

/** A rule value as typed: numbers, true, false and null as such, quotes force text. */
function parseValue(text) {
  const t = text.trim();
  if (t === "") return undefined;
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(t)) return Number(t);
  if (t === "true" || t === "false" || t === "null" || /^".*"$/.test(t)) {
    try {
      return JSON.parse(t);
    } catch {
      return t;
    }
  }
  return t;
}

/** The text that `parseValue` reads back as `value`. */
function showValue(value) {
  if (value === undefined) return "";
  if (typeof value === "string" && parseValue(value) === value) return value;
  return JSON.stringify(value);
}

/** Path, operator and value of a rule; an empty path means "no rule". */
export function ruleFields(rule) {
  const ids = {
    path: uniqueId("rule-path"),
    op: uniqueId("rule-op"),
    value: uniqueId("rule-value"),
  };
  const value = h("input", {
    id: ids.value,
    name: "ruleValue",
    class: "input-mono",
    autocomplete: "off",
    spellcheck: "false",
    value: showValue(rule?.value),
    disabled: NO_VALUE.has(rule?.op),
  });
  const op = h(
    "select",
    {
      id: ids.op,
      name: "ruleOp",
      value: rule?.op ?? "eq",
      on: { change: () => (value.disabled = NO_VALUE.has(op.value)) },
    },
    OPS.map(([v, text]) => h("option", { value: v }, `${text} (${v})`)),
  );
  return h(
    "fieldset",
    { class: "rule" },
    h("legend", {}, "Rule on the latest payload (optional)"),
    h(
      "div",
      { class: "rule-grid" },
      h(
        "div",
        { class: "field" },
        h("label", { for: ids.path }, "Path"),
        h("input", {
          id: ids.path,
          name: "rulePath",
          class: "input-mono",
          autocomplete: "off",
          spellcheck: "false",
          placeholder: "summary.critical",
          value: rule?.path ?? "",
        }),
      ),
      h("div", { class: "field" }, h("label", { for: ids.op }, "Condition"), op),
      h("div", { class: "field" }, h("label", { for: ids.value }, "Value"), value),
    ),
    h(
      "p",
      { class: "hint" },
      "Leave the path empty to use the evidence type's built-in check. Numbers, true, false and null are read as such; wrap a value in quotes to compare it as text.",
    ),
  );
}

/** The rule in the form, or null when its path is empty. */
export function readRule(data) {
  const path = String(data.get("rulePath") ?? "").trim();
  if (path === "") return null;
  const op = String(data.get("ruleOp"));
  const value = NO_VALUE.has(op) ? undefined : parseValue(String(data.get("ruleValue") ?? ""));
  return value === undefined ? { path, op } : { path, op, value };
}
