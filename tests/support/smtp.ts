/**
 * A real SMTP server (npm smtp-server) on 127.0.0.1 for tests: it accepts every message and
 * keeps it parsed by mailparser, so tests read subjects, bodies and headers as a mail
 * client would. Waiting is bounded: `next` gives up after its timeout.
 */
import { Buffer } from "node:buffer";
import { type ParsedMail, simpleParser, SMTPServer } from "../deps.ts";

export interface TestSmtp {
  /** `smtp://127.0.0.1:<port>` for SMTP_URL. */
  url: string;
  /** Every message received so far, in arrival order. */
  messages: ParsedMail[];
  /** The envelope recipients of each message, in the same order. */
  recipients: string[][];
  /** The user names of every AUTH the server accepted (any password is accepted). */
  logins: string[];
  /** Resolves with the first message (received or still to come) matching `match`. */
  next(match?: (mail: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  /** Makes the server refuse the next `count` messages with a 451 (a temporary failure). */
  refuseNext(count: number): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

interface Waiter {
  match: (mail: ParsedMail) => boolean;
  resolve: (mail: ParsedMail) => void;
}

export async function startSmtpServer(): Promise<TestSmtp> {
  const messages: ParsedMail[] = [];
  const recipients: string[][] = [];
  const logins: string[] = [];
  const seen = new Set<ParsedMail>();
  let waiters: Waiter[] = [];
  let refusals = 0;
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    onAuth(auth, _session, callback) {
      logins.push(auth.username ?? "");
      callback(null, { user: auth.username });
    },
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", async () => {
        if (refusals > 0) {
          refusals--;
          const error = new Error("Try again later") as Error & { responseCode: number };
          error.responseCode = 451;
          callback(error);
          return;
        }
        const mail = await simpleParser(Buffer.concat(chunks));
        messages.push(mail);
        recipients.push(session.envelope.rcptTo.map((r) => r.address));
        waiters = waiters.filter((w) => {
          if (!w.match(mail) || seen.has(mail)) return true;
          seen.add(mail);
          w.resolve(mail);
          return false;
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as { port: number };
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    recipients,
    logins,
    next(match = () => true, timeoutMs = 10_000) {
      const found = messages.find((m) => !seen.has(m) && match(m));
      if (found) {
        seen.add(found);
        return Promise.resolve(found);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          reject(
            new Error(`No matching email within ${timeoutMs} ms (${messages.length} received)`),
          );
        }, timeoutMs);
        const waiter: Waiter = {
          match,
          resolve: (mail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        };
        waiters.push(waiter);
      });
    },
    refuseNext(count) {
      refusals = count;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
