/**
 * The service on a remote KV over the KV Connect protocol (tests/support/kv_connect_server.ts),
 * once with denokv's limits and once with Deno Deploy's: a whole tenant built in process and
 * its organization deleted after the grace; two service processes on one server (sign-up,
 * collector, evidence, publish, auto-publish) through a server restart and an injected 500;
 * a wrong token refused at start; `deno task backup` and `restore` against the server. Every
 * run ends with the server having refused no request for a limit.
 */
import assert from "node:assert/strict";
import { DELETION_GRACE_MS } from "../../src/domain/deletion.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { login, signUp } from "../support/builtin_login.ts";
import {
  type KvConnectServer,
  type LimitMode,
  startKvConnectServer,
} from "../support/kv_connect_server.ts";
import { sendScan } from "../support/live_vendor.ts";
import {
  clockEnv,
  freePort,
  NO_KV_QUEUES,
  type ServiceProcess,
  startService,
} from "../support/process.ts";
import { dumpKv, startTenantWorld, type TenantWorld } from "../support/tenant_world.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const ACCOUNT = { email: "ops@acme.test", name: "Ops", password: "kv connect passphrase" };

/** A client of `server`, as the service opens it (`KV_PATH` + `DENO_KV_ACCESS_TOKEN`). */
async function openRemote(server: KvConnectServer): Promise<Deno.Kv> {
  Deno.env.set("DENO_KV_ACCESS_TOKEN", server.token);
  try {
    return await Deno.openKv(server.url);
  } finally {
    Deno.env.delete("DENO_KV_ACCESS_TOKEN");
  }
}

function assertWithinLimits(server: KvConnectServer) {
  assert.deepEqual(server.violations, [], `requests over the ${server.mode} limits`);
  console.log(`  ${server.mode}: requests ${JSON.stringify(server.counts)}`);
  console.log(`  ${server.mode}: largest ${JSON.stringify(server.peaks)}`);
}

/** Runs every due job until none is (bounded). */
async function drain(world: TenantWorld) {
  for (let round = 0; round < 20; round++) {
    if ((await world.globex.server.services.jobs.drain(10_000)) === 0) return;
  }
}

/** Polls `probe` every 200 ms for up to 30 s; its first non-null answer. */
async function eventually<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const found = await probe();
    if (found !== null) return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `deno task <name> <file>` in the repository with `env` on a clean environment. */
async function task(name: string, file: string, env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", name, file],
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "/tmp",
      ...clockEnv(),
      ...env,
    },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** Every entry of a server's store as text, keys and values (not versionstamps). */
async function contents(server: KvConnectServer): Promise<string[]> {
  const rows: string[] = [];
  for await (const entry of server.backing().list({ prefix: [] })) {
    rows.push(Deno.inspect([entry.key, entry.value], { depth: Infinity, sorted: true }));
  }
  return rows;
}

/** The lines the services logged at level error, and Deno's own uncaught errors. */
function errorLines(services: ServiceProcess[]): string[] {
  return services.flatMap((s) => s.lines.filter((l) => /"level":"error"|^error: /.test(l)));
}

