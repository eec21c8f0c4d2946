/**
 * Every route that sends an ETag honours If-None-Match with 304 (RFC 9110 §13.1.2). The
 * test walks every GET operation of /openapi.json against real data (a published public
 * project with a vendor profile and logo, a public document, an update, a subprocessor,
 * evidence, a buyer's questionnaire), in each format it negotiates, so a new route that sends
 * an ETag is covered without being listed here.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { concretePaths, type Operation, world } from "../support/public_world.ts";

Deno.test("[http] every route that sends an ETag answers 304 to If-None-Match", async () => {
  await using ctx = await createTestApp();
  const { token, params, queries } = await world(ctx);
  const doc = await (await ctx.call("GET", "/openapi.json")).json();
  const seen: string[] = [];
  const failures: string[] = [];
  for (
    const [template, item] of Object.entries(doc.paths) as [string, Record<string, Operation>][]
  ) {
    const operation = item.get;
    if (!operation) continue;
    const auth = operation.security?.length === 0 ? undefined : token;
    for (const path of concretePaths(template, operation, params)) {
      const query = new URLSearchParams(queries[template] ?? {}).toString();
      const url = query ? `${path}?${query}` : path;
      for (const accept of [undefined, "text/html", "text/markdown", "application/json"]) {
        const headers: Record<string, string> = accept ? { accept } : {};
        const res = await ctx.call("GET", url, { token: auth, headers });
        await res.body?.cancel();
        const etag = res.headers.get("etag");
        if (res.status !== 200 || !etag) continue;
        seen.push(`${url} (${accept ?? "no Accept"})`);
        const again = await ctx.call("GET", url, {
          token: auth,
          headers: { ...headers, "if-none-match": `W/"other", ${etag}` },
        });
        const body = await again.text();
        if (again.status !== 304 || body !== "" || again.headers.get("etag") !== etag) {
          failures.push(`${url} (${accept ?? "no Accept"}): ${again.status} ${body.slice(0, 60)}`);
        }
        if (!("304" in operation.responses)) failures.push(`${template}: 304 is not documented`);
      }
    }
  }
  assert.deepEqual([...new Set(failures)], []);
  for (
    const expected of [
      "/trust/acme/controls",
      "/trust/acme/trust.json",
      "/trust/acme/feed.xml",
      `/projects/${params.id}/evidence/${params.recordId}/payload`,
      `/public/logos/${params.fileName}`,
      "/collector.ts",
    ]
  ) {
    assert.ok(seen.some((s) => s.startsWith(`${expected} `)), `${expected} was walked`);
  }
});
