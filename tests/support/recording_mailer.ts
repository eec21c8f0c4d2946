/** A configured mailer that sends nothing and keeps every message, for tests that read them. */
import type { Mailer, MailMessage } from "../../src/mail/mod.ts";

export function recordingMailer(): { mailer: Mailer; sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  const mailer: Mailer = {
    configured: true,
    describe: "smtp://mail.test:25",
    send(message) {
      sent.push(message);
      return Promise.resolve({ messageId: `<${sent.length}@mail.test>` });
    },
  };
  return { mailer, sent };
}