for (const mode of ["denokv", "deploy"] as LimitMode[]) {
  Deno.test(`[e2e] KV Connect (${mode} limits): a whole tenant in process, its organization deleted after the grace`, async () => {
    await using server = await startKvConnectServer({ mode });
    const kv = await openRemote(server);
    try {
      const clock = fakeClock(new Date());
      await using world = await startTenantWorld({ clock, kv });
      const { globex, tokens } = world;
      await drain(world);
      const path = `/organizations/${globex.orgId}/deletion`;
      const scheduled = await world.call("POST", path, {
        token: tokens.owner,
        json: { confirm: globex.orgSlug },
      });
      assert.equal(scheduled.status, 202, await scheduled.text());
      clock.advance(DELETION_GRACE_MS + 60_000);
      await drain(world);
      await world.renewTokens();
      const marks = [globex.orgId, globex.projectId, world.secondProjectId];
      const left = (await dumpKv(kv)).filter((r) => marks.some((m) => r.text.includes(m)));
      assert.deepEqual(left.map((r) => r.text.slice(0, 200)), [], "entries of the deleted org");
      const gone = await fetch(`${globex.server.baseUrl}/trust/globex/trust.json`);
      assert.equal(gone.status, 410);
      await gone.body?.cancel();
      const kept = await fetch(`${globex.server.baseUrl}/trust/initech/trust.json`);
      assert.equal(kept.status, 200);
      await kept.body?.cancel();
    } finally {
      kv.close();
    }
    assertWithinLimits(server);
  });

  Deno.test(`[e2e] KV Connect (${mode} limits): two service processes, a restart and a 500 survived, backup and restore`, async (t) => {
    await using server = await startKvConnectServer({ mode });
    const dir = await Deno.makeTempDir({ prefix: "kv_connect_" });
    const ports = [freePort(), freePort()];
    const bases = ports.map((port) => `http://127.0.0.1:${port}`);
    const env = (port: number): Record<string, string> => ({
      PORT: String(port),
      KV_PATH: server.url,
      DENO_KV_ACCESS_TOKEN: server.token,
      BASE_URL: `http://localhost:${ports[0]}`,
    });
    const services: ServiceProcess[] = [];
    try {
      await t.step(
        "a wrong access token: the service refuses to start, with the reason",
        async () => {
          const wrong = startService({
            ...env(ports[0]),
            DENO_KV_ACCESS_TOKEN: "not-the-token-1234",
          });
          const timer = setTimeout(() => wrong.stop("SIGKILL"), 30_000);
          const status = await wrong.exited();
          clearTimeout(timer);
          assert.equal(status.success, false);
          assert.match(wrong.lines.join("\n"), /401 Unauthorized: Invalid access token/);
          assert.equal(server.counts.unauthorized, 1);
          assert.deepEqual(await contents(server), [], "nothing was written");
        },
      );

      let human: Record<string, string> = {};
      let projectId = "";
      let secret = "";
      await t.step("sign-up, a project and a collector across two instances", async () => {
        services.push(startService(env(ports[0]), { preload: NO_KV_QUEUES }));
        const setup = (await services[0].waitFor(/\/signup\?setup=/)).trim();
        const created = await signUp(bases[0], new URL(setup).search.slice(1), ACCOUNT);
        assert.equal(created.status, 303);
        await created.body?.cancel();
        services.push(startService(env(ports[1]), { preload: NO_KV_QUEUES }));
        await services[1].waitFor(/Dashboard: /);
        const token = (await login(bases[1], ACCOUNT)).access_token;
        human = { authorization: `Bearer ${token}`, "content-type": "application/json" };
        const boot = await fetch(`${bases[1]}/onboarding/bootstrap`, {
          method: "POST",
          headers: human,
          body: JSON.stringify({
            workspaceName: "Acme",
            projectName: "API",
            projectSlug: "acme",
            projectVisibility: "public",
          }),
        });
        assert.equal(boot.status, 201);
        projectId = (await boot.json()).project.id;
        const collector = await fetch(`${bases[0]}/projects/${projectId}/collectors`, {
          method: "POST",
          headers: human,
          body: JSON.stringify({ name: "ci" }),
        });
        assert.equal(collector.status, 201);
        secret = (await collector.json()).secret.value;
      });

      const batch = async (base: string, b: number, records: number) => {
        const res = await fetch(`${base}/ingest/evidence/batch`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify({
            projectId,
            records: Array.from({ length: records }, (_, r) => ({
              evidenceType: "sbom",
              sourceType: "collector",
              sourceRef: `batch-${b}-record-${r}`,
              observedAt: new Date(Date.now() - 60_000 + r).toISOString(),
              payload: {
                bomFormat: "CycloneDX",
                specVersion: "1.5",
                components: [{ name: `c${b}.${r}` }],
              },
            })),
          }),
        });
        const text = await res.text();
        assert.equal(res.status, 201, `${text}\n${errorLines(services).join("\n")}`);
        return JSON.parse(text).records.length as number;
      };

      await t.step("evidence and a publish through both, across a restart and a 500", async () => {
        const versions: number[] = [];
        let records = 0;
        for (let b = 0; b < 6; b++) {
          if (b === 2) await server.restart(500);
          if (b === 4) server.failNext(1, "atomic_write");
          records += await batch(bases[b % 2], b, 50);
          const res = await fetch(`${bases[(b + 1) % 2]}/projects/${projectId}/publish`, {
            method: "POST",
            headers: human,
          });
          assert.equal(res.status, 201, await res.clone().text());
          versions.push((await res.json()).publishedProfile.version);
        }
        assert.equal(records, 300);
        assert.deepEqual(versions, [1, 2, 3, 4, 5, 6]);
        assert.equal(server.counts.injected, 1);
        const listed = await fetch(`${bases[0]}/projects/${projectId}/evidence?limit=100`, {
          headers: human,
        });
        assert.equal((await listed.json()).records.length, 100);
      });

      await t.step("auto-publish: new evidence publishes a version by itself", async () => {
        const patch = await fetch(`${bases[0]}/projects/${projectId}`, {
          method: "PATCH",
          headers: human,
          body: JSON.stringify({ autoPublish: true }),
        });
        assert.equal(patch.status, 200);
        await patch.body?.cancel();
        // A failing scan changes a control, which the job worker publishes.
        await sendScan(bases[1], { projectId, secret }, 3);
        const version = await eventually("an auto-published version 7", async () => {
          const res = await fetch(`${bases[1]}/trust/acme/trust.json`);
          const body = res.ok ? await res.json() : (await res.body?.cancel(), null);
          return body && body.version >= 7 ? body.version : null;
        });
        assert.ok(version >= 7);
        for (const base of bases) {
          const ready = await (await fetch(`${base}/health/ready`)).json();
          assert.equal(ready.ready, true, JSON.stringify(ready));
        }
      });

      await Promise.all(services.map((s) => s.stop()));
      assert.deepEqual(errorLines(services), [], "no instance logged an error");

      await t.step(
        "deno task backup and restore over KV Connect, into another server",
        async () => {
          await using target = await startKvConnectServer({ mode });
          const file = `${dir}/service.backup`;
          const backup = await task("backup", file, {
            KV_PATH: server.url,
            DENO_KV_ACCESS_TOKEN: server.token,
          });
          assert.equal(backup.code, 0, backup.stderr);
          const restore = await task("restore", file, {
            KV_PATH: target.url,
            DENO_KV_ACCESS_TOKEN: target.token,
          });
          assert.equal(restore.code, 0, restore.stderr);
          console.log(`  ${backup.stdout}\n  ${restore.stdout}`);
          const [before, after] = [await contents(server), await contents(target)];
          assert.ok(before.length > 500, `${before.length} entries`);
          assert.deepEqual(after, before);
          assertWithinLimits(target);
        },
      );
    } finally {
      await Promise.all(services.map((s) => s.stop()));
      await Deno.remove(dir, { recursive: true });
    }
    assertWithinLimits(server);
  });
}
