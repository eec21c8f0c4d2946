/**
 * A name a deletion left, released by the operator and taken by another tenant, over real HTTP
 * with a fake clock and the operator's `deno task names release` run as a subprocess on the
 * same KV file:
 *
 * - a project slug: the taking project's creation appends to the publication log the entry
 *   recording the change of publisher (the new publisher's organization and project), and the
 *   verifier kit, loaded from /verify.ts and run as a buyer runs it, reports "a different
 *   publisher since entry N" instead of VERIFIED (with the old publisher's pins too) until the
 *   buyer pins that change (`--pin publisher=N`); the new holder's deletion erases the entry;
 * - a verified custom domain: another tenant's claim is refused (409) until the operator
 *   releases the domain; then a claim verifies, the domain serves the new holder, and the
 *   verification appends the same record (`trust-profile-domain-publisher-change/v1`), which
 *   the domain's profile (`/trust/domains/{domain}`) shows as `publisherChange`;
 * - an organization slug: the organization (or workspace) taking it appends the record
 *   (`trust-profile-organization-publisher-change/v1`), which its trust center's JSON shows;
 *   a workspace taking a released organization slug and a released project slug at once
 *   appends both in its one commit, and the log stays consistent.
 *
 * Each record is checked as a buyer would: its text hashes to its leaf, its inclusion proof
 * verifies, and the log only grew; the new holder's deletion erases it to its hash.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DELETION_GRACE_MS } from "../../src/domain/deletion.ts";
import { NAME_CHANGE_HEADERS, PUBLISHER_CHANGE_HEADER } from "../../src/domain/log.ts";
import { equal, fromBase64 } from "../../src/cli/verify/bytes.ts";
import { leafHashOf, verifyConsistency, verifyInclusion } from "../../src/cli/verify/log_proofs.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { startDnsServer } from "../support/dns_server.ts";
import { getWithHost, rawRequest } from "../support/raw_http.ts";
import { jsonApi, startTestServer, type TestServer } from "../support/server.ts";
import { dumpKv } from "../support/tenant_world.ts";
import { printedPins, runKit } from "../support/verify_kit.ts";

/**
 * Asserts that the log shows `entry` at `index` as a buyer checks it: its text hashes to the
 * leaf hash served, its inclusion proof verifies against the proof's root, and the tree of
 * `before` entries is a prefix of the tree now (the log only grew across the takeover).
 */
async function assertLogged(baseUrl: string, index: number, entry: string, before: number) {
  const shown = await (await fetch(`${baseUrl}/log/entries/${index}`)).json();
  assert.equal(shown.entry, entry, "the entry is public, like a project's versions");
  const leaf = await leafHashOf(entry);
  assert.ok(equal(leaf, fromBase64(shown.leafHash)), "its text hashes to its leaf");
  const proof = await (await fetch(`${baseUrl}/log/entries/${index}/inclusion`)).json();
  assert.ok(
    await verifyInclusion(
      index,
      proof.treeSize,
      proof.proof.map(fromBase64),
      leaf,
      fromBase64(proof.rootHash),
    ),
    "its inclusion proof verifies",
  );
  const grown = await (await fetch(
    `${baseUrl}/log/consistency?from=${before}&to=${proof.treeSize}`,
  )).json();
  assert.ok(
    await verifyConsistency(
      before,
      proof.treeSize,
      grown.proof.map(fromBase64),
      fromBase64(grown.fromRootHash),
      fromBase64(grown.toRootHash),
    ),
    "the log only grew",
  );
  assert.equal(grown.toRootHash, proof.rootHash);
}

/**
 * The domain's pages (HTML at `/` and `/index.html`, Markdown at `/index.md` and `/` asked for
 * Markdown) say "Another publisher." with `notice`, first in the page's content; the project's
 * own page at its slug does not (the notice is the domain's). The answer has its own ETag,
 * which a revalidation gets a 304 for, and a HEAD the same headers without the body.
 */
