/**
 * Drives the built-in identity provider over HTTP like a browser would,
 * without one: sign-up form, sign-in form, PKCE, token exchange.
 */
import { encodeBase64Url, randomToken } from "../../src/lib/encoding.ts";

/** Cookies by name, fed from Set-Cookie headers and sent back as Cookie. */
export class CookieJar {
  #cookies = new Map<string, string>();
  take(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      this.#cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
  header(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/** The value of a hidden input in an HTML form. */
export function hiddenField(html: string, name: string): string {
  const match = html.match(new RegExp(`name="${name}" value="([^"]*)"`));
  if (!match) throw new Error(`No field "${name}" in the page`);
  return match[1];
}

function form(fields: Record<string, string>) {
  return new URLSearchParams(fields).toString();
}

/**
 * Creates an account through GET/POST /signup; `query` is `setup=…`, `invitation=…` or empty.
 * The answer is not followed: 303 to the dashboard (with the one-time sign-in cookie) on success.
 */
export async function signUp(
  baseUrl: string,
  query: string,
  account: { email: string; name: string; password: string },
): Promise<Response> {
  const jar = new CookieJar();
  const page = await fetch(`${baseUrl}/signup${query ? `?${query}` : ""}`);
  jar.take(page);
  const html = await page.text();
  if (page.status !== 200) return new Response(html, { status: page.status });
  const params = new URLSearchParams(query);
  const fields: Record<string, string> = { csrf: hiddenField(html, "csrf"), ...account };
  for (const [k, v] of params) fields[k] = v;
  return await fetch(`${baseUrl}/signup`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
    body: form(fields),
  });
}

export interface AuthorizeResult {
  response: Response;
  code: string | null;
  verifier: string;
  redirectUri: string;
}

async function s256(verifier: string) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return encodeBase64Url(new Uint8Array(digest));
}

/** Opens the sign-in form and submits it; returns the code from the redirect (or null). */
export async function authorize(
  baseUrl: string,
  credentials: { email: string; password: string },
  options: {
    clientId?: string;
    redirectUri?: string;
    verifier?: string;
    /** Extra headers on the form submission (e.g. `X-Forwarded-For`). */
    headers?: Record<string, string>;
  } = {},
): Promise<AuthorizeResult> {
  const verifier = options.verifier ?? randomToken(48);
  const redirectUri = options.redirectUri ?? "http://127.0.0.1:9/callback";
  const state = randomToken(8);
  const query = new URLSearchParams({
    response_type: "code",
    client_id: options.clientId ?? "dashboard",
    redirect_uri: redirectUri,
    code_challenge: await s256(verifier),
    code_challenge_method: "S256",
    state,
    scope: "api",
  });
  const jar = new CookieJar();
  const page = await fetch(`${baseUrl}/oauth2/authorize?${query}`);
  jar.take(page);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`authorize page answered ${page.status}: ${html}`);
  const fields: Record<string, string> = { csrf: hiddenField(html, "csrf"), ...credentials };
  for (const [k, v] of query) fields[k] = v;
  const response = await fetch(`${baseUrl}/oauth2/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: {
      ...options.headers,
      "content-type": "application/x-www-form-urlencoded",
      cookie: jar.header(),
    },
    body: form(fields),
  });
  let code: string | null = null;
  const location = response.headers.get("location");
  if (location) {
    const url = new URL(location);
    if (url.searchParams.get("state") !== state) throw new Error("state mismatch");
    code = url.searchParams.get("code");
  }
  return { response, code, verifier, redirectUri };
}

/** POSTs a form to /oauth2/token. */
export async function tokenRequest(baseUrl: string, fields: Record<string, string>) {
  return await fetch(`${baseUrl}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form(fields),
  });
}

/** Signs in with email and password and returns the token response. */
export async function login(
  baseUrl: string,
  credentials: { email: string; password: string },
): Promise<{ access_token: string; refresh_token: string }> {
  const { code, verifier, redirectUri, response } = await authorize(baseUrl, credentials);
  if (!code) throw new Error(`sign-in failed with ${response.status}`);
  await response.body?.cancel();
  const res = await tokenRequest(baseUrl, {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    client_id: "dashboard",
    code_verifier: verifier,
  });
  if (res.status !== 200) throw new Error(`token exchange failed: ${await res.text()}`);
  return await res.json();
}
