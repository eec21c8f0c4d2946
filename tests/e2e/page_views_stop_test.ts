/**
 * Anonymous page views survive a graceful stop (docs/ads.md): main.ts in its own process counts
 * views in memory and writes them at most every 10 s; on SIGTERM (and SIGINT, Deno Deploy's
 * stop) it writes what it holds before closing the KV, so the reopened KV has every view.
 */
import assert from "node:assert/strict";
import { caller, firstAccount } from "../support/live_vendor.ts";
import { clockEnv, freePort, startService } from "../support/process.ts";

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`[e2e] page views counted in memory are written when the service stops (${signal})`, async () => {
    const dir = await Deno.makeTempDir();
    const kvPath = `${dir}/kv.sqlite3`;
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = startService({
      ...clockEnv(),
      PORT: String(port),
      KV_PATH: kvPath,
      BASE_URL: base,
    });
    let orgId = "";
    let slug = "";
    try {
      const call = caller([base], await firstAccount(service, base));
      const boot = await call("POST", "/onboarding/bootstrap", {
        workspaceName: "Acme",
        projectName: "Acme Cloud",
        projectSlug: "acme",
        projectVisibility: "public",
      });
      assert.equal(boot.status, 201, JSON.stringify(boot.body));
      orgId = boot.body.organization.id;
      slug = boot.body.organization.slug;
      // Three views of the trust center and one of its documents, well within 10 s of the
      // first: none is due to be written yet. (The service's own renders of the pages it
      // stores are not views.)
      for (const path of ["", "", "", "/documents"]) {
        const res = await fetch(`${base}/public/trust/${slug}${path}`, {
          headers: { accept: "text/html" },
        });
        assert.equal(res.status, 200, path);
        await res.body?.cancel();
      }
    } finally {
      const status = await service.stop(signal);
      assert.equal(status.code, 0, service.lines.join("\n"));
    }
    assert.ok(service.lines.some((l) => /^Stopped in \d+ ms$/.test(l)), service.lines.join("\n"));
    const kv = await Deno.openKv(kvPath);
    try {
      const counts: Record<string, number> = {};
      for await (const entry of kv.list<Deno.KvU64>({ prefix: ["page_views", orgId] })) {
        const path = entry.key[3] as string;
        counts[path] = (counts[path] ?? 0) + Number(entry.value.value);
      }
      assert.deepEqual(counts, {
        [`/public/trust/${slug}`]: 3,
        [`/public/trust/${slug}/documents`]: 1,
      });
    } finally {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