async function assertDomainPagesSay(baseUrl: string, domain: string, slug: string, notice: string) {
  const html = await getWithHost(baseUrl, "/", domain, { accept: "text/html" });
  assert.equal(html.status, 200);
  assert.match(html.headers.get("content-type")!, /^text\/html/);
  const escaped = notice.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll(
    "'",
    "&#39;",
  );
  assert.ok(
    html.body.includes(
      `<main id="main" class="wrap">\n<p role="note"><strong>Another publisher.</strong> ${escaped}</p>`,
    ),
    html.body.slice(0, 2000),
  );
  assert.equal((await getWithHost(baseUrl, "/index.html", domain)).body, html.body);
  const own = await fetch(`${baseUrl}/trust/${slug}`, { headers: { accept: "text/html" } });
  const ownBody = await own.text();
  assert.doesNotMatch(ownBody, /Another publisher/, "the project's own page has no notice");
  assert.notEqual(html.headers.get("etag"), own.headers.get("etag"));
  assert.equal(
    html.body.replace(/\n<p role="note">.*?<\/p>/, ""),
    ownBody,
    "the domain's page is the project's page with the notice, nothing else",
  );
  const etag = html.headers.get("etag")!;
  const again = await getWithHost(baseUrl, "/", domain, {
    accept: "text/html",
    "if-none-match": etag,
  });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("etag"), etag);
  const head = await rawRequest(baseUrl, {
    method: "HEAD",
    path: "/",
    host: domain,
    headers: { accept: "text/html" },
  });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("etag"), etag);
  assert.equal(head.body, "");
  const gzip = await getWithHost(baseUrl, "/", domain, {
    accept: "text/html",
    "accept-encoding": "gzip",
  });
  assert.equal(gzip.headers.get("content-encoding"), "gzip");
  assert.match(gzip.headers.get("vary") ?? "", /accept-encoding/i);
  for (const [path, accept] of [["/index.md", "*/*"], ["/", "text/markdown"]]) {
    const md = await getWithHost(baseUrl, path, domain, { accept });
    assert.equal(md.status, 200, path);
    assert.match(md.headers.get("content-type")!, /^text\/markdown/);
    assert.match(
      md.body,
      /^# .*\n\n\*\*Another publisher\.\*\* The custom domain/,
      md.body.slice(0, 500),
    );
  }
  // The signed profile is the project's, untouched.
  const json = await getWithHost(baseUrl, "/trust.json", domain);
  assert.doesNotMatch(json.body, /Another publisher/);
}

/** The log's size now. */
async function treeSize(baseUrl: string): Promise<number> {
  return (await (await fetch(`${baseUrl}/log`)).json()).treeSize;
}

/** Runs every due job until none is (bounded). */
async function drain(server: TestServer) {
  for (let round = 0; round < 30; round++) {
    if ((await server.services.jobs.drain(10_000)) === 0) return;
  }
}

