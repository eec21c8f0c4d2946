/**
 * Deno Deploy's lifecycle and hosts as its documentation describes them (docs/deploy.md):
 * - SIGINT while a request's body is still arriving (eviction, a new deployment): the request is
 *   answered before the process exits, within 4 s (Deploy's SIGKILL follows 5 s after SIGINT);
 *   one that cannot finish is answered 503 with Retry-After. deploy.ts runs under the Deploy
 *   preload on Deno 2.5.0 (Deploy's runtime), the client is raw TCP on 127.0.0.1.
 * - A preview timeline with no BASE_URL serves and signs with its own `*.deno.net` URL.
 * - Off Deploy with `DENO_DEPLOY=true` (main.ts, address from DENO_SERVE_ADDRESS): no purge goes
 *   to `cache.localhost`, and readiness stays 200 after a publication.
 */
import assert from "node:assert/strict";
import { CookieJar, hiddenField, login, signUp } from "../support/builtin_login.ts";
import { decodeBase64Url } from "../../src/lib/encoding.ts";
import { denoExecutable, DEPLOY_DENO_VERSION } from "../support/deploy_host.ts";
import { acmeProject, caller, sendScan } from "../support/live_vendor.ts";
import { clockEnv, freePort } from "../support/process.ts";
import { rawRequest } from "../support/raw_http.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const ACCOUNT = { email: "owner@acme.test", name: "Owner", password: "correct horse battery" };
const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface Running {
  base: string;
  port: number;
  lines: string[];
  child: Deno.ChildProcess;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number; at: number }>;
}

/** Starts `args` (a Deno program) with `env` only (plus what finds Deno), collecting its lines. */
async function run(
  deno: string,
  args: string[],
  env: Record<string, string>,
  port: number,
): Promise<Running> {
  const passed: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "TMPDIR", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) passed[name] = value;
  }
  const child = new Deno.Command(deno, {
    args,
    cwd: ROOT,
    clearEnv: true,
    env: { ...passed, NO_COLOR: "1", ...clockEnv(), ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      lines.push(...chunk.split("\n").filter(Boolean));
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const exited = child.status.then(async (status) => {
    const at = Date.now();
    await pumps;
    return { code: status.code, at };
  });
  const waitFor = async (pattern: RegExp, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const line = lines.find((l) => pattern.test(l));
      if (line !== undefined) return line;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`Timed out waiting for ${pattern}:\n${lines.join("\n")}`);
  };
  const running = { base: `http://127.0.0.1:${port}`, port, lines, child, waitFor, exited };
  await waitFor(/^Trust Profile Service listening on /);
  return running;
}

/** deploy.ts as Deploy runs it (the preload), on `version`, with a database assigned at `kv`. */
async function deployTs(version: string, kv: string, env: Record<string, string> = {}) {
  const port = freePort();
  return await run(
    await denoExecutable(version),
    ["run", "-A", "--preload", "tests/support/deploy_preload.ts", "deploy.ts"],
    {
      DENO_DEPLOY: "true",
      DENO_TIMELINE: "production",
      DENO_DEPLOYMENT_ID: "d1",
      DEPLOY_TEST_KV: kv,
      DEPLOY_TEST_PORT: String(port),
      KV_PERSISTENCE: "assigned",
      BASE_URL: `http://127.0.0.1:${port}`,
      ...env,
    },
    port,
  );
}

/** Reads one HTTP/1.1 answer from `conn` (bounded); "" when the connection closed first. */
async function readAnswer(conn: Deno.Conn, waitMs: number): Promise<string> {
  const timer = setTimeout(() => conn.close(), waitMs);
  let text = "";
  const buffer = new Uint8Array(16 * 1024);
  try {
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n));
      const end = text.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? NaN);
      if (end >= 0 && (text.length >= end + 4 + length || /^HTTP\/1\.1 30\d/.test(text))) break;
    }
  } catch {
    // Closed (by the timer or the server): what arrived is returned.
  } finally {
    clearTimeout(timer);
  }
  try {
    conn.close();
  } catch {
    // Already closed.
  }
  return text;
}

