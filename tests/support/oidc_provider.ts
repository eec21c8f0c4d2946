/**
 * Test harness: a REAL OpenID provider (npm `oidc-provider`) running inside the Deno test
 * process on 127.0.0.1 with an ephemeral port. It issues REAL, provider-signed JWT access tokens
 * (RFC 9068, `typ: at+jwt`) for our API, obtained through the provider's own
 * authorization_code + PKCE (S256) flow driven over HTTP — no browser, no shortcuts:
 *
 *   GET  /auth?…&resource=<api>          → 303 /interaction/<uid>   (provider)
 *   GET  /interaction/<uid>              → {"prompt":"login"}       (this harness's "login page")
 *   POST /interaction/<uid>/login        → 303 /auth/<uid>          (interactionFinished)
 *   GET  /auth/<uid>                     → 303 /interaction/<uid2>  (provider: consent needed)
 *   POST /interaction/<uid2>/confirm     → 303 /auth/<uid2>         (grant saved, interactionFinished)
 *   GET  /auth/<uid2>                    → 303 http://127.0.0.1/cb?code=…  (never fetched)
 *   POST /token  code + code_verifier + resource=<api>  → { access_token: <JWT> }
 *
 * Every instance has its own signing key, its own in-memory storage and its own account store,
 * so several instances (e.g. a "wrong issuer") can run side by side.
 *
 * ```ts
 * await using idp = await startTestIdp({ resource: "http://127.0.0.1:8000" });
 * const token = await idp.tokenFor({ sub: "user-1", email: "a@example.com", name: "A" });
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as jose from "jose";
import { importOidcProvider } from "../deps.ts";

/** The user that logs in at the provider. `email` / `name` become access-token claims. */
export interface TestIdpUser {
  sub: string;
  email?: string;
  name?: string;
}

export interface TokenForOptions {
  /** Audience of the token (RFC 8707 resource indicator). Default: `startTestIdp`'s `resource`. */
  resource?: string;
  /**
   * Scope requested at the authorization endpoint. Default: `openid` + every scope of
   * `StartTestIdpOptions.scopes`. Only the resource-server scopes end up in the token's `scope`.
   */
  scope?: string;
}

export interface StartTestIdpOptions {
  /** Default audience: the resource server (our API) the tokens are for. */
  resource: string;
  /** Further resource indicators the provider accepts (tokens with a *different* `aud`). */
  extraResources?: string[];
  /** Scopes the resource servers offer; they appear in the token's `scope`. Default `["api"]`. */
  scopes?: string[];
  /** Access token lifetime in seconds (positive integer). Default 3600. */
  accessTokenTTL?: number;
  /** JWS algorithm of the provider's signing key (a fresh key per instance). Default RS256. */
  alg?: "RS256" | "ES256";
}

