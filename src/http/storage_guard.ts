/**
 * No silent loss: while the KV is not proven to outlive the isolate (src/store/kv_persistence.ts),
 * accounts are not created and evidence is not accepted. Sign-up (`/signup`: the first-run page
 * and its form) and every ingest (`POST /ingest/…`) answer 503 with what to do; everything else
 * passes. It wraps the app's fetch handler, so it holds whatever route a request would reach.
 * A subject signing in for the first time (an OpenID provider's token: its user record is
 * created on first sight, src/http/auth.ts) is refused the same way by `refuseUnlessWritable`.
 */
import { unavailable } from "../domain/errors.ts";
import { html } from "../lib/html.ts";
import type { KvPersistence } from "../store/kv_persistence.ts";
import { pageHeaders, renderPage } from "./html.ts";

type Handler = (request: Request, info?: unknown) => Response | Promise<Response>;

/** Seconds a client should wait before trying again. */
const RETRY_AFTER_SECONDS = 60;

/**
 * Throws the same refusal (503, `unavailable`, Retry-After) as an AppError while `persistence`
 * is not writable: for what creates an account past the request guard, a signed-in subject's
 * first user record (an OpenID provider's first sign-in).
 */
export async function refuseUnlessWritable(persistence: KvPersistence | undefined): Promise<void> {
  if (!persistence) return;
  const status = await persistence.check();
  if (!status.writable) {
    throw unavailable(status.action ?? "Storage is not persistent", RETRY_AFTER_SECONDS);
  }
}

/** The requests that create an account or accept evidence. */
export function createsAccountOrEvidence(request: Request): boolean {
  const { pathname } = new URL(request.url);
  if (pathname === "/signup") return request.method === "GET" || request.method === "POST";
  return request.method === "POST" && pathname.startsWith("/ingest/");
}

/** The 503 for `request` while the KV is not proven: a page for the form, else the envelope. */
export function storageRefusal(request: Request, action: string): Response {
  const headers = new Headers({
    "retry-after": String(RETRY_AFTER_SECONDS),
    "cache-control": "no-store",
  });
  if (request.method === "GET") {
    for (const [name, value] of Object.entries(pageHeaders())) headers.set(name, value);
    headers.set("cache-control", "no-store");
    const body = html`
      <h1>Not accepting accounts yet</h1>
      <p class="error" role="alert">${action}</p>
      <p>The readiness probe (<a href="/health/ready">/health/ready</a>) says the same.</p>
    `;
    return new Response(renderPage("Storage not persistent", body), { status: 503, headers });
  }
  headers.set("content-type", "application/json; charset=utf-8");
  return new Response(
    JSON.stringify({ error: { code: "unavailable", message: action } }),
    { status: 503, headers },
  );
}

/** `handler`, refusing account creation and evidence while `persistence` is not writable. */
export function guardStorage(persistence: KvPersistence, handler: Handler): Handler {
  return async (request, info) => {
    if (!createsAccountOrEvidence(request)) return handler(request, info);
    const status = await persistence.check();
    if (status.writable) return handler(request, info);
    await request.body?.cancel().catch(() => {});
    return storageRefusal(request, status.action ?? "Storage is not persistent");
  };
}