/** Runs `deno task names …` as the operator would, on the KV file at `kvPath`. */
async function names(kvPath: string, ...args: string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../src/lifecycle/names_main.ts", import.meta.url).pathname,
      ...args,
    ],
    env: { KV_PATH: kvPath, BASE_URL: "http://127.0.0.1:1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** A KV file, its server on a fake clock, and a way to call the API as a named user. */
async function startOnFile(env: Record<string, string> = {}) {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite3`;
  const kv = await Deno.openKv(kvPath);
  const clock = fakeClock(new Date());
  const server = await startTestServer({ kv, clock, worker: false, env });
  const as = async (user: string) => jsonApi(server.baseUrl, await server.tokenFor(user));
  /** Schedules `projectId`'s deletion as `user`, then moves past the grace and runs the job. */
  const deleteProject = async (user: string, projectId: string, slug: string) => {
    const res = await (await as(user))("POST", `/projects/${projectId}/deletion`, {
      confirm: slug,
    });
    assert.equal(res.status, 202, JSON.stringify(res.json));
    clock.advance(DELETION_GRACE_MS + 60_000);
    await drain(server);
  };
  const close = async () => {
    await server.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { dir, kvPath, kv, clock, server, as, deleteProject, close };
}

Deno.test("[e2e] a released project slug taken by another tenant: the log records the change of publisher and the kit reports it instead of VERIFIED", async () => {
  const t = await startOnFile();
  try {
    const { server, as } = t;
    // Acme publishes "acme" twice; a buyer verifies it and keeps the pins.
    const alice = await as("alice");
    const boot = await alice("POST", "/onboarding/bootstrap", {
      workspaceName: "Acme",
      projectName: "Acme Cloud",
      projectSlug: "acme",
      projectVisibility: "public",
    });
    assert.equal(boot.status, 201, JSON.stringify(boot.json));
    const acmeId: string = boot.json.project.id;
    for (let i = 0; i < 2; i++) {
      assert.equal((await alice("POST", `/projects/${acmeId}/publish`)).status, 201);
    }
    const first = await runKit(server, t.dir, ["acme"]);
    assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
    assert.match(first.stdout, /ok {4}publisher: the log records no change of publisher/);
    const oldPins = printedPins(first.stdout);

    // Acme's project is deleted; Globex cannot take the slug until the operator releases it.
    await t.deleteProject("alice", acmeId, "acme");
    const bob = await as("bob");
    const globex = await bob("POST", "/onboarding/bootstrap", {
      workspaceName: "Globex",
      workspaceSlug: "globex",
      projectName: "Globex Cloud",
      projectSlug: "globex-cloud",
      projectVisibility: "public",
    });
    assert.equal(globex.status, 201, JSON.stringify(globex.json));
    const organizationId: string = globex.json.organization.id;
    const take = () =>
      bob("POST", "/projects", {
        organizationId,
        name: "Acme by Globex",
        slug: "acme",
        visibility: "public",
      });
    const refused = await take();
    assert.equal(refused.status, 409);
    assert.match(refused.json.error.message, /belonged to a deleted project and is reserved/);
    const logSizeAtDeletion = (await (await fetch(`${server.baseUrl}/log`)).json()).treeSize;

    const released = await names(t.kvPath, "release", "project", "acme");
    assert.equal(released.code, 0, released.stderr);
    const twice = await names(t.kvPath, "release", "project", "acme");
    assert.equal(twice.code, 1, "a released name is not released again");
    // Released but not taken: still gone.
    const gone = await fetch(`${server.baseUrl}/trust/acme`);
    await gone.body?.cancel();
    assert.equal(gone.status, 410);

    // Globex takes it and publishes: the log holds the change of publisher before its versions.
    const taken = await take();
    assert.equal(taken.status, 201, JSON.stringify(taken.json));
    const newId: string = taken.json.project.id;
    assert.equal((await bob("POST", `/projects/${newId}/publish`)).status, 201);
    const listed = await (await fetch(`${server.baseUrl}/log/publications/acme`)).json();
    const change = listed.publisherChange;
    assert.ok(change, JSON.stringify(listed));
    assert.equal(change.leafIndex, logSizeAtDeletion, "appended when the slug was taken");
    assert.equal(
      change.entry,
      `${PUBLISHER_CHANGE_HEADER}\nacme\n${logSizeAtDeletion}\n${newId}\nglobex\n${organizationId}\n${t.clock.now().toISOString()}\n`,
    );
    assert.deepEqual(listed.entries.map((e: { version: number }) => e.version), [1]);
    assert.ok(listed.entries[0].leafIndex > change.leafIndex);
    const entry = await (await fetch(`${server.baseUrl}/log/entries/${change.leafIndex}`)).json();
    assert.equal(entry.entry, change.entry, "the entry is public, like the project's versions");

    // The kit, unpinned and with the old publisher's pins: a different publisher, not VERIFIED.
    const n = change.leafIndex;
    for (const args of [["acme"], ["acme", ...oldPins]]) {
      const run = await runKit(server, t.dir, args);
      assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
      assert.match(
        run.stdout,
        new RegExp(
          `FAIL {2}publisher: a different publisher since entry ${n}: organization "globex" \\(${organizationId}\\), project ${newId}`,
        ),
      );
      assert.match(run.stdout, new RegExp(`verify with --pin publisher=${n}`));
      assert.match(run.stdout, /ok {4}version 1: signature, chain and log inclusion/);
      assert.match(run.stdout, /NOT VERIFIED/);
      assert.doesNotMatch(run.stdout, /^VERIFIED/m);
    }
    // The buyer who accepts the new publisher pins the change; another entry fails.
    const accepted = await runKit(server, t.dir, ["acme", "--pin", `publisher=${n}`]);
    assert.equal(accepted.code, 0, `${accepted.stdout}\n${accepted.stderr}`);
    assert.match(
      accepted.stdout,
      new RegExp(`ok {4}publisher: a different publisher since entry ${n} .*--pin publisher=${n}`),
    );
    assert.match(accepted.stdout, new RegExp(`--pin log=\\S+ --pin publisher=${n}\\n`));
    assert.match(accepted.stdout, /VERIFIED: "acme"/);
    const other = await runKit(server, t.dir, ["acme", "--pin", `publisher=${n + 1}`]);
    assert.equal(other.code, 1, other.stdout);
    assert.match(other.stdout, new RegExp(`you pinned the change at entry ${n + 1}`));
    const usage = await runKit(server, t.dir, ["acme", "--pin", "publisher=x"]);
    assert.equal(usage.code, 2);
    // A server that rewrites the entry to name another publisher is caught by its leaf hash.
    const stored = await t.kv.get<{ entry: string }>(["log_entries", n]);
    assert.ok(stored.value);
    await t.kv.set(["log_entries", n], {
      ...stored.value,
      entry: stored.value.entry.replace("\nglobex\n", "\nacme\n"),
    });
    const forged = await runKit(server, t.dir, ["acme", "--pin", `publisher=${n}`]);
    assert.equal(forged.code, 1, forged.stdout);
    assert.match(
      forged.stdout,
      new RegExp(
        `FAIL {2}publisher: the change of publisher \\(entry ${n}\\): its text does not hash`,
      ),
    );
    await t.kv.set(["log_entries", n], stored.value);

    // The new holder's deletion erases its change-of-publisher entry with its versions.
    await t.deleteProject("bob", newId, "acme");
    const erased = await (await fetch(`${server.baseUrl}/log/entries/${n}`)).json();
    assert.deepEqual({ entry: erased.entry, leafHash: erased.leafHash }, {
      entry: null,
      leafHash: change.leafHash,
    });
    const rows = await dumpKv(t.kv);
    assert.deepEqual(rows.filter((r) => r.text.includes(newId)).map((r) => r.text), []);
  } finally {
    await t.close();
  }
});

Deno.test("[e2e] a deleted project's verified custom domain stays reserved: another tenant's claim is refused until the operator releases it", async () => {
  const dns = await startDnsServer();
  const t = await startOnFile({
    DNS_NAMESERVER: `127.0.0.1:${dns.port}`,
    TRUST_PAGE_BASE: "http://trust.localhost",
  });
  try {
    const { as, server } = t;
    const DOMAIN = "trust.acme.example";
    const workspace = async (user: string, slug: string) => {
      const res = await (await as(user))("POST", "/onboarding/bootstrap", {
        workspaceName: slug,
        projectName: `${slug} cloud`,
        projectSlug: slug,
        projectVisibility: "public",
      });
      assert.equal(res.status, 201, JSON.stringify(res.json));
      assert.equal(
        (await (await as(user))("POST", `/projects/${res.json.project.id}/publish`))
          .status,
        201,
      );
      return res.json.project.id as string;
    };
    const claim = async (user: string, projectId: string) =>
      await (await as(user))("POST", `/projects/${projectId}/domains`, { domain: DOMAIN });
    const verify = async (user: string, projectId: string, domainId: string) =>
      await (await as(user))("POST", `/projects/${projectId}/domains/${domainId}/verify`);
    const acme = await workspace("alice", "acme");
    const globex = await workspace("bob", "globex");

    // Acme claims and verifies the domain.
    const acmeClaim = await claim("alice", acme);
    assert.equal(acmeClaim.status, 201);
    dns.records.set(`_service.${DOMAIN}`, [[
      `trust-verification=${acmeClaim.json.domain.domain.verificationToken}`,
    ]]);
    const verified = await verify("alice", acme, acmeClaim.json.domain.domain.id);
    assert.equal(verified.status, 200, JSON.stringify(verified.json));
    assert.equal(verified.json.domain.domain.verificationStatus, "verified");
    assert.equal((await getWithHost(server.baseUrl, "/trust.json", DOMAIN)).status, 200);
    const first = await (await fetch(`${server.baseUrl}/trust/domains/${DOMAIN}`)).json();
    assert.equal(first.profile.project.slug, "acme");
    assert.equal(first.publisherChange, undefined, "a domain with no earlier holder");
    const firstPage = await getWithHost(server.baseUrl, "/", DOMAIN, { accept: "text/html" });
    assert.equal(firstPage.status, 200);
    assert.doesNotMatch(firstPage.body, /Another publisher/, "no notice without a change");
    // A buyer verifies the profile at the domain with the kit (read through the service).
    const domainUrl = `https://${DOMAIN}/`;
    const before = await runKit(server, t.dir, [domainUrl, "--server", server.baseUrl]);
    assert.equal(before.code, 0, `${before.stdout}\n${before.stderr}`);
    assert.match(
      before.stdout,
      /ok {4}domain: the service serves "trust\.acme\.example" from the project "acme"/,
    );
    assert.match(
      before.stdout,
      /ok {4}domain: the service shows no change of holder of the custom domain/,
    );
    assert.match(before.stdout, /\nVERIFIED: the custom domain "trust\.acme\.example"/);

    // Acme's project is deleted: the domain is reserved.
    await t.deleteProject("alice", acme, "acme");
    const logAtDeletion = await treeSize(server.baseUrl);
    const again = await claim("bob", globex);
    assert.equal(again.status, 409, JSON.stringify(again.json));
    assert.equal(again.json.error.code, "conflict");
    assert.match(
      again.json.error.message,
      /custom domain "trust\.acme\.example" belonged to a deleted project and is reserved/,
    );
    const carolProject = await workspace("carol", "initech");
    assert.equal((await claim("carol", carolProject)).status, 409);
    const list = await (await as("bob"))("GET", `/projects/${globex}/domains`);
    assert.deepEqual(list.json.domains, [], "nothing was stored");
    // (A claim made before the deletion lapses with the grace, PENDING_DOMAIN_DAYS = 7; its
    // verification is refused the same way: tests/store/domains_test.ts.)

    // The operator releases it: Globex claims and verifies it, and the domain serves Globex.
    const released = await names(t.kvPath, "release", "domain", DOMAIN.toUpperCase());
    assert.equal(released.code, 0, released.stderr);
    t.clock.advance(60_000);
    const globexClaim = await claim("bob", globex);
    assert.equal(globexClaim.status, 201, JSON.stringify(globexClaim.json));
    const globexDomain = globexClaim.json.domain.domain;
    dns.records.set(`_service.${DOMAIN}`, [[
      `trust-verification=${globexDomain.verificationToken}`,
    ]]);
    const logBeforeVerify = await treeSize(server.baseUrl);
    const now = await verify("bob", globex, globexDomain.id);
    assert.equal(now.status, 200, JSON.stringify(now.json));
    assert.equal(now.json.domain.domain.verificationStatus, "verified");
    const page = await getWithHost(server.baseUrl, "/trust.json", DOMAIN);
    assert.equal(page.status, 200);
    assert.match(page.body, /"slug":\s*"globex"/);
    // The verification appended the change of holder to the log, and the domain's profile
    // says since which entry the domain is Globex's.
    const profile = await (await fetch(`${server.baseUrl}/trust/domains/${DOMAIN}`)).json();
    const change = profile.publisherChange;
    assert.ok(change, JSON.stringify(profile).slice(0, 300));
    assert.equal(profile.profile.project.slug, "globex");
    const globexOrg = (await t.kv.get<{ organizationId: string }>(["projects", globex])).value!
      .organizationId;
    assert.equal(change.leafIndex, logBeforeVerify, "appended when the domain was verified");
    assert.equal(
      change.entry,
      `${NAME_CHANGE_HEADERS.domain}\n${DOMAIN}\n${logAtDeletion}\n${globex}\nglobex\n` +
        `${globexOrg}\n${t.clock.now().toISOString()}\n`,
    );
    assert.equal(change.kind, "domain");
    assert.equal(change.name, DOMAIN);
    assert.match(change.releasedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(
      change.notice,
      new RegExp(
        `custom domain "trust\\.acme\\.example" belonged to a deleted project; it was released by the service's operator on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC and is now held by another publisher since entry ${change.leafIndex} of the publication log \\(organization "globex"`,
      ),
    );
    await assertLogged(server.baseUrl, change.leafIndex, change.entry, logBeforeVerify);
    await assertDomainPagesSay(server.baseUrl, DOMAIN, "globex", change.notice);
    // The kit at the domain's URL: a different publisher of the domain, not VERIFIED, until
    // the buyer pins that change.
    const n = change.leafIndex;
    const after = await runKit(server, t.dir, [domainUrl, "--server", server.baseUrl]);
    assert.equal(after.code, 1, `${after.stdout}\n${after.stderr}`);
    assert.match(
      after.stdout,
      new RegExp(
        `FAIL {2}domain: a different publisher of the custom domain "trust\\.acme\\.example" since entry ${n}: organization "globex" \\(${globexOrg}\\), project ${globex}`,
      ),
    );
    assert.match(after.stdout, new RegExp(`verify with --pin domain=${n}`));
    assert.match(after.stdout, /NOT VERIFIED/);
    const pinned = await runKit(server, t.dir, [
      domainUrl,
      "--server",
      server.baseUrl,
      "--pin",
      `domain=${n}`,
    ]);
    assert.equal(pinned.code, 0, `${pinned.stdout}\n${pinned.stderr}`);
    assert.match(pinned.stdout, new RegExp(`ok {4}domain: .*accepted with --pin domain=${n}`));
    assert.match(pinned.stdout, new RegExp(`${domainUrl} --server \\S+ .*--pin domain=${n}\\n`));
    assert.match(pinned.stdout, /\nVERIFIED: the custom domain "trust\.acme\.example"/);
    // The project's own slug never changed hands: verified as ever without the pin.
    const bySlug = await runKit(server, t.dir, ["globex"]);
    assert.equal(bySlug.code, 0, bySlug.stdout);
    const misplaced = await runKit(server, t.dir, ["globex", "--pin", `domain=${n}`]);
    assert.equal(misplaced.code, 2, "a domain pin is for a custom domain's URL");

    // Taken by Globex: Initech's claim is refused as for any verified name.
    const late = await claim("carol", carolProject);
    assert.equal(late.status, 409);
    assert.match(late.json.error.message, /verified by another project/);

    // Globex's project is deleted in turn: the entry is erased to its hash with the rest.
    await t.deleteProject("bob", globex, "globex");
    const erased = await (await fetch(`${server.baseUrl}/log/entries/${change.leafIndex}`)).json();
    assert.deepEqual({ entry: erased.entry, leafHash: erased.leafHash }, {
      entry: null,
      leafHash: change.leafHash,
    });
    const rows = await dumpKv(t.kv);
    assert.deepEqual(rows.filter((r) => r.text.includes(globex)).map((r) => r.text), []);
  } finally {
    await t.close();
    await dns.close();
  }
});

