/**
 * The verifier kit as a buyer runs it: Deno loads /verify.ts from the running
 * service and checks a trust profile in its own process. It passes on what
 * the service published, and fails once one byte of one stored version is
 * changed in KV behind the service's back.
 */
import assert from "node:assert/strict";
import { createKvBlobStore, type KvBlobMeta } from "../../src/blobs/kv.ts";
import type { Publication } from "../../src/domain/publication.ts";
import { sha256HexSync } from "../../src/lib/hash.ts";
import { getPublication } from "../../src/store/publications.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";
import { printedPins, runKit } from "../support/verify_kit.ts";

Deno.test("[e2e] verifier kit served at /verify.ts: verifies a profile, then catches a changed byte", async (t) => {
  const kv = await Deno.openKv(":memory:");
  const dir = await Deno.makeTempDir();
  let server = await startTestServer({ kv, worker: false });
  const baseUrl = server.baseUrl;
  try {
    const token = await server.tokenFor("alice");
    const api = jsonApi(server.baseUrl, token);
    const projectId = await bootstrapAcme(api);
    const publish = async () => {
      const res = await api("POST", `/projects/${projectId}/publish`);
      assert.equal(res.status, 201);
    };
    await publish();
    await publish();
    await publish();

    await t.step(
      "the module is served as TypeScript, and help names where it came from",
      async () => {
        const res = await fetch(`${server.baseUrl}/verify.ts`);
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type") ?? "", /^application\/typescript/);
        assert.equal(
          await res.text(),
          await Deno.readTextFile(new URL("../../src/cli/verify.ts", import.meta.url)),
        );
        const run = await runKit(server, dir, ["--help"]);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, new RegExp(`deno run --allow-net ${server.baseUrl}/verify\\.ts`));
      },
    );

    await t.step("a published profile verifies; the checkpoint is saved to pin", async () => {
      const run = await runKit(server, dir, ["acme", "--save-checkpoint", `${dir}/pinned`]);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, /ok {4}log checkpoint: 127\.0\.0\.1:\d+\/log, 3 entries/);
      for (const n of [1, 2, 3]) {
        assert.match(
          run.stdout,
          new RegExp(`ok {4}version ${n}: signature, chain and log inclusion`),
        );
      }
      assert.match(run.stdout, /VERIFIED: "acme"/);
      assert.match(await Deno.readTextFile(`${dir}/pinned`), /\n3\n/);
    });

    await t.step(
      "the keys trusted on first use are printed; the trust page's pinned command verifies",
      async () => {
        const first = await runKit(server, dir, ["acme"]);
        assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
        assert.match(first.stdout, /note {2}trusted on first use: the publication key\(s\) \S+/);
        const pins = printedPins(first.stdout);
        const jwks = await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json();
        const log = await (await fetch(`${server.baseUrl}/log`)).json();
        assert.ok(jwks.keys.some((k: { kid: string }) => `jwks=${k.kid}` === pins[1]));
        assert.equal(pins[3], `log=${log.verifierKey}`);
        const markdown = await (await fetch(`${server.baseUrl}/trust/acme.md`)).text();
        const html = await (await fetch(`${server.baseUrl}/trust/acme.html`)).text();
        const command = markdown.split("\n").find((line) => line.startsWith("deno run "));
        assert.ok(command, "the page shows the command");
        assert.deepEqual(command.split(" ").slice(-4), pins, "the page pins the same keys");
        assert.ok(html.includes(`<code>${command}</code>`), "the HTML page shows it too");
        const [, , , kit, ...args] = command.split(" ");
        assert.equal(kit, `${server.baseUrl}/verify.ts`);
        const pinned = await runKit(server, dir, args);
        assert.equal(pinned.code, 0, `${pinned.stdout}\n${pinned.stderr}`);
        assert.match(pinned.stdout, /ok {4}pinned: key\(s\) \S+; log key \S+/);
        assert.doesNotMatch(pinned.stdout, /trusted on first use/);
      },
    );

    await t.step(
      "after more publishes, the log proves it only grew since the pinned checkpoint",
      async () => {
        await publish();
        await publish();
        const run = await runKit(server, dir, [
          `${server.baseUrl}/trust/acme`,
          "--checkpoint",
          `${dir}/pinned`,
        ]);
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        assert.match(run.stdout, /log only grew since the pinned checkpoint \(3 → 5 entries\)/);
      },
    );

    await t.step("a usage mistake exits 2, an unknown project 3", async () => {
      assert.equal((await runKit(server, dir, [])).code, 2);
      assert.equal((await runKit(server, dir, ["Not A Slug"])).code, 2);
      for (const pin of ["jwks=short", "jwks=", "log=not-a-key", "keys=x", "log"]) {
        const run = await runKit(server, dir, ["acme", "--pin", pin]);
        assert.equal(run.code, 2, pin);
        assert.match(run.stderr, /--pin/, pin);
      }
      const unknown = await runKit(server, dir, ["nobody"]);
      assert.equal(unknown.code, 3);
      assert.match(unknown.stdout, /NOT VERIFIED/);
    });

    const publication = (await getPublication(kv, projectId, 2))!;
    const metaKey = ["blobs", publication.artifacts.trustJson.key];
    const original = (await kv.get<KvBlobMeta>(metaKey)).value!;
    assert.ok(original.inline, "trust.json is stored inline");
    const altered = original.inline.slice();
    const at = new TextDecoder().decode(altered).indexOf('"pass"');
    altered[at > 0 ? at + 1 : 10] ^= 0x01;
    /** A fresh instance on the same KV and BASE_URL: nothing of the old bytes in its memory. */
    const restart = async () => {
      await server.close();
      server = await startTestServer({ kv, worker: false, env: { BASE_URL: baseUrl } });
    };
    const verifyAgain = () =>
      runKit(server, dir, ["acme", "--server", server.baseUrl, "--checkpoint", `${dir}/pinned`]);

    await t.step("one byte of version 2's stored trust.json flipped: the kit fails", async () => {
      // The kit's fetch accepts brotli, so it would be served the stored encoding, which this
      // flip leaves alone: drop the encodings, so the flipped bytes are what every client gets.
      const record = (await kv.get<Publication>(["publications", projectId, 2])).value!;
      const { encodings: _kept, ...bare } = record.artifacts.trustJson;
      await kv.set(["publications", projectId, 2], {
        ...record,
        artifacts: { ...record.artifacts, trustJson: bare },
      });
      await kv.set(metaKey, { ...original, inline: altered });
      await restart();
      const run = await verifyAgain();
      assert.notEqual(run.code, 0, run.stdout);
      assert.match(run.stdout, /NOT VERIFIED/);
      await kv.set(metaKey, original);
      await kv.set(["publications", projectId, 2], record);
    });

    await t.step(
      "version 2 rewritten consistently in KV (bytes, key, digest): the kit fails",
      async () => {
        // An operator with KV access stores the changed bytes under their own address and points
        // the version at them, so the service serves them without complaint.
        const [key] = await createKvBlobStore(kv).putMany("artifact", [altered]);
        const digest = `sha256:${sha256HexSync(altered)}`;
        const stored = (await kv.get<Publication>(["publications", projectId, 2])).value!;
        await kv.set(["publications", projectId, 2], {
          ...stored,
          digest,
          artifacts: { ...stored.artifacts, trustJson: { key, digest } },
        });
        await restart();
        const served = await fetch(`${server.baseUrl}/trust/acme/versions/2/trust.json`);
        assert.equal(served.status, 200);
        assert.deepEqual(new Uint8Array(await served.arrayBuffer()), altered);
        const run = await verifyAgain();
        assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
        assert.match(run.stdout, /FAIL {2}version 2: .*JWS signs other bytes/);
        assert.match(run.stdout, /FAIL {2}version 2: .*inclusion proof does not verify/);
        assert.match(run.stdout, /FAIL {2}version 3: .*prev is sha256:/);
        assert.match(run.stdout, /ok {4}version 1:/);
        assert.match(run.stdout, /NOT VERIFIED: \d+ check\(s\) failed/);
      },
    );
  } finally {
    await server.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