export interface TestIdp {
  /** e.g. `http://127.0.0.1:PORT` (no trailing slash; equals the tokens' `iss`). */
  issuer: string;
  /** The provider's JWKS endpoint (public signing keys). */
  jwksUri: string;
  /** `${issuer}/.well-known/openid-configuration` */
  discoveryUrl: string;
  /** The public client the harness logs in with. */
  clientId: string;
  /**
   * A real access token (JWT signed by the provider) for `options.resource` (default: the
   * instance's `resource`), obtained through the provider's authorization_code + PKCE flow.
   * Each call is a fresh browser-less "session": log in as `user`, consent, exchange the code.
   */
  tokenFor(user: TestIdpUser, options?: TokenForOptions): Promise<string>;
  /** Stops the server and frees the port. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const CLIENT_ID = "trust-profile-test-spa";
/** Loopback redirect URI; it is never fetched — the `code` is read from the Location header. */
const REDIRECT_URI = "http://127.0.0.1/cb";

// ---------------------------------------------------------------------------------------------
// Minimal typing of the parts of oidc-provider (which ships no .d.ts) that this harness uses.

interface OidcErrorLike extends Error {
  statusCode?: number;
  error?: string;
  error_description?: string;
}

interface GrantLike {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}

interface InteractionLike {
  uid: string;
  prompt: {
    name: string;
    reasons: string[];
    details: {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
  };
  params: Record<string, unknown>;
  grantId?: string;
  session?: { accountId?: string };
}

interface ProviderLike {
  issuer: string;
  urlFor(name: string, opts?: Record<string, string>): string;
  callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionLike>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    opts?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: {
    new (init: { accountId: string; clientId: string }): GrantLike;
    find(id: string): Promise<GrantLike | undefined>;
  };
}

interface OidcProviderModule {
  Provider: new (issuer: string, configuration: Record<string, unknown>) => ProviderLike;
  errors: { InvalidTarget: new (description?: string) => Error };
}

/** Token models as seen by `extraTokenClaims` (only the fields used here). */
interface TokenModelLike {
  kind: string;
  accountId?: string;
}

// ---------------------------------------------------------------------------------------------
// Quiet loading: oidc-provider prints "Unsupported runtime" (it only blesses Node LTS) when its
// module is evaluated under Deno, and "quick start" warnings for dev defaults. We configure away
// every dev default, and drop its console lines while the module loads / a provider is built.

let modulePromise: Promise<OidcProviderModule> | undefined;

async function quietly<T>(fn: () => Promise<T> | T): Promise<T> {
  const { warn, info } = console;
  const filter = (original: (...args: unknown[]) => void) => (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].includes("oidc-provider ")) return;
    original.apply(console, args);
  };
  console.warn = filter(warn);
  console.info = filter(info);
  try {
    return await fn();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}

function loadOidcProvider(): Promise<OidcProviderModule> {
  modulePromise ??= quietly(async () =>
    (await importOidcProvider()) as unknown as OidcProviderModule
  );
  return modulePromise;
}

// ---------------------------------------------------------------------------------------------
// Per-instance in-memory adapter (oidc-provider's built-in MemoryAdapter warns loudly; this one
// is also guaranteed not to share state between instances). No timers: expiry is checked lazily.

type Payload = Record<string, unknown>;

function createAdapterFactory() {
  const store = new Map<string, { payload: Payload; expiresAt?: number }>();
  const sessionUids = new Map<string, string>();
  const userCodes = new Map<string, string>();
  const grants = new Map<string, Set<string>>();

  class TestAdapter {
    constructor(private readonly model: string) {}

    private key(id: string): string {
      return `${this.model}:${id}`;
    }

    upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const key = this.key(id);
      store.set(key, {
        payload,
        expiresAt: typeof expiresIn === "number" ? Date.now() + expiresIn * 1000 : undefined,
      });
      if (this.model === "Session" && typeof payload.uid === "string") {
        sessionUids.set(payload.uid, id);
      }
      if (typeof payload.userCode === "string") userCodes.set(payload.userCode, id);
      if (typeof payload.grantId === "string") {
        let members = grants.get(payload.grantId);
        if (!members) grants.set(payload.grantId, members = new Set());
        members.add(key);
      }
      return Promise.resolve();
    }

    find(id: string | undefined): Promise<Payload | undefined> {
      if (id === undefined) return Promise.resolve(undefined);
      const key = this.key(id);
      const entry = store.get(key);
      if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
        store.delete(key);
        return Promise.resolve(undefined);
      }
      return Promise.resolve(entry?.payload);
    }

    findByUid(uid: string): Promise<Payload | undefined> {
      return this.find(sessionUids.get(uid));
    }

    findByUserCode(userCode: string): Promise<Payload | undefined> {
      return this.find(userCodes.get(userCode));
    }

    async consume(id: string): Promise<void> {
      const payload = await this.find(id);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }

    destroy(id: string): Promise<void> {
      store.delete(this.key(id));
      return Promise.resolve();
    }

    revokeByGrantId(grantId: string): Promise<void> {
      for (const key of grants.get(grantId) ?? []) store.delete(key);
      grants.delete(grantId);
      return Promise.resolve();
    }
  }

  return (model: string) => new TestAdapter(model);
}

// ---------------------------------------------------------------------------------------------
// Tiny cookie jar (name + path; enough for the provider's _session/_interaction/_resume cookies).