Deno.test(`[e2e] deploy lifecycle: SIGINT with a request mid-body on Deno ${DEPLOY_DENO_VERSION}: answered before exit, within 4 s`, async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "deploy-stop-" });
  const kv = `${dir}/kv.sqlite3`;
  try {
    await t.step(
      "the rest of the body arrives after SIGINT: the account is created (303)",
      async () => {
        const service = await deployTs(DEPLOY_DENO_VERSION, kv);
        const setup = (await service.waitFor(/\/signup\?setup=/)).trim();
        const jar = new CookieJar();
        const page = await fetch(`${service.base}/signup${new URL(setup).search}`);
        jar.take(page);
        const csrf = hiddenField(await page.text(), "csrf");
        const body = new URLSearchParams({
          setup: new URL(setup).searchParams.get("setup")!,
          csrf,
          email: ACCOUNT.email,
          name: ACCOUNT.name,
          password: ACCOUNT.password,
        }).toString();
        const half = Math.floor(body.length / 2);
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: service.port });
        await conn.write(encoder.encode(
          `POST /signup HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\n` +
            `Content-Type: application/x-www-form-urlencoded\r\nCookie: ${jar.header()}\r\n` +
            `Content-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`,
        ));
        await new Promise((resolve) => setTimeout(resolve, 300));
        const sigint = Date.now();
        service.child.kill("SIGINT");
        await new Promise((resolve) => setTimeout(resolve, 500));
        await conn.write(encoder.encode(body.slice(half)));
        const answer = await readAnswer(conn, 6_000);
        const exit = await service.exited;
        assert.match(answer, /^HTTP\/1\.1 303 /, `${answer}\n${service.lines.join("\n")}`);
        assert.equal(exit.code, 0, service.lines.join("\n"));
        const took = exit.at - sigint;
        console.log(`mid-body request answered; exited ${took} ms after SIGINT`);
        assert.ok(took < 4_000, `exited ${took} ms after SIGINT`);
        assert.ok(
          service.lines.some((l) => /^Stopped in \d+ ms$/.test(l)),
          service.lines.join("\n"),
        );
      },
    );

    await t.step(
      "the account was committed before the KV closed: it signs in after a restart",
      async () => {
        const service = await deployTs(DEPLOY_DENO_VERSION, kv);
        try {
          const tokens = await login(service.base, ACCOUNT);
          assert.ok(tokens.access_token);
        } finally {
          service.child.kill("SIGINT");
          await service.exited;
        }
      },
    );

    await t.step(
      "a body that never completes: 503 with Retry-After before exit, within 4 s",
      async () => {
        const service = await deployTs(DEPLOY_DENO_VERSION, kv);
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: service.port });
        await conn.write(encoder.encode(
          `POST /signup HTTP/1.1\r\nHost: 127.0.0.1:${service.port}\r\n` +
            `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nemail=`,
        ));
        await new Promise((resolve) => setTimeout(resolve, 300));
        const sigint = Date.now();
        service.child.kill("SIGINT");
        const answer = await readAnswer(conn, 6_000);
        const exit = await service.exited;
        assert.match(answer, /^HTTP\/1\.1 503 /, `${answer}\n${service.lines.join("\n")}`);
        assert.match(answer, /\r\nretry-after: 1\r\n/i);
        assert.match(answer, /"code":"unavailable"/);
        const took = exit.at - sigint;
        console.log(`unfinished request answered 503; exited ${took} ms after SIGINT`);
        assert.equal(exit.code, 0);
        assert.ok(took < 4_000, `exited ${took} ms after SIGINT`);
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[e2e] deploy lifecycle: a preview with no BASE_URL serves and signs with its own *.deno.net URL", async () => {
  const dir = await Deno.makeTempDir({ prefix: "deploy-preview-" });
  const own = "https://trust-a1b2c3d4.acme.deno.net";
  const service = await deployTs(DEPLOY_DENO_VERSION, `${dir}/kv.sqlite3`, {
    DENO_TIMELINE: "preview/a1b2c3d4",
    DENO_DEPLOY_APP_SLUG: "trust",
    DENO_DEPLOY_ORG_SLUG: "acme",
    BASE_URL: "",
  });
  try {
    assert.ok(
      service.lines.some((l) => l.endsWith(`(public URL ${own})`)),
      service.lines.join("\n"),
    );
    const setup = (await service.waitFor(/\/signup\?setup=/)).trim();
    assert.ok(setup.startsWith(`${own}/signup?setup=`), setup);
    const host = new URL(own).host;
    const health = await rawRequest(service.base, { method: "GET", path: "/health", host });
    assert.equal(health.status, 200);
    const discovery = await rawRequest(service.base, {
      method: "GET",
      path: "/.well-known/oauth-authorization-server",
      host,
    });
    assert.equal(discovery.status, 200, discovery.body);
    const metadata = JSON.parse(discovery.body);
    assert.equal(metadata.issuer, own);
    assert.equal(metadata.token_endpoint, `${own}/oauth2/token`);
    // What it signs carries that URL: an access token's issuer and audience.
    const signedUp = await signUp(service.base, new URL(setup).search.slice(1), ACCOUNT);
    assert.equal(signedUp.status, 303);
    await signedUp.body?.cancel();
    const token = (await login(service.base, ACCOUNT)).access_token;
    const claims = JSON.parse(
      new TextDecoder().decode(decodeBase64Url(token.split(".")[1])),
    );
    assert.equal(claims.iss, own);
    assert.equal(claims.aud, own);
  } finally {
    service.child.kill("SIGINT");
    await service.exited;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[e2e] deploy lifecycle: off Deploy with DENO_DEPLOY=true, no purge to cache.localhost and readiness 200", async () => {
  const dir = await Deno.makeTempDir({ prefix: "deploy-alone-" });
  // Reports every fetch to Deploy's CDN API (there is none here: it would fail and be retried).
  const spy = `${dir}/spy.ts`;
  await Deno.writeTextFile(
    spy,
    `const real = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  if (new URL(url).hostname === "cache.localhost") console.error("spy: cache.localhost " + url);
  return real(input, init);
};
`,
  );
  const port = freePort();
  const service = await run(Deno.execPath(), ["run", "-A", "--preload", spy, "main.ts"], {
    DENO_DEPLOY: "true",
    // Deploy mode listens where DENO_SERVE_ADDRESS says; PORT is ignored.
    DENO_SERVE_ADDRESS: `tcp:127.0.0.1:${port}`,
    PORT: "1",
    BASE_URL: `http://127.0.0.1:${port}`,
    KV_PATH: `${dir}/kv.sqlite3`,
  }, port);
  try {
    assert.ok(
      service.lines.some((l) => l.startsWith("CDN purge: none: DENO_DEPLOY is set but")),
      service.lines.join("\n"),
    );
    const setup = (await service.waitFor(/\/signup\?setup=/)).trim();
    const jar = new CookieJar();
    const page = await fetch(`${service.base}/signup${new URL(setup).search}`);
    jar.take(page);
    const csrf = hiddenField(await page.text(), "csrf");
    const signedUp = await fetch(`${service.base}/signup`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
      body: new URLSearchParams({
        setup: new URL(setup).searchParams.get("setup")!,
        csrf,
        ...ACCOUNT,
      }),
    });
    assert.equal(signedUp.status, 303);
    await signedUp.body?.cancel();
    const call = caller([service.base], (await login(service.base, ACCOUNT)).access_token);
    const target = await acmeProject(call);
    await sendScan(service.base, target, 0);
    const published = await call("POST", `/projects/${target.projectId}/publish`);
    assert.equal(published.status, 201, JSON.stringify(published.body));
    // The publication's render and purge jobs run; give them time to run (and fail, if they called).
    let ready: { status: number; body: Record<string, unknown> } = { status: 0, body: {} };
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${service.base}/health/ready`);
      ready = { status: res.status, body: await res.json() };
      if (ready.status === 200 && ready.body.oldestDueSeconds === null) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    assert.deepEqual((ready.body.edge as { purge: string }).purge, "none");
    const calls = service.lines.filter((l) => l.startsWith("spy: cache.localhost"));
    assert.deepEqual(calls, []);
  } finally {
    service.child.kill("SIGINT");
    await service.exited;
    await Deno.remove(dir, { recursive: true });
  }
});
