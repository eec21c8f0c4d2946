/**
 * An HTML tagged template that escapes every interpolated value, for pages
 * the service renders itself and for published trust pages.
 */
import { escapeHtml } from "./escape.ts";

/** Text that is already escaped HTML. */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

/** Tagged template that escapes every interpolated value unless it is `Html`. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((value, i) => {
    const text = Array.isArray(value)
      ? value.map((v) => (v instanceof Html ? v.value : escapeHtml(String(v)))).join("")
      : value instanceof Html
      ? value.value
      : value === null || value === undefined || value === false
      ? ""
      : escapeHtml(String(value));
    out += text + strings[i + 1];
  });
  return new Html(out);
}
