/** Text fields the public profile shares: https addresses and plain text. */
import { z } from "@hono/zod-openapi";

/** What to do about an address HttpsUrl refused: http:// and bare hosts are the usual ones. */
function httpsUrlProblem(issue: { input?: unknown }): string {
  const input = typeof issue.input === "string" ? issue.input.trim() : "";
  const example = "e.g. https://acme.example";
  if (/^http:\/\//i.test(input)) return `must start with https:// (not http://), ${example}`;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(input)) {
    return `must be a full address starting with https://, ${example}`;
  }
  return `must be an https:// address with a domain name, ${example}`;
}

export const HttpsUrl = z.url({
  protocol: /^https$/,
  hostname: z.regexes.domain,
  error: httpsUrlProblem,
}).max(2048)
  .openapi({ description: "An https URL", example: "https://acme.example" });

/** C0 controls other than tab, line feed and carriage return, and DEL. */
function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f;
}

/** Plain text without control characters other than line breaks and tabs. */
export function plainText(max: number) {
  return z.string().trim().max(max).refine(
    (text) => ![...text].some((ch) => isControl(ch.charCodeAt(0))),
    "Must be plain text without control characters",
  );
}
