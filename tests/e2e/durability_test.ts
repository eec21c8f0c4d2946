/**
 * Acknowledged evidence survives a crash: the real server on a KV file is
 * killed with SIGKILL in the middle of ingest and restarted.
 */
import assert from "node:assert/strict";
import { login, signUp } from "../support/builtin_login.ts";
import { freePort, startService } from "../support/process.ts";

const ACCOUNT = { email: "ops@acme.test", name: "Ops", password: "durable passphrase" };

Deno.test("[e2e] durability: every acknowledged record is there after SIGKILL and restart", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const env = { PORT: String(port), KV_PATH: `${dir}/kv.sqlite3` };
  const base = `http://localhost:${port}`;
  try {
    const first = startService(env);
    let projectId = "";
    let token = "";
    const acknowledged: string[] = [];
    try {
      const setup = (await first.waitFor(/\/signup\?setup=/)).trim();
      (await signUp(base, new URL(setup).search.slice(1), ACCOUNT)).body?.cancel();
      token = (await login(base, ACCOUNT)).access_token;
      const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const boot = await (await fetch(`${base}/onboarding/bootstrap`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ workspaceName: "Acme", projectName: "API" }),
      })).json();
      projectId = boot.project.id;
      const { secret } = await (await fetch(`${base}/projects/${projectId}/collectors`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ name: "ci" }),
      })).json();

      let n = 0;
      let killed = false;
      const worker = async () => {
        while (!killed && n < 2000) {
          const i = n++;
          try {
            const res = await fetch(`${base}/ingest/evidence`, {
              method: "POST",
              headers: {
                authorization: `Bearer ${secret.value}`,
                "content-type": "application/json",
              },
              body: JSON.stringify({
                projectId,
                evidenceType: "sbom",
                sourceType: "collector",
                sourceRef: `run-${i}`,
                observedAt: new Date().toISOString(),
                payload: {
                  bomFormat: "CycloneDX",
                  specVersion: "1.5",
                  components: [{ name: `c${i}` }],
                },
              }),
            });
            if (res.status === 201) acknowledged.push((await res.json()).record.id);
            else await res.body?.cancel();
          } catch {
            // The connection died with the process: not acknowledged.
          }
        }
      };
      const workers = Array.from({ length: 4 }, worker);
      const deadline = Date.now() + 30_000;
      while (acknowledged.length < 60 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      await first.stop("SIGKILL");
      killed = true;
      await Promise.all(workers);
    } finally {
      await first.stop("SIGKILL");
    }
    assert.ok(acknowledged.length >= 60, `only ${acknowledged.length} records were acknowledged`);

    const second = startService(env);
    try {
      await second.waitFor(/Dashboard: /);
      const found = new Set<string>();
      let cursor: string | null = null;
      do {
        const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const page = await (await fetch(`${base}/projects/${projectId}/evidence?${query}`, {
          headers: { authorization: `Bearer ${token}` },
        })).json();
        for (const record of page.records) found.add(record.id);
        cursor = page.nextCursor;
      } while (cursor);
      const missing = acknowledged.filter((id) => !found.has(id));
      assert.deepEqual(
        missing,
        [],
        `${missing.length} of ${acknowledged.length} acknowledged records were lost`,
      );
    } finally {
      await second.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
