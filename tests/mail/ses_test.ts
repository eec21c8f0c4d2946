/**
 * The Amazon SES v2 transport against the real aws-ses-v2-local (tests/support/ses.ts): the
 * message as SMTP would carry it, a real SigV4 signature, SES's error answers as failed
 * attempts, the configuration, and nodemailer kept out of a cold start.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { MAIL_BACKOFF_MS, type MailDelivery } from "../../src/domain/subscriptions.ts";
import { createMailer, MailError } from "../../src/mail/mod.ts";
import { createTestApp } from "../support/app.ts";
import { publishVersion, workspace } from "../support/fixtures.ts";
import { sigV4Problem, startSes } from "../support/ses.ts";

const BASE = { BASE_URL: "https://trust.example.com" };
const failure = (promise: Promise<unknown>) => promise.then(() => null, (e) => e as Error);

Deno.test("[mail] SES v2: a message reaches aws-ses-v2-local signed, with its own headers", async () => {
  await using ses = await startSes();
  const config = loadConfig({ ...BASE, ...ses.env, SES_CONFIGURATION_SET: "trust-mail" });
  assert.equal(config.mail?.from, "Trust Profile Service <no-reply@trust.example.com>");
  const mailer = createMailer(config.mail);
  assert.equal(mailer.configured, true);
  assert.equal(mailer.describe, `SES v2 (region us-east-1, endpoint ${ses.url})`);
  const { messageId } = await mailer.send({
    to: "buyer@example.org",
    subject: "Contrôle régressé",
    text: "Plain body",
    html: "<p>Rich body</p>",
    headers: {
      "List-Unsubscribe": "<https://trust.example.com/u/abc>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
    messageId: "<delivery-1.0@trust.example.com>",
  });
  assert.equal(messageId, "<delivery-1.0@trust.example.com>");

  const sent = await ses.next();
  // What the local SES kept (GET /store).
  assert.equal(sent.stored.from, '"Trust Profile Service" <no-reply@trust.example.com>');
  assert.deepEqual(sent.stored.destination.to, ["buyer@example.org"]);
  assert.equal(sent.stored.subject, "Contrôle régressé");
  assert.equal(sent.stored.body.text?.trim(), "Plain body");
  assert.match(String(sent.stored.body.html), /<p>Rich body<\/p>/);
  // The raw MIME message as sent: the headers the service set, exactly.
  assert.equal(sent.mime.messageId, "<delivery-1.0@trust.example.com>");
  const header = (key: string) => sent.mime.headerLines.find((h) => h.key === key)?.line;
  assert.equal(header("list-unsubscribe"), "List-Unsubscribe: <https://trust.example.com/u/abc>");
  assert.equal(
    header("list-unsubscribe-post"),
    "List-Unsubscribe-Post: List-Unsubscribe=One-Click",
  );
  assert.match(sent.raw, /\r\n\r\n/, "CRLF line ends");
  // The SendEmail request: raw content, the recipient, the configuration set, SigV4.
  assert.equal(sent.request.path, "/v2/email/outbound-emails");
  assert.deepEqual(sent.request.body?.Destination, { ToAddresses: ["buyer@example.org"] });
  assert.equal(sent.request.body?.ConfigurationSetName, "trust-mail");
  assert.match(
    sent.request.authorization,
    new RegExp(
      `^AWS4-HMAC-SHA256 Credential=${ses.accessKeyId}/\\d{8}/us-east-1/ses/aws4_request, ` +
        "SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$",
    ),
  );
  assert.equal(JSON.stringify(ses.requests).includes(ses.secretAccessKey), false);
});

Deno.test("[mail] SES v2: the signature is checked; a wrong secret is refused and not stored", async () => {
  await using ses = await startSes();
  const storeSize = async () => (await (await fetch(`${ses.peerUrl}/store`)).json()).emails.length;
  const before = await storeSize();
  const wrong = `${ses.secretAccessKey.slice(0, -4)}XXXX`;
  const mailer = createMailer(
    loadConfig({ ...BASE, ...ses.env, SES_SECRET_ACCESS_KEY: wrong }).mail,
  );
  const error = await failure(mailer.send({ to: "a@example.org", subject: "s", text: "t" }));
  assert.ok(error instanceof MailError, String(error));
  assert.match(
    error.message,
    /^SES refused the email \(403 SignatureDoesNotMatch\): The request signature we calculated/,
  );
  assert.equal(error.message.includes(wrong), false);
  assert.deepEqual(ses.requests.map((r) => r.status), [403]);
  assert.equal(await storeSize(), before);

  // A key id SES does not know.
  const stranger = createMailer(
    loadConfig({ ...BASE, ...ses.env, SES_ACCESS_KEY_ID: "AKIAUNKNOWNKEY000000" }).mail,
  );
  const unknown = await failure(stranger.send({ to: "a@example.org", subject: "s", text: "t" }));
  assert.match(String(unknown?.message), /\(403 UnrecognizedClientException\)/);
});

Deno.test("[mail] the SES peer's SigV4 check holds for AWS's own test vector, not for a changed body", async () => {
  // AWS's published Signature Version 4 test suite, "get-vanilla".
  const request = {
    method: "GET",
    url: "https://example.amazonaws.com/",
    headers: new Headers({
      host: "example.amazonaws.com",
      "x-amz-date": "20150830T123600Z",
      authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/" +
        "aws4_request, SignedHeaders=host;x-amz-date, " +
        "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
    }),
    body: new Uint8Array(),
  };
  const credentials = {
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    region: "us-east-1",
    service: "service",
  };
  const at = new Date("2015-08-30T12:36:00Z");
  assert.equal(await sigV4Problem(request, credentials, at), null);
  const changed = { ...request, body: new TextEncoder().encode("x") };
  assert.equal((await sigV4Problem(changed, credentials, at))?.code, "SignatureDoesNotMatch");
  const late = new Date("2015-08-30T13:00:00Z");
  assert.equal((await sigV4Problem(request, credentials, late))?.code, "InvalidSignatureException");
});

Deno.test("[mail] SES v2: error answers and unreachable endpoints are readable MailErrors", async () => {
  await using ses = await startSes();
  const mailer = createMailer(loadConfig({ ...BASE, ...ses.env }).mail);
  const message = { to: "a@example.org", subject: "s", text: "t" };
  ses.failNext(1, {
    status: 400,
    code: "MessageRejected",
    message: "Email address is not verified. The following identities failed the check: x",
  });
  const rejected = await failure(mailer.send(message));
  assert.ok(rejected instanceof MailError);
  assert.equal(
    rejected.message,
    "SES refused the email (400 MessageRejected): Email address is not verified. " +
      "The following identities failed the check: x",
  );
  ses.failNext(1, { status: 503, code: "ServiceUnavailable", message: "Service unavailable" });
  assert.match(
    String((await failure(mailer.send(message)))?.message),
    /^SES refused the email \(503 ServiceUnavailable\)/,
  );
  // One request each: nothing is retried behind the mail job's back.
  assert.equal(ses.requests.length, 2);

  // The real local server's own answer to an unknown operation (no JSON, no error type).
  const wrongPath = createMailer(
    loadConfig({ ...BASE, ...ses.env, SES_ENDPOINT: `${ses.peerUrl}/nothing-here` }).mail,
  );
  const unknown = await failure(wrongPath.send(message));
  assert.equal(unknown?.message, "SES refused the email (404): <UnknownOperationException/>");

  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const nobody = createMailer(
    loadConfig({ ...BASE, ...ses.env, SES_ENDPOINT: `http://127.0.0.1:${port}` }).mail,
  );
  const unreachable = await failure(nobody.send(message));
  assert.ok(unreachable instanceof MailError);
  assert.match(unreachable.message, /^SES sending failed: /);
  for (const e of [rejected, unknown, unreachable]) {
    assert.equal(String(e?.message).includes(ses.secretAccessKey), false);
  }
});

Deno.test("[mail] SES v2: a refused email is a failed attempt, tried again later, sent once", async () => {
  await using ses = await startSes();
  await using ctx = await createTestApp({ env: ses.env, worker: true });
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  ses.failNext(1, {
    status: 400,
    code: "MessageRejected",
    message: "Email address is not verified.",
  });
  const res = await ctx.call("POST", "/trust/acme/subscriptions", {
    json: { email: "reader@x.test" },
  });
  assert.equal(res.status, 202);
  await res.body?.cancel();
  const confirmation = async () => {
    for await (const e of ctx.kv.list<MailDelivery>({ prefix: ["mail_deliveries"] })) {
      if (e.value.purpose === "confirmation") return e.value;
    }
    return null;
  };
  let first: MailDelivery | null = null;
  for (let i = 0; i < 200 && !first?.reason; i++) {
    await new Promise((r) => setTimeout(r, 25));
    first = await confirmation();
  }
  assert.equal(first?.status, "queued");
  assert.equal(first?.attempts, 1);
  assert.equal(
    first?.reason,
    "SES refused the email (400 MessageRejected): Email address is not verified.",
  );
  assert.ok(ctx.log.lines.some((l) => l.includes("trying again") && l.includes("MessageRejected")));
  assert.equal(ctx.log.lines.some((l) => l.includes(ses.secretAccessKey)), false);

  ctx.clock.advance(MAIL_BACKOFF_MS[0]);
  const sent = await ses.next((e) => e.stored.destination.to.includes("reader@x.test"), 15_000);
  assert.match(sent.stored.subject, /confirm/i);
  assert.match(sent.stored.body.text ?? "", /\/subscriptions\/confirm\//);
  const delivery = await confirmation();
  assert.equal(delivery?.status, "sent");
  assert.equal(delivery?.attempts, 2);
  // The Message-ID is the delivery's (attempts counted when it was composed).
  assert.equal(sent.mime.messageId, `<${delivery?.id}.1@trust.test>`);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await ses.stored()).length, 1);
  assert.deepEqual(ses.requests.map((r) => r.status), [400, 200]);
});

Deno.test("[mail] SES v2 configuration: what turns it on, and one line naming a bad variable", () => {
  const env = {
    SES_REGION: "eu-west-1",
    SES_ACCESS_KEY_ID: "AKIAIOSFODNN7EXAMPLE",
    SES_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  };
  const config = loadConfig(env).mail;
  assert.deepEqual(config, {
    transport: "ses",
    from: "Trust Profile Service <no-reply@localhost>",
    ses: {
      region: "eu-west-1",
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      endpoint: "https://email.eu-west-1.amazonaws.com",
      configurationSet: undefined,
    },
  });
  assert.equal(createMailer(config).describe, "SES v2 (region eu-west-1)");

  const refused = (extra: Record<string, string | undefined>) => {
    try {
      loadConfig({ ...env, ...extra });
    } catch (error) {
      return (error as Error).message;
    }
    assert.fail(`accepted ${JSON.stringify(extra)}`);
  };
  assert.equal(
    refused({ SMTP_URL: "smtp://mail.example.com:587" }),
    "Invalid configuration: SMTP_URL: set either SMTP_URL (SMTP) or SES_REGION (Amazon SES v2), not both",
  );
  assert.equal(
    refused({ SES_ACCESS_KEY_ID: undefined }),
    "Invalid configuration: SES_ACCESS_KEY_ID: required when SES_REGION is set",
  );
  assert.equal(
    refused({ SES_SECRET_ACCESS_KEY: undefined }),
    "Invalid configuration: SES_SECRET_ACCESS_KEY: required when SES_REGION is set",
  );
  assert.equal(
    refused({ SES_REGION: undefined }),
    "Invalid configuration: SES_REGION: required when SES_ACCESS_KEY_ID is set",
  );
  assert.match(refused({ SES_REGION: "Ireland" }), /^Invalid configuration: SES_REGION: /);
  assert.match(
    refused({ SES_ACCESS_KEY_ID: "short" }),
    /^Invalid configuration: SES_ACCESS_KEY_ID: /,
  );
  assert.match(refused({ SES_ENDPOINT: "ftp://x" }), /^Invalid configuration: SES_ENDPOINT: /);
  assert.match(
    refused({ SES_CONFIGURATION_SET: "has spaces" }),
    /^Invalid configuration: SES_CONFIGURATION_SET: /,
  );
  const spaced = refused({ SES_SECRET_ACCESS_KEY: "two words-secret" });
  assert.match(spaced, /^Invalid configuration: SES_SECRET_ACCESS_KEY: /);
  assert.equal(spaced.includes("words-secret"), false);
});

Deno.test("[mail] a cold start does not load nodemailer: only a dynamic import reaches it", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL("../../main.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: Array<{
      specifier: string;
      dependencies?: Array<{ code?: { specifier: string }; isDynamic?: boolean }>;
    }>;
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const staticallyLoaded = new Set<string>();
  const queue = [...info.roots];
  for (let i = 0; i < queue.length && i < 100_000; i++) {
    const specifier = queue[i];
    if (staticallyLoaded.has(specifier)) continue;
    staticallyLoaded.add(specifier);
    for (const dep of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (!dep.isDynamic && dep.code?.specifier) queue.push(dep.code.specifier);
    }
  }
  assert.ok(staticallyLoaded.has(new URL("../../src/mail/mod.ts", import.meta.url).href));
  const nodemailer = [...staticallyLoaded].filter((s) => /nodemailer/.test(s));
  assert.deepEqual(nodemailer, []);
});
