/**
 * Amazon SES v2 for tests: the real `aws-ses-v2-local` package (an Express server that keeps
 * every email it is sent and lists them at `GET /store`) on 127.0.0.1, behind a small front
 * on 127.0.0.1 that does what the local server leaves out:
 *
 * - it checks each request's SigV4 signature against the test's credentials, as SES does,
 *   with its own implementation (not aws4fetch's), and answers a bad one with SES's
 *   `SignatureDoesNotMatch` (403);
 * - it keeps each request as sent, with the raw MIME message of `Content.Raw.Data` parsed by
 *   mailparser: the local server's store keeps the parsed From, To, subject and bodies of a
 *   raw message but none of its headers (Message-ID, List-Unsubscribe);
 * - `failNext` answers the next requests with an SES error (status, `x-amzn-ErrorType`, JSON
 *   `message`) instead of passing them on.
 *
 * Everything else is passed to the local server, which answers it. Waiting is bounded: `next`
 * gives up after its timeout.
 */
import { Buffer } from "node:buffer";
import { importSesV2Local, type ParsedMail, simpleParser } from "../deps.ts";

/** An email as aws-ses-v2-local keeps it (`GET /store`). */
export interface StoredEmail {
  messageId: string;
  from: string;
  replyTo: string[];
  destination: { to: string[]; cc: string[]; bcc: string[] };
  subject: string;
  body: { text?: string; html?: string };
  at: number;
}

/** One request the front received, and what it answered. */
export interface SesRequest {
  method: string;
  path: string;
  authorization: string;
  /** The JSON body (SES v2 `SendEmail`), or null when it was not JSON. */
  body: Record<string, unknown> | null;
  status: number;
  /** SES's MessageId when the email was accepted. */
  messageId?: string;
}

/** An accepted email: the local server's record, and the raw MIME message as sent. */
export interface SentEmail {
  stored: StoredEmail;
  /** `Content.Raw.Data`, decoded. */
  raw: string;
  /** The raw message parsed by mailparser (headers included). */
  mime: ParsedMail;
  request: SesRequest;
}

export interface TestSes {
  /** The front's base URL, for SES_ENDPOINT. */
  url: string;
  /** aws-ses-v2-local itself, without the front. */
  peerUrl: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** SES_REGION, SES_ACCESS_KEY_ID, SES_SECRET_ACCESS_KEY and SES_ENDPOINT for the service. */
  env: Record<string, string>;
  /** Every request the front received, in arrival order. */
  requests: SesRequest[];
  /** The local server's store (`GET /store`): every email it accepted through this front. */
  stored(): Promise<StoredEmail[]>;
  /** The first accepted email (already sent or still to come) matching `match`. */
  next(match?: (email: SentEmail) => boolean, timeoutMs?: number): Promise<SentEmail>;
  /** Answers the next `count` requests with this SES error instead of passing them on. */
  failNext(count: number, error: { status: number; code: string; message: string }): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const encoder = new TextEncoder();
const hex = (bytes: ArrayBuffer | Uint8Array) =>
  [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
const sha256 = async (data: Uint8Array<ArrayBuffer> | string) =>
  hex(
    await crypto.subtle.digest("SHA-256", typeof data === "string" ? encoder.encode(data) : data),
  );

async function hmac(
  key: Uint8Array<ArrayBuffer> | string,
  data: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const raw = typeof key === "string" ? encoder.encode(key) : key;
  const k = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, encoder.encode(data)));
}

/** RFC 3986 encoding, as SigV4's canonical request wants it. */
const uriEncode = (s: string) =>
  encodeURIComponent(s).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/**
 * Why a request's SigV4 signature does not hold for these credentials, or null when it does
 * (AWS Signature Version 4: canonical request, string to sign, derived signing key).
 */
export async function sigV4Problem(
  request: { method: string; url: string; headers: Headers; body: Uint8Array<ArrayBuffer> },
  credentials: { accessKeyId: string; secretAccessKey: string; region: string; service: string },
  now = new Date(),
): Promise<{ code: string; message: string } | null> {
  const authorization = request.headers.get("authorization") ?? "";
  const parsed = authorization.match(
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/,
  );
  if (!parsed) {
    return { code: "MissingAuthenticationTokenException", message: "Missing Authentication Token" };
  }
  const [, keyId, date, region, service, signedHeaders, signature] = parsed;
  if (keyId !== credentials.accessKeyId) {
    return {
      code: "UnrecognizedClientException",
      message: "The security token included in the request is invalid.",
    };
  }
  if (region !== credentials.region || service !== credentials.service) {
    return {
      code: "SignatureDoesNotMatch",
      message:
        `Credential should be scoped to region ${credentials.region}, service ${credentials.service}`,
    };
  }
  const amzDate = request.headers.get("x-amz-date") ?? "";
  const at = Date.parse(
    amzDate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, "$1-$2-$3T$4:$5:$6Z"),
  );
  if (!amzDate.startsWith(date) || !(Math.abs(now.getTime() - at) < 15 * 60_000)) {
    return { code: "InvalidSignatureException", message: `Signature expired: ${amzDate}` };
  }
  const url = new URL(request.url);
  const names = signedHeaders.split(";");
  if (!names.includes("host")) {
    return { code: "SignatureDoesNotMatch", message: "The host header is not signed" };
  }
  const canonicalQuery = [...url.searchParams]
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .sort()
    .join("&");
  const canonicalHeaders = names
    .map((name) => `${name}:${(request.headers.get(name) ?? "").trim().replace(/\s+/g, " ")}\n`)
    .join("");
  const canonicalRequest = [
    request.method,
    // Services other than S3 encode the (already encoded) path once more.
    url.pathname.split("/").map(uriEncode).join("/"),
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    await sha256(request.body),
  ].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, await sha256(canonicalRequest)]
    .join("\n");
  let key = await hmac(`AWS4${credentials.secretAccessKey}`, date);
  for (const part of [region, service, "aws4_request"]) key = await hmac(key, part);
  const expected = hex(await hmac(key, stringToSign));
  if (expected !== signature) {
    return {
      code: "SignatureDoesNotMatch",
      message: "The request signature we calculated does not match the signature you provided. " +
        "Check your AWS Secret Access Key and signing method.",
    };
  }
  return null;
}

