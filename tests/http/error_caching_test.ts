/**
 * Error answers that caches handle right: a shared cache (the CDN in front, DESIGN §14) may keep
 * any answer that does not say otherwise, so every 4xx and 5xx says `Cache-Control: no-store`,
 * and varies by what the 200 at the same URL varies by (a 404 in HTML for a browser must not be
 * served to an API client that asked for JSON). A 304 carries the Vary of its 200 (RFC 9110
 * §15.4.5). The walk covers every GET operation of /openapi.json, so a new route is covered
 * without being listed here.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { concretePaths, type Operation, world } from "../support/public_world.ts";

const ACCEPTS = [undefined, "text/html", "text/markdown", "application/json"];

/** The tokens of a Vary header, lowercased and sorted. */
function varyTokens(response: Response): string[] {
  return (response.headers.get("vary") ?? "")
    .split(",")
    .map((token) => token.trim().toLowerCase())
    .filter(Boolean)
    .sort();
}

/** Whether `response` may not be stored by a shared cache. */
function notStored(response: Response): boolean {
  const cacheControl = (response.headers.get("cache-control") ?? "").toLowerCase();
  return /(^|,)\s*no-store\s*(,|$)/.test(cacheControl);
}

/** Every path parameter replaced by a value that names nothing. */
const UNKNOWN: Record<string, string> = {
  projectSlug: "no-such-project",
  orgSlug: "no-such-organization",
  organizationId: crypto.randomUUID(),
  id: crypto.randomUUID(),
  projectId: crypto.randomUUID(),
  recordId: crypto.randomUUID(),
  version: "99",
  index: "99999",
  fileName: `${"0".repeat(64)}.png`,
  documentId: crypto.randomUUID(),
  updateId: crypto.randomUUID(),
  domain: "unknown.example.test",
  token: "y".repeat(43),
  webhookId: crypto.randomUUID(),
  questionnaireId: crypto.randomUUID(),
};

Deno.test("[http] error answers are not stored by caches and vary as their 200 does; a 304 keeps its 200's Vary", async () => {
  await using ctx = await createTestApp();
  const { token, params, queries } = await world(ctx);
  const doc = await (await ctx.call("GET", "/openapi.json")).json();
  const failures: string[] = [];
  let errors = 0;
  let notModified = 0;
  for (
    const [template, item] of Object.entries(doc.paths) as [string, Record<string, Operation>][]
  ) {
    const operation = item.get;
    if (!operation) continue;
    const auth = operation.security?.length === 0 ? undefined : token;
    const query = new URLSearchParams(queries[template] ?? {}).toString();
    const known = concretePaths(template, operation, params);
    const unknown = concretePaths(template, operation, { ...params, ...UNKNOWN });
    for (const [index, path] of known.entries()) {
      const url = query ? `${path}?${query}` : path;
      const missing = query ? `${unknown[index]}?${query}` : unknown[index];
      for (const accept of ACCEPTS) {
        for (const encoding of [undefined, "gzip, br"]) {
          const headers: Record<string, string> = {};
          if (accept) headers.accept = accept;
          if (encoding) headers["accept-encoding"] = encoding;
          const label = `${accept ?? "no Accept"}${encoding ? `, ${encoding}` : ""}`;
          const res = await ctx.call("GET", url, { token: auth, headers });
          await res.body?.cancel();
          if (res.status !== 200) continue;
          const vary = varyTokens(res);
          const etag = res.headers.get("etag");
          if (etag) {
            const again = await ctx.call("GET", url, {
              token: auth,
              headers: { ...headers, "if-none-match": etag },
            });
            await again.body?.cancel();
            if (again.status === 304) {
              notModified++;
              const got = varyTokens(again);
              if (got.join() !== vary.join()) {
                failures.push(`304 ${url} (${label}): Vary [${got}] where its 200 has [${vary}]`);
              }
            }
          }
          if (missing === url) continue;
          const error = await ctx.call("GET", missing, { token: auth, headers });
          await error.body?.cancel();
          if (error.status < 400) continue;
          errors++;
          if (!notStored(error)) {
            failures.push(
              `${error.status} ${missing} (${label}): Cache-Control "${
                error.headers.get("cache-control") ?? ""
              }"`,
            );
          }
          const got = varyTokens(error);
          const lacking = vary.filter((token) => !got.includes(token));
          if (lacking.length) {
            failures.push(
              `${error.status} ${missing} (${label}): Vary [${got}] lacks [${lacking}] of its 200`,
            );
          }
        }
      }
    }
  }
  assert.deepEqual([...new Set(failures)], []);
  assert.ok(errors > 100, `${errors} error answers were checked`);
  assert.ok(notModified > 50, `${notModified} 304 answers were checked`);
});

Deno.test("[http] answers a route gives any client on bad input or refusal are not stored by caches", async () => {
  await using ctx = await createTestApp();
  const cases: Array<[string, string, Record<string, string>]> = [
    ["GET", "/no/such/route", {}],
    ["GET", "/no/such/route", { accept: "text/html" }],
    ["POST", "/health", {}],
    ["GET", "/log/consistency?from=banana", {}],
    ["GET", "/public/trust-profiles?limit=-1", {}],
    ["GET", "/organizations", {}],
  ];
  for (const [method, path, headers] of cases) {
    const res = await ctx.call(method, path, { headers });
    await res.body?.cancel();
    assert.ok(res.status >= 400, `${method} ${path}: ${res.status}`);
    assert.ok(
      notStored(res),
      `${method} ${path} (${res.status}): ${res.headers.get("cache-control")}`,
    );
  }
});
