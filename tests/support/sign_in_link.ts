/**
 * Drives the sign-in form and the "Email me a sign-in link" request over HTTP like a browser
 * would (cookies, the CSRF field, one authorization request with PKCE S256), and locks an
 * address the way failed attempts from elsewhere do.
 */
import { beginLoginAttempt } from "../../src/auth/throttle.ts";
import { SIGN_IN_LINK_DELAY_MS } from "../../src/auth/builtin/sign_in_link.ts";
import type { Clock, fakeClock } from "../../src/lib/clock.ts";
import { encodeBase64Url, randomToken } from "../../src/lib/encoding.ts";
import { CookieJar, hiddenField } from "./builtin_login.ts";
import type { TestServer } from "./server.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** The URL of an emailed link, with its token as the first group. */
export const LINK = /http:\/\/127\.0\.0\.1:\d+\/oauth2\/sign-in-link\/([A-Za-z0-9_-]{43})/;
export const LINK_SUBJECT = "Your one-time sign-in link";

async function s256(verifier: string) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return encodeBase64Url(new Uint8Array(digest));
}

/** A browser at the sign-in form of a new authorization request (PKCE S256). */
export async function openSignIn(base: string, options: { email: string }) {
  const verifier = randomToken(48);
  const state = randomToken(8);
  const query = new URLSearchParams({
    response_type: "code",
    client_id: "dashboard",
    redirect_uri: "http://127.0.0.1:9/callback",
    code_challenge: await s256(verifier),
    code_challenge_method: "S256",
    state,
    scope: "api",
  });
  const jar = new CookieJar();
  const page = await fetch(`${base}/oauth2/authorize?${query}`);
  jar.take(page);
  let html = await page.text();
  const post = async (path: string, fields: Record<string, string>) => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { ...FORM, cookie: jar.header() },
      body: new URLSearchParams({ ...Object.fromEntries(query), ...fields }),
    });
    jar.take(res);
    return res;
  };
  return {
    verifier,
    state,
    /** Submits the password form; the page answered becomes the current one. */
    async signIn(password: string, email = options.email) {
      const res = await post("/oauth2/authorize", {
        csrf: hiddenField(html, "csrf"),
        email,
        password,
      });
      html = res.status === 303 ? "" : await res.text();
      return { res, html };
    },
    /** Submits the "Email me a sign-in link" form of the current page. */
    async askForLink(email = options.email) {
      const res = await post("/oauth2/authorize/email-link", {
        csrf: hiddenField(html, "csrf"),
        email,
      });
      return { res, html: await res.text() };
    },
  };
}

/** Locks password sign-in for `email` over HTTP, with wrong passwords from this client. */
export async function lockOut(base: string, email: string) {
  const attacker = await openSignIn(base, { email });
  for (let i = 0; i < 6; i++) {
    const { res } = await attacker.signIn(`guess ${i}`, email);
    if (res.status === 429) return;
  }
  throw new Error("the address did not lock");
}

/**
 * Locks password sign-in for `email` as failed attempts from another client address
 * (`ip`) would, without HTTP: this client's own address stays unlocked.
 */
export async function lockAddress(
  kv: Deno.Kv,
  email: string,
  options: { clock: Clock; ip?: string },
) {
  for (let i = 0; i < 6; i++) {
    try {
      await beginLoginAttempt(kv, { email, ip: options.ip ?? "192.0.2.1" }, options.clock.now());
    } catch {
      return; // rate_limited: the address is locked
    }
  }
  throw new Error("the address did not lock");
}

/**
 * Runs the staged link requests: moves a fake clock past their delay, runs the jobs due and
 * waits until none runs or is due. Claimed here too, since a loop asleep when a fake clock
 * jumps past its wake-up time does not see new work until it wakes.
 */
export async function runJobs(server: TestServer, clock: ReturnType<typeof fakeClock>) {
  clock.advance(SIGN_IN_LINK_DELAY_MS);
  await server.services.jobs.runDue();
  await server.services.jobs.settled();
}
