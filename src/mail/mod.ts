/**
 * Outgoing email, over one of two transports: SMTP (`SMTP_URL`) through nodemailer, or
 * Amazon SES v2's HTTPS API (`SES_REGION`), which serverless hosts allow where outbound SMTP
 * ports may be closed. Both send the same message: nodemailer composes it from the same
 * options (one builder, {@linkcode mailOptions}), and SES receives that MIME message whole
 * (`Content.Raw`), so the Message-ID and headers such as List-Unsubscribe are the ones SMTP
 * would carry. nodemailer and aws4fetch are loaded on the first send, not at start.
 *
 * With no transport configured the mailer says so (`configured` is false) and refuses to
 * send, so a caller can tell the operator instead of dropping a message silently. The SMTP
 * URL and the SES secret key are never logged, printed or returned.
 */
import { Buffer } from "node:buffer";
import type { MailConfig, SesConfig } from "../config.ts";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers, e.g. `List-Unsubscribe` (RFC 2369) and `List-Unsubscribe-Post` (RFC 8058). */
  headers?: Record<string, string>;
  /** The Message-ID header (`<id@host>`); generated when left out. */
  messageId?: string;
}

export interface Mailer {
  /** Whether a transport is configured; when false, `send` throws MailNotConfigured. */
  readonly configured: boolean;
  /**
   * Where mail goes, for start-up and status lines, never credentials: `smtp://host:port` or
   * `SES v2 (region eu-west-1)`.
   */
  readonly describe: string;
  /** Sends one message; resolves with its Message-ID once the server accepted it. */
  send(message: MailMessage): Promise<{ messageId: string }>;
}

/** Sending was asked for but neither SMTP_URL nor SES_REGION is set. */
export class MailNotConfigured extends Error {
  override name = "MailNotConfigured";
  constructor() {
    super("Email is not configured: set SMTP_URL or SES_REGION to send email");
  }
}

/** The mail server failed or refused the message; the text has no credentials. */
export class MailError extends Error {
  override name = "MailError";
}

/** The longest an SES request may take before the attempt counts as failed. */
const SES_TIMEOUT_MS = 30_000;

type Nodemailer = typeof import("nodemailer").default;
let nodemailer: Promise<Nodemailer> | undefined;

/** nodemailer, imported once on first use (a start without email never loads it). */
function loadNodemailer(): Promise<Nodemailer> {
  nodemailer ??= import("nodemailer").then((m) => m.default).catch((error) => {
    nodemailer = undefined;
    throw error;
  });
  return nodemailer;
}

/** The one message builder: nodemailer's options for `message` from `from`. */
export function mailOptions(from: string, message: MailMessage) {
  return { from, ...message };
}

