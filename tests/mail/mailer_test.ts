import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { createMailer, MailError, MailNotConfigured } from "../../src/mail/mod.ts";
import { startSmtpServer } from "../support/smtp.ts";

Deno.test("[mail] a message reaches a real SMTP server with its headers, From and UTF-8 subject", async () => {
  await using smtp = await startSmtpServer();
  const config = loadConfig({ SMTP_URL: smtp.url, BASE_URL: "https://trust.example.com" });
  assert.equal(config.mail?.from, "Trust Profile Service <no-reply@trust.example.com>");
  const mailer = createMailer(config.mail);
  assert.equal(mailer.configured, true);
  assert.equal(mailer.describe, smtp.url);
  const { messageId } = await mailer.send({
    to: "buyer@example.org",
    subject: "Contrôle régressé",
    text: "Plain body",
    html: "<p>Rich body</p>",
    headers: { "List-Unsubscribe": "<https://trust.example.com/u/abc>" },
  });
  const mail = await smtp.next();
  assert.equal(mail.messageId, messageId);
  assert.equal(mail.subject, "Contrôle régressé");
  assert.equal(mail.text?.trim(), "Plain body");
  assert.match(String(mail.html), /<p>Rich body<\/p>/);
  assert.equal(mail.from?.value[0].address, "no-reply@trust.example.com");
  assert.deepEqual(smtp.recipients[0], ["buyer@example.org"]);
  const unsubscribe = mail.headerLines.find((h) => h.key === "list-unsubscribe")?.line;
  assert.equal(unsubscribe, "List-Unsubscribe: <https://trust.example.com/u/abc>");
});

Deno.test("[mail] with no SMTP_URL the mailer says so and refuses to send", async () => {
  const mailer = createMailer(loadConfig({}).mail);
  assert.equal(mailer.configured, false);
  await assert.rejects(
    mailer.send({ to: "a@example.org", subject: "s", text: "t" }),
    MailNotConfigured,
  );
});

Deno.test("[mail] a refusing server is a MailError without the URL's credentials", async () => {
  await using smtp = await startSmtpServer();
  smtp.refuseNext(1);
  const url = smtp.url.replace("smtp://", "smtp://mailuser:s3cret-pass@");
  const mailer = createMailer(loadConfig({ SMTP_URL: url }).mail);
  assert.equal(mailer.describe.includes("s3cret"), false);
  const error = await mailer.send({ to: "a@example.org", subject: "s", text: "t" }).then(
    () => null,
    (e) => e,
  );
  assert.ok(error instanceof MailError, String(error));
  assert.match(error.message, /451/);
  assert.deepEqual(smtp.logins, ["mailuser"]);
  assert.equal(error.message.includes("s3cret-pass"), false);
});

Deno.test("[mail] SMTP_URL must be smtp:// or smtps://", () => {
  assert.throws(() => loadConfig({ SMTP_URL: "http://mail.example.com" }), /SMTP_URL/);
  assert.deepEqual(loadConfig({ SMTP_URL: "smtps://mail.example.com:465" }).mail, {
    transport: "smtp",
    smtpUrl: "smtps://mail.example.com:465",
    from: "Trust Profile Service <no-reply@localhost>",
  });
  assert.throws(
    () => loadConfig({ SMTP_URL: "smtp://m", MAIL_FROM: "a\r\nBcc: x@y" }),
    /MAIL_FROM/,
  );
});