const randomText = (alphabet: string, length: number) =>
  [...crypto.getRandomValues(new Uint8Array(length))]
    .map((b) => alphabet[b % alphabet.length])
    .join("");

/** SES's JSON error answer. */
function sesErrorResponse(status: number, code: string, message: string): Response {
  return Response.json({ message }, {
    status,
    headers: {
      "x-amzn-errortype": `${code}:http://internal.amazon.com/coral/com.amazon.coral.service/`,
    },
  });
}

/** Starts aws-ses-v2-local and its front on 127.0.0.1 with fresh credentials. */
export async function startSes(options: { region?: string } = {}): Promise<TestSes> {
  const region = options.region ?? "us-east-1";
  const accessKeyId = `AKIA${randomText("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`;
  const secretAccessKey = randomText(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    40,
  );
  const local = await importSesV2Local();
  const peer = await local.default.default({ host: "127.0.0.1", port: 0 });
  const peerUrl = `http://127.0.0.1:${(peer.address() as { port: number }).port}`;
  const requests: SesRequest[] = [];
  const failures: { status: number; code: string; message: string }[] = [];

  const front = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const bytes = new Uint8Array(await req.arrayBuffer());
    const url = new URL(req.url);
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      // not JSON: kept as null
    }
    const seen: SesRequest = {
      method: req.method,
      path: url.pathname,
      authorization: req.headers.get("authorization") ?? "",
      body,
      status: 0,
    };
    requests.push(seen);
    const problem = await sigV4Problem(
      { method: req.method, url: req.url, headers: req.headers, body: bytes },
      { accessKeyId, secretAccessKey, region, service: "ses" },
    );
    if (problem) {
      seen.status = 403;
      return sesErrorResponse(403, problem.code, problem.message);
    }
    const failure = failures.shift();
    if (failure) {
      seen.status = failure.status;
      return sesErrorResponse(failure.status, failure.code, failure.message);
    }
    const answer = await fetch(`${peerUrl}${url.pathname}${url.search}`, {
      method: req.method,
      headers: {
        authorization: seen.authorization,
        "content-type": req.headers.get("content-type") ?? "application/json",
      },
      body: req.method === "GET" || req.method === "HEAD" ? undefined : bytes,
    });
    const text = await answer.text();
    seen.status = answer.status;
    if (answer.ok) {
      try {
        seen.messageId = JSON.parse(text).MessageId;
      } catch {
        // an answer without a MessageId
      }
    }
    return new Response(text, {
      status: answer.status,
      headers: { "content-type": answer.headers.get("content-type") ?? "text/plain" },
    });
  });

  // aws-ses-v2-local keeps one store per process: this front's emails are those it passed on.
  const stored = async (): Promise<StoredEmail[]> => {
    const res = await fetch(`${peerUrl}/store`);
    const ours = new Set(requests.map((r) => r.messageId).filter(Boolean));
    return ((await res.json()).emails as StoredEmail[]).filter((e) => ours.has(e.messageId));
  };
  const parsed = new Map<string, { raw: string; mime: ParsedMail }>();
  const taken = new Set<string>();
  const sentEmails = async (): Promise<SentEmail[]> => {
    const accepted = requests.filter((r) => r.messageId && !taken.has(r.messageId));
    if (accepted.length === 0) return [];
    const store = await stored();
    const found: SentEmail[] = [];
    for (const request of accepted) {
      const record = store.find((e) => e.messageId === request.messageId);
      if (!record) continue;
      if (!parsed.has(request.messageId!)) {
        const data = (request.body?.Content as { Raw?: { Data?: string } })?.Raw?.Data ?? "";
        const raw = Buffer.from(data, "base64").toString("utf8");
        parsed.set(request.messageId!, { raw, mime: await simpleParser(raw) });
      }
      found.push({ stored: record, ...parsed.get(request.messageId!)!, request });
    }
    return found;
  };

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await front.shutdown();
    peer.closeAllConnections();
    await new Promise<void>((resolve) => peer.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${front.addr.port}`,
    peerUrl,
    region,
    accessKeyId,
    secretAccessKey,
    env: {
      SES_REGION: region,
      SES_ACCESS_KEY_ID: accessKeyId,
      SES_SECRET_ACCESS_KEY: secretAccessKey,
      SES_ENDPOINT: `http://127.0.0.1:${front.addr.port}`,
    },
    requests,
    stored,
    async next(match = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const email = (await sentEmails()).find(match);
        if (email) {
          taken.add(email.request.messageId!);
          return email;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(
        `No matching email within ${timeoutMs} ms (${requests.length} requests: ${
          requests.map((r) => r.status).join(", ")
        })`,
      );
    },
    failNext(count, error) {
      for (let i = 0; i < count; i++) failures.push(error);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
