/**
 * Sign-in for a public OAuth 2.0 client: the authorization code flow with
 * PKCE S256 (RFC 7636), the `iss` response parameter checked (RFC 9207),
 * tokens kept in this tab's sessionStorage and renewed with the
 * refresh_token grant. A sign-in under way is kept in localStorage by its
 * `state`, so the tab an emailed sign-in link opens can complete it too.
 */

const SESSION_KEY = "tp.session";
const PENDING_PREFIX = "tp.signin.";
/** Sign-ins under way are forgotten after this long (the emailed link lives 15 minutes). */
const PENDING_TTL_MS = 60 * 60 * 1000;
/** Renew this long before the access token's stated expiry, to absorb clock skew and latency. */
const EXPIRY_MARGIN_MS = 30_000;

/** A sign-in that could not complete; the message is for the user. */
export class SignInError extends Error {}

function base64url(bytes) {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function randomString(byteLength) {
  return base64url(crypto.getRandomValues(new Uint8Array(byteLength)));
}

async function s256(verifier) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

async function fetchJson(url, what) {
  const res = await fetch(url, { headers: { accept: "application/json" } });
  if (!res.ok) throw new Error(`Could not load ${what} (HTTP ${res.status})`);
  return await res.json();
}

/** The dashboard's sign-in settings and the authorization server's RFC 8414 metadata. */
export async function loadAuthSettings() {
  const config = await fetchJson("/dashboard/config.json", "the dashboard settings");
  const metadata = await fetchJson(
    config.authorizationServerMetadata,
    "the authorization server metadata",
  );
  if (metadata.issuer !== config.issuer) {
    throw new Error("The authorization server metadata names a different issuer");
  }
  return { config, metadata };
}

function readJson(key, storage = sessionStorage) {
  try {
    return JSON.parse(storage.getItem(key) ?? "null");
  } catch {
    return null;
  }
}

/** Drops the sign-ins under way that are older than PENDING_TTL_MS (all with `every`). */
function dropPending(every = false) {
  for (let i = localStorage.length - 1; i >= 0; i--) {
    const key = localStorage.key(i);
    if (!key?.startsWith(PENDING_PREFIX)) continue;
    const pending = readJson(key, localStorage);
    if (every || !pending || !(Date.now() - pending.startedAt < PENDING_TTL_MS)) {
      localStorage.removeItem(key);
    }
  }
}

/** The signed-in session of this tab and the calls that keep it alive. */
export class Auth {
  #config;
  #metadata;
  #refreshing = null;
  /** Called once when the session cannot be renewed any more. */
  onSessionEnd = () => {};

  constructor({ config, metadata }) {
    this.#config = config;
    this.#metadata = metadata;
  }

  get config() {
    return this.#config;
  }

  isSignedIn() {
    return readJson(SESSION_KEY)?.accessToken !== undefined;
  }

  /** Sends the browser to the authorization endpoint; `returnHash` is restored afterwards. */
  async beginSignIn(returnHash = "") {
    const verifier = randomString(32);
    const state = randomString(24);
    dropPending();
    localStorage.setItem(
      PENDING_PREFIX + state,
      JSON.stringify({ verifier, state, returnHash, startedAt: Date.now() }),
    );
    const url = new URL(this.#metadata.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: this.#config.clientId,
      redirect_uri: this.#config.redirectUri,
      scope: this.#config.scope,
      state,
      code_challenge: await s256(verifier),
      code_challenge_method: "S256",
    }).toString();
    location.assign(url.toString());
  }

  /** Whether `url` is the authorization server's answer to a sign-in. */
  static isCallback(url) {
    return url.searchParams.has("state") &&
      (url.searchParams.has("code") || url.searchParams.has("error"));
  }

  /**
   * Completes the sign-in from the callback URL: checks `state` and `iss`,
   * exchanges the code for tokens and returns the hash to go back to.
   */
  async completeSignIn(url) {
    const params = url.searchParams;
    const key = PENDING_PREFIX + (params.get("state") ?? "");
    const pending = readJson(key, localStorage);
    localStorage.removeItem(key);
    if (!pending || params.get("state") !== pending.state) {
      throw new SignInError("This sign-in response does not match a sign-in started here");
    }
    const iss = params.get("iss");
    if (iss !== null && iss !== this.#metadata.issuer) {
      throw new SignInError("The sign-in response came from an unexpected issuer");
    }
    if (params.has("error")) {
      const description = params.get("error_description");
      throw new SignInError(
        description ? `Sign-in failed: ${description}` : `Sign-in failed (${params.get("error")})`,
      );
    }
    await this.#tokenRequest({
      grant_type: "authorization_code",
      code: params.get("code"),
      redirect_uri: this.#config.redirectUri,
      client_id: this.#config.clientId,
      code_verifier: pending.verifier,
    });
    return pending.returnHash ?? "";
  }

  /** A current access token, renewed first when it is about to expire; null when signed out. */
  async accessToken() {
    const session = readJson(SESSION_KEY);
    if (!session) return null;
    if (Date.now() < session.expiresAt - EXPIRY_MARGIN_MS) return session.accessToken;
    return await this.refresh();
  }

  /**
   * Renews the access token with the refresh token. Concurrent callers share
   * one request: refresh tokens rotate, and presenting one twice ends the session.
   */
  refresh() {
    this.#refreshing ??= this.#doRefresh().finally(() => (this.#refreshing = null));
    return this.#refreshing;
  }

  async #doRefresh() {
    const session = readJson(SESSION_KEY);
    if (!session?.refreshToken) {
      this.endSession();
      return null;
    }
    try {
      await this.#tokenRequest({
        grant_type: "refresh_token",
        refresh_token: session.refreshToken,
        client_id: this.#config.clientId,
      });
    } catch (error) {
      if (error instanceof SignInError) {
        this.endSession();
        return null;
      }
      throw error;
    }
    return readJson(SESSION_KEY).accessToken;
  }

  async #tokenRequest(form) {
    let res;
    try {
      res = await fetch(this.#metadata.token_endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: new URLSearchParams(form),
      });
    } catch {
      throw new Error("The sign-in service cannot be reached; check your connection");
    }
    const body = await res.json().catch(() => ({}));
    if (!res.ok || typeof body.access_token !== "string") {
      throw new SignInError(
        body.error_description ?? `The token request failed (HTTP ${res.status})`,
      );
    }
    const previous = readJson(SESSION_KEY);
    const lifetime = Number.isFinite(body.expires_in) ? body.expires_in : 300;
    sessionStorage.setItem(
      SESSION_KEY,
      JSON.stringify({
        accessToken: body.access_token,
        refreshToken: body.refresh_token ?? previous?.refreshToken ?? null,
        expiresAt: Date.now() + lifetime * 1000,
      }),
    );
  }

  /**
   * Ends the session at the provider too (RFC 7009), when it offers revocation: the refresh
   * token, and every token rotated from the same sign-in, stop working. Best effort; it reads
   * the token at once, so the caller may clear storage right after.
   */
  revoke() {
    const refreshToken = readJson(SESSION_KEY)?.refreshToken;
    const endpoint = this.#metadata?.revocation_endpoint;
    if (!refreshToken || !endpoint) return Promise.resolve();
    return fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: refreshToken,
        token_type_hint: "refresh_token",
        client_id: this.#config.clientId,
      }),
      keepalive: true,
    }).then((res) => res.body?.cancel(), () => {});
  }

  /** Forgets the tokens and tells the app (once per session). */
  endSession() {
    const had = this.isSignedIn();
    this.clear();
    if (had) this.onSessionEnd();
  }

  /** Signs out of this tab: every token and pending sign-in is dropped. */
  clear() {
    sessionStorage.removeItem(SESSION_KEY);
    dropPending(true);
  }
}