class CookieJar {
  #cookies = new Map<string, { name: string; value: string; path: string }>();

  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(";").map((part) => part.trim());
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = "/";
      let expired = value === "";
      for (const attribute of attributes) {
        const [key, val = ""] = attribute.split("=");
        const lower = key.toLowerCase();
        if (lower === "path" && val.startsWith("/")) path = val;
        if (lower === "max-age" && Number(val) <= 0) expired = true;
        if (lower === "expires" && Date.parse(val) <= Date.now()) expired = true;
      }
      const id = `${name}\u0000${path}`;
      if (expired) this.#cookies.delete(id);
      else this.#cookies.set(id, { name, value, path });
    }
  }

  header(url: URL): string | undefined {
    const matching = [...this.#cookies.values()].filter(({ path }) =>
      url.pathname === path || url.pathname.startsWith(path.endsWith("/") ? path : `${path}/`)
    );
    return matching.length
      ? matching.map(({ name, value }) => `${name}=${value}`).join("; ")
      : undefined;
  }
}

// ---------------------------------------------------------------------------------------------

function accessTokenClaims(user: TestIdpUser | undefined): Record<string, string> | undefined {
  if (!user) return undefined;
  const claims: Record<string, string> = {};
  if (user.email !== undefined) claims.email = user.email;
  if (user.name !== undefined) claims.name = user.name;
  return claims;
}

function randomToken(bytes = 32): string {
  return jose.base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  return new TextDecoder().decode(
    chunks.reduce((all, chunk) => {
      const merged = new Uint8Array(all.length + chunk.length);
      merged.set(all);
      merged.set(chunk, all.length);
      return merged;
    }, new Uint8Array()),
  );
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Content-Length", new TextEncoder().encode(text).length);
  res.end(text);
}

