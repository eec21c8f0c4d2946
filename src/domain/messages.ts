/**
 * What a person is told when a field is wrong: zod's default messages ("Invalid input: expected
 * string, received undefined", "Too small: expected string to have >=1 characters") say what
 * failed, not what to do. These replace them for every schema, through zod's global error map,
 * which applies only where a schema gives no message of its own. The API prefixes the field
 * (`Field "name": must not be empty`), so each message starts with what the value must be.
 */
import { z } from "zod";

const KIND: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
};

const FORMAT: Record<string, string> = {
  email: "must be an email address, e.g. name@example.com",
  url: "must be a full address starting with https://, e.g. https://acme.example",
  uuid: "must be an id (a UUID such as 0b0e4c3e-3b0a-4c2e-9a57-2f1f0e3c4d5a)",
  datetime: "must be a date and time in RFC 3339, e.g. 2026-01-31T12:00:00Z",
  date: "must be a date, e.g. 2026-01-31",
};

function units(origin: string, count: number): string {
  const unit = origin === "array" || origin === "set" ? "item" : "character";
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/** A message for `issue`, or undefined to keep zod's. */
export function friendlyMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      return KIND[issue.expected] ? `must be ${KIND[issue.expected]}` : undefined;
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string" || issue.origin === "array") {
        return min === 1 ? "must not be empty" : `must have at least ${units(issue.origin, min)}`;
      }
      return `must be ${issue.inclusive ? "at least" : "more than"} ${issue.minimum}`;
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string" || issue.origin === "array") {
        return `must have at most ${units(issue.origin, max)}`;
      }
      return `must be ${issue.inclusive ? "at most" : "less than"} ${issue.maximum}`;
    }
    case "invalid_format":
      return FORMAT[issue.format];
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return undefined;
  }
}

z.config({ customError: friendlyMessage });