Deno.test("[e2e] a released organization slug taken by another tenant: the log records the change of publisher and the trust center's JSON shows it", async () => {
  const t = await startOnFile();
  try {
    const { server, as } = t;
    const alice = await as("alice");
    const boot = await alice("POST", "/onboarding/bootstrap", {
      workspaceName: "Acme",
      workspaceSlug: "acme",
      projectName: "Acme Cloud",
      projectSlug: "acme-cloud",
      projectVisibility: "public",
    });
    assert.equal(boot.status, 201, JSON.stringify(boot.json));
    const acmeOrg: string = boot.json.organization.id;
    assert.equal((await alice("POST", `/projects/${boot.json.project.id}/publish`)).status, 201);
    const center = await (await fetch(`${server.baseUrl}/public/trust/acme`)).json();
    assert.equal(center.organization.slug, "acme");
    assert.equal(center.publisherChange, undefined, "a slug with no earlier holder");
    // The kit run on the trust center's URL: no change of holder, and the projects to verify.
    const centerUrl = `${server.baseUrl}/public/trust/acme`;
    const first = await runKit(server, t.dir, [centerUrl]);
    assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
    assert.match(
      first.stdout,
      /ok {4}organization: the service shows no change of holder of the organization slug "acme"/,
    );
    assert.ok(
      first.stdout.includes(
        `deno run --allow-net ${server.baseUrl}/verify.ts ${server.baseUrl}/trust/acme-cloud`,
      ),
      first.stdout,
    );
    assert.match(first.stdout, /\nVERIFIED: the trust center "acme"/);
    const misuse = await runKit(server, t.dir, [centerUrl, "--pin", "publisher=1"]);
    assert.equal(misuse.code, 2, misuse.stderr);

    // Acme's organization is deleted: its slug and its project's are reserved.
    const scheduled = await alice("POST", `/organizations/${acmeOrg}/deletion`, {
      confirm: "acme",
    });
    assert.equal(scheduled.status, 202, JSON.stringify(scheduled.json));
    t.clock.advance(DELETION_GRACE_MS + 60_000);
    await drain(server);
    const logAtDeletion = await treeSize(server.baseUrl);
    const bob = await as("bob");
    const refused = await bob("POST", "/organizations", { name: "Acme", slug: "acme" });
    assert.equal(refused.status, 409, JSON.stringify(refused.json));
    assert.match(refused.json.error.message, /belonged to a deleted organization and is reserved/);

    // Released: Bob's organization takes the slug; the log records it in the same commit.
    const released = await names(t.kvPath, "release", "organization", "acme");
    assert.equal(released.code, 0, released.stderr);
    t.clock.advance(60_000);
    const taken = await bob("POST", "/organizations", { name: "Acme Again", slug: "acme" });
    assert.equal(taken.status, 201, JSON.stringify(taken.json));
    const bobOrg: string = taken.json.organization.id;
    const takenAt = t.clock.now().toISOString();
    assert.equal(await treeSize(server.baseUrl), logAtDeletion + 1);
    const now = await (await fetch(`${server.baseUrl}/public/trust/acme`)).json();
    const change = now.publisherChange;
    assert.ok(change, JSON.stringify(now).slice(0, 300));
    assert.equal(now.organization.name, "Acme Again");
    assert.equal(change.leafIndex, logAtDeletion);
    assert.equal(
      change.entry,
      `${NAME_CHANGE_HEADERS.organization}\nacme\n${logAtDeletion}\n-\nacme\n${bobOrg}\n${takenAt}\n`,
    );
    assert.deepEqual([change.kind, change.name], ["organization", "acme"]);
    assert.match(
      change.notice,
      new RegExp(
        `organization slug "acme" belonged to a deleted organization; it was released by the service's operator on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC and is now held by another publisher since entry ${logAtDeletion} of the publication log \\(organization "acme", ${bobOrg}\\)`,
      ),
    );
    await assertLogged(server.baseUrl, change.leafIndex, change.entry, logAtDeletion);
    // The kit on the trust center's URL: a different holder of the slug, not VERIFIED, until
    // the buyer pins that change; a different pinned entry fails too.
    const n = change.leafIndex;
    const after = await runKit(server, t.dir, [centerUrl]);
    assert.equal(after.code, 1, `${after.stdout}\n${after.stderr}`);
    assert.match(
      after.stdout,
      new RegExp(
        `FAIL {2}organization: a different publisher of the organization slug "acme" since entry ${n}: organization "acme" \\(${bobOrg}\\), since ${takenAt}`,
      ),
    );
    assert.match(after.stdout, new RegExp(`verify with --pin organization=${n}`));
    assert.match(after.stdout, /NOT VERIFIED: 1 check\(s\) failed for the trust center "acme"/);
    const pinned = await runKit(server, t.dir, [centerUrl, "--pin", `organization=${n}`]);
    assert.equal(pinned.code, 0, `${pinned.stdout}\n${pinned.stderr}`);
    assert.match(
      pinned.stdout,
      new RegExp(
        `ok {4}organization: a different publisher of the organization slug "acme" since entry ${n} .*accepted with --pin organization=${n}`,
      ),
    );
    const wrong = await runKit(server, t.dir, [centerUrl, "--pin", `organization=${n - 1}`]);
    assert.equal(wrong.code, 1, wrong.stdout);
    assert.match(wrong.stdout, new RegExp(`you pinned the change at entry ${n - 1}`));
    // MCP's trust center tool answers the same body, the change included.
    const client = new Client({ name: "names-reuse-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)));
    try {
      const result = await client.callTool({
        name: "list_organization_projects",
        arguments: { orgSlug: "acme" },
      });
      assert.ok(!result.isError, JSON.stringify(result).slice(0, 300));
      const structured = result.structuredContent as { publisherChange?: { entry: string } };
      assert.equal(structured.publisherChange?.entry, change.entry);
    } finally {
      await client.close();
    }
    // The trust center's page and Markdown say it under the title.
    for (const suffix of [".html", ".md"]) {
      const text = await (await fetch(`${server.baseUrl}/public/trust/acme${suffix}`)).text();
      assert.match(text, /Another publisher\./, suffix);
      assert.match(
        text,
        new RegExp(`held by another publisher since entry ${logAtDeletion} of the publication log`),
        suffix,
      );
    }

    // Bob's organization is deleted in turn: the entry goes to its hash with the rest.
    const again = await bob("POST", `/organizations/${bobOrg}/deletion`, { confirm: "acme" });
    assert.equal(again.status, 202, JSON.stringify(again.json));
    t.clock.advance(DELETION_GRACE_MS + 60_000);
    await drain(server);
    const erased = await (await fetch(`${server.baseUrl}/log/entries/${change.leafIndex}`)).json();
    assert.deepEqual({ entry: erased.entry, leafHash: erased.leafHash }, {
      entry: null,
      leafHash: change.leafHash,
    });
    assert.deepEqual(
      (await dumpKv(t.kv)).filter((r) => r.text.includes(bobOrg)).map((r) => r.text),
      [],
    );

    // A workspace takes the released organization slug and the released project slug at
    // once: both records are appended in its one commit, in that order, and the log holds.
    for (const [kind, name] of [["organization", "acme"], ["project", "acme-cloud"]]) {
      const run = await names(t.kvPath, "release", kind, name);
      assert.equal(run.code, 0, `${kind} ${name}: ${run.stderr}`);
    }
    const before = await treeSize(server.baseUrl);
    const carol = await as("carol");
    const workspace = await carol("POST", "/onboarding/bootstrap", {
      workspaceName: "Acme Third",
      workspaceSlug: "acme",
      projectName: "Acme Cloud",
      projectSlug: "acme-cloud",
      projectVisibility: "public",
    });
    assert.equal(workspace.status, 201, JSON.stringify(workspace.json));
    assert.equal(await treeSize(server.baseUrl), before + 2);
    const third = (await (await fetch(`${server.baseUrl}/public/trust/acme`)).json())
      .publisherChange;
    assert.equal(third.leafIndex, before);
    await assertLogged(server.baseUrl, before, third.entry, before);
    const projectId: string = workspace.json.project.id;
    assert.equal(
      (await carol("POST", `/projects/${projectId}/publish`)).status,
      201,
    );
    const listed = await (await fetch(`${server.baseUrl}/log/publications/acme-cloud`)).json();
    assert.equal(listed.publisherChange.leafIndex, before + 1);
    assert.match(
      listed.publisherChange.entry,
      new RegExp(`^${PUBLISHER_CHANGE_HEADER}\\nacme-cloud\\n`),
    );
    await assertLogged(server.baseUrl, before + 1, listed.publisherChange.entry, before);
    // The kit sees the project slug's change, as for any project slug.
    const kit = await runKit(server, t.dir, ["acme-cloud"]);
    assert.equal(kit.code, 1, kit.stdout);
    assert.match(kit.stdout, new RegExp(`a different publisher since entry ${before + 1}`));
  } finally {
    await t.close();
  }
});