/** Starts an OpenID provider on 127.0.0.1:<ephemeral port>. Call `close()` (or `await using`). */
export async function startTestIdp(options: StartTestIdpOptions): Promise<TestIdp> {
  const defaultResource = options.resource;
  const resources = new Set([defaultResource, ...(options.extraResources ?? [])]);
  const resourceScopes = options.scopes ?? ["api"];
  const accessTokenTTL = options.accessTokenTTL ?? 3600;
  const alg = options.alg ?? "RS256";
  for (const resource of resources) {
    if (!URL.canParse(resource)) {
      throw new TypeError(`resource must be an absolute URI: ${resource}`);
    }
  }

  const { Provider, errors } = await loadOidcProvider();

  // A fresh signing key per instance: a second instance is a genuinely different issuer.
  const { privateKey } = await jose.generateKeyPair(alg, { extractable: true });
  const signingJwk = {
    ...(await jose.exportJWK(privateKey)),
    kid: randomToken(8),
    alg,
    use: "sig",
  };

  const accounts = new Map<string, TestIdpUser>();
  const serverErrors: unknown[] = [];

  // Listen first: the issuer identifier must contain the ephemeral port.
  // The request handler needs the provider, which needs the port: wired up once it exists.
  const app: { handle?: (req: IncomingMessage, res: ServerResponse) => Promise<void> } = {};
  const server = createServer((req, res) => {
    if (!app.handle) return sendJson(res, 503, { error: "temporarily_unavailable" });
    app.handle(req, res).catch((err) => {
      serverErrors.push(err);
      if (!res.headersSent) sendJson(res, 500, { error: "server_error" });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    const done = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await done;
  };

  let provider: ProviderLike;
  try {
    provider = await quietly(() =>
      new Provider(issuer, {
        adapter: createAdapterFactory(),
        jwks: { keys: [signingJwk] },
        cookies: { keys: [randomToken()] },
        clients: [{
          client_id: CLIENT_ID,
          token_endpoint_auth_method: "none", // public client → PKCE is required (S256 only)
          redirect_uris: [REDIRECT_URI],
          grant_types: ["authorization_code"],
          response_types: ["code"],
          id_token_signed_response_alg: alg,
        }],
        findAccount(_ctx: unknown, sub: string) {
          const user = accounts.get(sub);
          if (!user) return undefined;
          return {
            accountId: sub,
            claims: () => ({ sub, ...accessTokenClaims(user) }),
          };
        },
        extraTokenClaims(_ctx: unknown, token: TokenModelLike) {
          if (token.kind !== "AccessToken" || !token.accountId) return undefined;
          return accessTokenClaims(accounts.get(token.accountId));
        },
        // Errors as JSON (no HTML page, no "you SHOULD change renderError" notice).
        renderError(ctx: { type: string; body: unknown }, out: unknown) {
          ctx.type = "json";
          ctx.body = out;
        },
        // Explicit lifetimes (the defaults print "you SHOULD change ttl.*" notices when used).
        ttl: {
          AccessToken: accessTokenTTL,
          AuthorizationCode: 60,
          IdToken: 3600,
          Interaction: 600,
          Session: 3600,
          Grant: 3600,
        },
        interactions: {
          url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
        },
        features: {
          devInteractions: { enabled: false }, // we serve our own (JSON) interaction endpoints
          resourceIndicators: {
            enabled: true,
            defaultResource(_ctx: unknown, _client: unknown, oneOf?: string[]) {
              if (oneOf) return oneOf.includes(defaultResource) ? defaultResource : oneOf;
              return defaultResource;
            },
            useGrantedResource: () => true,
            getResourceServerInfo(_ctx: unknown, indicator: string) {
              if (!resources.has(indicator)) throw new errors.InvalidTarget();
              return {
                scope: resourceScopes.join(" "),
                audience: indicator,
                accessTokenTTL,
                accessTokenFormat: "jwt",
                jwt: { sign: { alg } },
              };
            },
          },
        },
      })
    );
  } catch (err) {
    await close();
    throw err;
  }
  // Koa only logs to the console when nobody listens for "error"; keep them for diagnostics.
  provider.on("error", (err) => serverErrors.push(err));
  provider.on("server_error", (_ctx, err) => serverErrors.push(err));

  const providerCallback = provider.callback();
  const interactionPath = /^\/interaction\/([^/]+)(?:\/(login|confirm|abort))?$/;

  async function interaction(req: IncomingMessage, res: ServerResponse, action?: string) {
    try {
      const details = await provider.interactionDetails(req, res);
      const { prompt } = details;
      if (!action) {
        if (req.method !== "GET") return sendJson(res, 405, { error: "method_not_allowed" });
        // Our "login page": tells the user agent what the provider wants.
        return sendJson(res, 200, {
          uid: details.uid,
          prompt: prompt.name,
          reasons: prompt.reasons,
          details: prompt.details,
        });
      }
      if (req.method !== "POST") return sendJson(res, 405, { error: "method_not_allowed" });
      const form = new URLSearchParams(await readBody(req));

      if (action === "abort") {
        return await provider.interactionFinished(req, res, {
          error: "access_denied",
          error_description: "End-User aborted interaction",
        }, { mergeWithLastSubmission: false });
      }

      if (action === "login") {
        if (prompt.name !== "login") {
          return sendJson(res, 400, { error: "invalid_request", error_description: "not a login" });
        }
        const accountId = form.get("login") ?? "";
        if (!accounts.has(accountId)) {
          return sendJson(res, 400, {
            error: "invalid_request",
            error_description: `unknown account ${JSON.stringify(accountId)}`,
          });
        }
        return await provider.interactionFinished(req, res, { login: { accountId } }, {
          mergeWithLastSubmission: false,
        });
      }

      // action === "confirm": grant everything the provider says is missing.
      if (prompt.name !== "consent") {
        return sendJson(res, 400, { error: "invalid_request", error_description: "not a consent" });
      }
      const { grantId, session, params } = details;
      const grant = (grantId ? await provider.Grant.find(grantId) : undefined) ??
        new provider.Grant({
          accountId: session?.accountId ?? "",
          clientId: String(params.client_id),
        });
      const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
      if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(" "));
      if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scopes.join(" "));
      }
      return await provider.interactionFinished(req, res, {
        consent: { grantId: await grant.save() },
      }, {
        mergeWithLastSubmission: true,
      });
    } catch (err) {
      const e = err as OidcErrorLike;
      if (res.headersSent) throw err;
      sendJson(res, e.statusCode ?? 500, {
        error: e.error ?? "server_error",
        error_description: e.error_description ?? e.message,
      });
    }
  }

  app.handle = (req, res) => {
    const match = interactionPath.exec(new URL(req.url ?? "/", issuer).pathname);
    if (match) return interaction(req, res, match[2]);
    return providerCallback(req, res);
  };

  const authorizationEndpoint = provider.urlFor("authorization");
  const tokenEndpoint = provider.urlFor("token");

  function failure(message: string): Error {
    const detail = serverErrors.length
      ? `\nprovider errors:\n${
        serverErrors.map((e) => String((e as Error)?.stack ?? e)).join("\n")
      }`
      : "";
    return new Error(`test IdP (${issuer}): ${message}${detail}`);
  }

  async function tokenFor(user: TestIdpUser, opts: TokenForOptions = {}): Promise<string> {
    if (closed) throw failure("closed");
    if (!user.sub) throw new TypeError("tokenFor: user.sub must be a non-empty string");
    accounts.set(user.sub, { ...user });

    const resource = opts.resource ?? defaultResource;
    const scope = opts.scope ?? ["openid", ...resourceScopes].join(" ");
    const codeVerifier = randomToken(32);
    const codeChallenge = jose.base64url.encode(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(codeVerifier))),
    );
    const state = randomToken(16);
    const jar = new CookieJar(); // a fresh "browser" per call: no session carried between users

    const request = async (url: URL, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set("accept", "application/json");
      const cookie = jar.header(url);
      if (cookie) headers.set("cookie", cookie);
      const response = await fetch(url, { ...init, headers, redirect: "manual" });
      jar.store(response);
      const body = await response.text(); // always drain: no leaked response bodies
      return { response, body, location: response.headers.get("location") };
    };

    const authorize = new URL(authorizationEndpoint);
    authorize.search = new URLSearchParams({
      client_id: CLIENT_ID,
      response_type: "code",
      redirect_uri: REDIRECT_URI,
      scope,
      state,
      code_challenge: codeChallenge,
      code_challenge_method: "S256",
      resource,
    }).toString();

    let url = authorize;
    let step = await request(url);
    let callback: URL | undefined;
    for (let hops = 0; hops < 12; hops++) {
      if (!step.location || step.response.status < 300 || step.response.status >= 400) {
        throw failure(
          `expected a redirect from ${url.pathname}, got ${step.response.status}: ${step.body}`,
        );
      }
      const next = new URL(step.location, url);
      if (`${next.origin}${next.pathname}` === REDIRECT_URI) {
        callback = next;
        break;
      }
      url = next;
      const match = interactionPath.exec(next.pathname);
      if (next.origin === issuer && match && !match[2]) {
        const page = await request(next);
        if (!page.response.ok) {
          throw failure(`interaction ${next.pathname}: ${page.response.status} ${page.body}`);
        }
        const { prompt } = JSON.parse(page.body) as { prompt: string };
        const form = prompt === "login"
          ? new URLSearchParams({ login: user.sub })
          : prompt === "consent"
          ? new URLSearchParams()
          : undefined;
        if (!form) throw failure(`unsupported interaction prompt ${JSON.stringify(prompt)}`);
        url = new URL(`${next.pathname}/${prompt === "login" ? "login" : "confirm"}`, issuer);
        step = await request(url, { method: "POST", body: form });
      } else {
        step = await request(next);
      }
    }
    if (!callback) throw failure("too many redirects in the authorization flow");

    const result = callback.searchParams;
    if (result.get("error")) {
      throw failure(
        `authorization error ${result.get("error")}: ${result.get("error_description")}`,
      );
    }
    if (result.get("state") !== state) throw failure("state mismatch in authorization response");
    if (result.has("iss") && result.get("iss") !== issuer) throw failure("iss mismatch (RFC 9207)");
    const code = result.get("code");
    if (!code) throw failure(`no code in authorization response ${callback}`);

    const token = await request(new URL(tokenEndpoint), {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: CLIENT_ID,
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: codeVerifier,
        resource,
      }),
    });
    if (!token.response.ok) throw failure(`token endpoint ${token.response.status}: ${token.body}`);
    const { access_token: accessToken } = JSON.parse(token.body) as { access_token?: string };
    if (!accessToken) throw failure(`no access_token in token response: ${token.body}`);
    return accessToken;
  }

  return {
    issuer,
    jwksUri: provider.urlFor("jwks"),
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    clientId: CLIENT_ID,
    tokenFor,
    close,
    [Symbol.asyncDispose]: close,
  };
}
