/**
 * What subscription emails say: a subject, a plain-text body and a simple HTML body with
 * every value escaped. Notifications read their event's data generically (`update.posted`
 * and the others are described by their `data`), so a field missing from an event only
 * shortens the email.
 */
import type { TrustEvent } from "../domain/events.ts";
import { type Html, html } from "../lib/html.ts";

/** Whom the email is about: the scope's display name and public page. */
export interface MailScope {
  name: string;
  url: string;
}

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

interface Section {
  subject: string;
  lines: string[];
  link: { label: string; url: string } | null;
}

type Data = Record<string, unknown>;
const str = (value: unknown) => (typeof value === "string" ? value : "");
const obj = (value: unknown): Data => (typeof value === "object" && value ? value as Data : {});
/** One line for a header: no control characters, bounded. */
const oneLine = (text: string, max = 200) =>
  // deno-lint-ignore no-control-regex -- header values must not carry CR, LF or other controls
  text.replace(/[\x00-\x1f\x7f]+/g, " ").trim().slice(0, max);

function regressed(data: Data, scope: MailScope): Section {
  const controls = Array.isArray(data.controls) ? data.controls.map(obj) : [];
  const count = typeof data.count === "number" ? data.count : controls.length;
  const first = controls[0];
  const change = (c: Data) => `${str(c.name) || str(c.key)} (${str(c.from)} → ${str(c.to)})`;
  const more = count > 1 ? ` and ${count - 1} more` : "";
  return {
    subject: `[${scope.name}] Control regressed: ${first ? change(first) : "a control"}${more}`,
    lines: [
      `${
        count === 1 ? "A control" : `${count} controls`
      } of ${scope.name} went from passing to a worse state:`,
      ...controls.map((c) => `- ${change(c)}${str(c.reason) ? `: ${str(c.reason)}` : ""}`),
    ],
    link: { label: "The trust page", url: str(data.pageUrl) || scope.url },
  };
}

function updatePosted(data: Data, scope: MailScope): Section {
  const update = obj(data.update);
  const kind = str(update.kind) || "update";
  const label = kind.charAt(0).toUpperCase() + kind.slice(1);
  return {
    subject: `[${scope.name}] ${label}: ${str(update.title) || "a new update"}`,
    lines: [
      `${scope.name} posted ${/^[aeiou]/i.test(kind) ? "an" : "a"} ${kind}: ${str(update.title)}`,
      ...(str(update.summary) ? [str(update.summary)] : []),
    ],
    link: { label: "Read it", url: str(update.url) || scope.url },
  };
}

function subprocessorChanged(data: Data, scope: MailScope): Section {
  const action = str(data.action) || "changed";
  const name = str(data.name);
  const fields = (label: string, value: unknown) => {
    const f = obj(value);
    return Object.keys(f).length === 0
      ? []
      : [`${label}: ${str(f.name)}, ${str(f.purpose)}, ${str(f.location)}, ${str(f.website)}`];
  };
  return {
    subject: `[${scope.name}] Subprocessor ${action}: ${name}`,
    lines: [
      `${scope.name} ${
        action === "added" ? "added" : action === "removed" ? "removed" : "changed"
      } the subprocessor ${name}.`,
      ...fields("Before", data.before),
      ...fields("After", data.after),
    ],
    link: { label: "Subprocessors and their history", url: `${scope.url}/subprocessors` },
  };
}

const DESCRIBE: Record<string, (data: Data, scope: MailScope) => Section> = {
  "control.regressed": regressed,
  "update.posted": updatePosted,
  "subprocessor.changed": subprocessorChanged,
};

/** The event types subscribers are emailed about. */
export const NOTIFIED_EVENT_TYPES = Object.keys(DESCRIBE);

function body(section: Section, footer: string[]): MailContent {
  const link = section.link;
  const text = [
    ...section.lines,
    ...(link ? ["", `${link.label}: ${link.url}`] : []),
    "",
    "-- ",
    ...footer,
  ].join("\n");
  const paragraphs: Html[] = section.lines.map((line) => html`<p>${line}</p>`);
  const doc = html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <title>${oneLine(section.subject)}</title>
      </head>
      <body>${paragraphs}${link
        ? html`<p><a href="${link.url}">${link.label}</a></p>`
        : ""}<hr>${footer.map((line) => html`<p><small>${line}</small></p>`)}</body>
    </html>
  `;
  return { subject: oneLine(section.subject), text: text + "\n", html: doc.value };
}

/** The notification of `event` for a subscriber of `scope`, with its unsubscribe link. */
export function notificationContent(
  event: TrustEvent,
  options: { scope: MailScope; subscribedTo: string; unsubscribeUrl: string },
): MailContent | null {
  const describe = DESCRIBE[event.type];
  if (!describe) return null;
  return body(describe(event.data, options.scope), [
    `You get this because you subscribed to trust updates of ${options.subscribedTo}.`,
    `Unsubscribe: ${options.unsubscribeUrl}`,
  ]);
}

/** The confirmation request of a new subscription. */
export function confirmationContent(options: { subscribedTo: string; confirmUrl: string }) {
  return body({
    subject: `Confirm your subscription to ${options.subscribedTo} trust updates`,
    lines: [
      `Someone, hopefully you, asked for email about ${options.subscribedTo}: controls that regress, new updates and subprocessor changes.`,
      "Nothing is sent unless you confirm. The link works for 48 hours.",
    ],
    link: { label: "Confirm the subscription", url: options.confirmUrl },
  }, ["If you did not ask for this, ignore this email."]);
}
