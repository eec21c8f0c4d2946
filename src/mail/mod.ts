/**
 * Outgoing email over SMTP (`SMTP_URL`), through nodemailer. With no SMTP configured the
 * mailer says so (`configured` is false) and refuses to send, so a caller can tell the
 * operator instead of dropping a message silently. The SMTP URL carries credentials: it is
 * never logged or returned.
 */
import nodemailer from "nodemailer";
import type { MailConfig } from "../config.ts";

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
  /** Whether SMTP is configured; when false, `send` throws MailNotConfigured. */
  readonly configured: boolean;
  /** Where mail goes, for start-up and status lines: `smtp://host:port`, never credentials. */
  readonly describe: string;
  /** Sends one message; resolves with its Message-ID once the server accepted it. */
  send(message: MailMessage): Promise<{ messageId: string }>;
}

/** Sending was asked for but no SMTP_URL is set. */
export class MailNotConfigured extends Error {
  override name = "MailNotConfigured";
  constructor() {
    super("Email is not configured: set SMTP_URL to send email");
  }
}

/** The SMTP server failed or refused the message; the text has no credentials. */
export class MailError extends Error {
  override name = "MailError";
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
  const transport = nodemailer.createTransport(config.smtpUrl);
  return {
    configured: true,
    describe: redact(config.smtpUrl),
    async send(message) {
      try {
        const info = await transport.sendMail({ from: config.from, ...message });
        return { messageId: String(info.messageId) };
      } catch (error) {
        // nodemailer's errors can quote the server's reply, never the URL's credentials;
        // keep only the message and the SMTP response code.
        const e = error as { message?: string; responseCode?: number };
        throw new MailError(
          `SMTP sending failed${e.responseCode ? ` (${e.responseCode})` : ""}: ${
            String(e.message ?? error).replaceAll(config.smtpUrl, redact(config.smtpUrl))
          }`,
        );
      }
    },
  };
}