/** `smtp://host:port` without user information. */
function redact(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/** A mailer for the configuration; `null` makes one that is not configured. */
export function createMailer(config: MailConfig | null): Mailer {
  if (!config) {
    return {
      configured: false,
      describe: "not configured",
      send: () => Promise.reject(new MailNotConfigured()),
    };
  }
  return config.transport === "ses"
    ? sesMailer(config.from, config.ses)
    : smtpMailer(config.from, config.smtpUrl);
}

function smtpMailer(from: string, smtpUrl: string): Mailer {
  type Transport = ReturnType<Nodemailer["createTransport"]>;
  let transport: Transport | undefined;
  return {
    configured: true,
    describe: redact(smtpUrl),
    async send(message) {
      try {
        transport ??= (await loadNodemailer()).createTransport(smtpUrl);
        const info = await transport.sendMail(mailOptions(from, message));
        return { messageId: String(info.messageId) };
      } catch (error) {
        // nodemailer's errors can quote the server's reply, never the URL's credentials;
        // keep only the message and the SMTP response code.
        const e = error as { message?: string; responseCode?: number };
        throw new MailError(
          `SMTP sending failed${e.responseCode ? ` (${e.responseCode})` : ""}: ${
            String(e.message ?? error).replaceAll(smtpUrl, redact(smtpUrl))
          }`,
        );
      }
    },
  };
}

/** `SES v2 (region …)`, with the endpoint when it is not the region's own. */
function describeSes(ses: SesConfig): string {
  const standard = ses.endpoint === `https://email.${ses.region}.amazonaws.com`;
  if (standard) return `SES v2 (region ${ses.region})`;
  const url = new URL(ses.endpoint);
  return `SES v2 (region ${ses.region}, endpoint ${url.protocol}//${url.host}${
    url.pathname === "/" ? "" : url.pathname
  })`;
}

function sesMailer(from: string, ses: SesConfig): Mailer {
  const hide = (text: string) => text.replaceAll(ses.secretAccessKey, "[secret]");
  return {
    configured: true,
    describe: describeSes(ses),
    async send(message) {
      let raw: { messageId: string; data: string };
      let request: Request;
      try {
        raw = await composeRaw(from, message);
        request = await signSendEmail(ses, {
          Content: { Raw: { Data: raw.data } },
          Destination: { ToAddresses: [message.to] },
          ...(ses.configurationSet ? { ConfigurationSetName: ses.configurationSet } : {}),
        });
      } catch (error) {
        throw new MailError(`SES sending failed: ${hide(String((error as Error).message))}`);
      }
      let response: Response;
      try {
        // Signed here and fetched once: aws4fetch's own retries would send again on a 5xx,
        // and an email is sent at most once (the mail job decides about another attempt).
        response = await fetch(request, { signal: AbortSignal.timeout(SES_TIMEOUT_MS) });
      } catch (error) {
        const reason = (error as Error).name === "TimeoutError"
          ? `no answer within ${SES_TIMEOUT_MS / 1000} s`
          : String((error as Error).message);
        throw new MailError(`SES sending failed: ${hide(reason)}`);
      }
      if (!response.ok) throw new MailError(hide(await sesError(response)));
      await response.body?.cancel();
      return { messageId: raw.messageId };
    },
  };
}

type Composer = ReturnType<typeof composerOf>;
const composerOf = (n: Nodemailer) =>
  n.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
let composer: Composer | undefined;

/** The MIME message nodemailer composes from {@linkcode mailOptions}, in base64. */
async function composeRaw(from: string, message: MailMessage) {
  composer ??= composerOf(await loadNodemailer());
  const info = await composer.sendMail(mailOptions(from, message));
  return {
    messageId: String(info.messageId),
    data: Buffer.from(info.message as Uint8Array).toString("base64"),
  };
}

/** SES v2 `SendEmail`, signed with SigV4 for service `ses` in the configured region. */
async function signSendEmail(ses: SesConfig, body: unknown): Promise<Request> {
  const { AwsClient } = await import("aws4fetch");
  const client = new AwsClient({
    accessKeyId: ses.accessKeyId,
    secretAccessKey: ses.secretAccessKey,
    service: "ses",
    region: ses.region,
    retries: 0,
  });
  return await client.sign(`${ses.endpoint}/v2/email/outbound-emails`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/**
 * The text of an SES error answer: its status, SES's error code (the `x-amzn-ErrorType`
 * header, or the body's `__type`/`code`) and message, one line, bounded in length.
 */
async function sesError(response: Response): Promise<string> {
  const text = (await response.text().catch(() => "")).slice(0, 4000);
  let code = response.headers.get("x-amzn-errortype")?.split(":")[0] ?? "";
  let detail = text;
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const field = (name: string) => typeof json[name] === "string" ? json[name] as string : "";
    code ||= (field("__type") || field("code") || field("Code") || field("type")).split("#").pop()!;
    detail = [field("message") || field("Message"), field("detail")].filter(Boolean).join(": ");
  } catch {
    // Not JSON (a proxy's page, an XML fault): its text says what happened.
  }
  const line = detail.replace(/\s+/g, " ").trim().slice(0, 300);
  return `SES refused the email (${response.status}${code ? ` ${code}` : ""})${
    line ? `: ${line}` : ""
  }`;
}
