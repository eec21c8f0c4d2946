/**
 * Probe for custom controls: does the operator's `rule: { path, op, value }` hold on the
 * latest payload?
 */
import type { ControlRule } from "../../domain/control.ts";
import { isObject, notAnObject, own, show } from "./_read.ts";
import { fail, pass, type ProbeResult, unknown } from "./types.ts";

const INDEX = /^(0|[1-9]\d*)$/;
const MISSING = Symbol("missing");

/**
 * Answers whether `rule` holds on `payload`. `path` is dot-separated; a segment that is a
 * whole number indexes an array (`results.0.status`); only own properties are followed.
 * `exists` passes when the path resolves to a value other than null, `truthy` when that
 * value is not false, 0, "" or null (empty arrays and objects are truthy, as in
 * JavaScript); for both, a missing path fails. `eq` and `ne` compare with strict equality
 * (the string "1" is not the number 1); `lt`, `lte`, `gt` and `gte` need two finite numbers.
 * A comparison on a missing path, on non-numbers, or without a `value` is `unknown`, as is
 * any rule on a payload that is not a JSON object or array.
 */
export function doesRuleHold(payload: unknown, rule: ControlRule): ProbeResult {
  if (!isObject(payload) && !Array.isArray(payload)) {
    return unknown(notAnObject(payload, "a JSON object or array"));
  }
  if (!isObject(rule) || typeof rule.path !== "string") return unknown("Rule has no path");
  const segments = rule.path.split(".");
  if (segments.some((segment) => segment === "")) {
    return unknown(`Rule path ${show(rule.path)} has an empty segment`);
  }
  const actual = resolve(payload, segments);
  // Paths are operator text; control characters would break the one-line reason.
  // deno-lint-ignore no-control-regex
  const path = rule.path.replace(/[\u0000-\u001f\u007f]/g, " ");
  const subject = `${path} ${actual === MISSING ? "is missing" : `is ${show(actual)}`}`;
  switch (rule.op) {
    case "exists":
      return verdict(actual !== MISSING && actual !== null, subject, "must exist");
    case "truthy":
      return verdict(actual !== MISSING && Boolean(actual), subject, "must be truthy");
  }
  if (actual === MISSING) return unknown(`${subject}; cannot compare`);
  if (rule.value === undefined) return unknown(`Rule ${rule.op} on ${path} has no value`);
  const expected = show(rule.value);
  switch (rule.op) {
    case "eq":
      return verdict(actual === rule.value, subject, `must equal ${expected}`);
    case "ne":
      return verdict(actual !== rule.value, subject, `must not equal ${expected}`);
  }
  if (!isFiniteNumber(actual) || !isFiniteNumber(rule.value)) {
    return unknown(`${subject}; ${rule.op} needs two numbers, expected ${expected}`);
  }
  const [a, b] = [actual, rule.value];
  const holds = { lt: a < b, lte: a <= b, gt: a > b, gte: a >= b }[rule.op];
  if (holds === undefined) return unknown(`Rule op ${show(rule.op)} is not supported`);
  return verdict(holds, subject, `must be ${rule.op} ${expected}`);
}

function resolve(root: unknown, segments: string[]): unknown {
  let current = root;
  for (const segment of segments) {
    if (Array.isArray(current) && INDEX.test(segment)) {
      const index = Number(segment);
      if (index >= current.length) return MISSING;
      current = current[index];
    } else if (isObject(current) && Object.hasOwn(current, segment)) {
      current = own(current, segment);
    } else {
      return MISSING;
    }
  }
  return current;
}

function verdict(holds: boolean, subject: string, requirement: string): ProbeResult {
  return holds ? pass(`${subject}; ${requirement}`) : fail(`${subject}; ${requirement}`);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}
