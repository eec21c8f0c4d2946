/**
 * The verifier kit against a dishonest middle: a proxy on 127.0.0.1 forwards every request
 * to the live service and rewrites some answers — a version dropped from the listing, the
 * newest one hidden, the listing reordered, the JWKS key swapped, or every signature forged
 * with keys of its own. Each exits non-zero with a message naming the problem; a forgery
 * consistent enough to pass on first use fails once the keys are pinned. And a project with
 * 150 versions (two pages of listing and of log entries) verifies all of them.
 */
import assert from "node:assert/strict";
import { calculateJwkThumbprint } from "jose";
import { decodeBase64Url, encodeBase64Url } from "../../src/lib/encoding.ts";
import { noteVerifierKey, signNote } from "../../src/lib/signed_note.ts";
import { bootstrapAcme, jsonApi, startTestServer, type TestServer } from "../support/server.ts";
import { printedPins, runKit } from "../support/verify_kit.ts";

/** Rewrites the upstream answer to a request for `url`; undefined passes it through. */
type Tamper = (url: URL, upstream: () => Promise<Response>) => Promise<Response | undefined>;

/** A proxy in front of `upstream` whose rewriting is switched per step. */
function startProxy(upstream: string) {
  let tamper: Tamper = () => Promise.resolve(undefined);
  const forward = (url: URL, path = `${url.pathname}${url.search}`) => fetch(`${upstream}${path}`);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    return await tamper(url, () => forward(url)) ?? await forward(url);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    forward: (path: string) => fetch(`${upstream}${path}`),
    set(next: Tamper) {
      tamper = next;
    },
    close: () => server.shutdown(),
  };
}

const json = (body: unknown) => Response.json(body);

/** The listing's JSON with `edit` applied to its versions, for /trust/acme/versions only. */
function editListing(edit: (versions: Array<{ version: number }>) => unknown[]): Tamper {
  return async (url, upstream) => {
    if (url.pathname !== "/trust/acme/versions") return undefined;
    const body = await (await upstream()).json();
    return json({ ...body, versions: edit(body.versions) });
  };
}

/** An Ed25519 key pair of the forger's, with its JWK, RFC 7638 kid and raw public key. */
async function forgerKey() {
  const pair = await crypto.subtle.generateKey("Ed25519", true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  const kid = await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: jwk.x! });
  return {
    privateKey: pair.privateKey,
    kid,
    jwk: { kty: "OKP", crv: "Ed25519", x: jwk.x!, kid, alg: "EdDSA", use: "sig" },
    raw: decodeBase64Url(jwk.x!),
  };
}

const encoder = new TextEncoder();

Deno.test("[e2e] verifier kit behind a tampering proxy: omissions, reordering and swapped keys all fail", async (t) => {
  const dir = await Deno.makeTempDir();
  await using server = await startTestServer({ worker: false });
  const proxy = startProxy(server.baseUrl);
  try {
    const api = jsonApi(server.baseUrl, await server.tokenFor("alice"));
    const projectId = await bootstrapAcme(api);
    for (let i = 0; i < 5; i++) {
      assert.equal((await api("POST", `/projects/${projectId}/publish`)).status, 201);
    }
    const kit = (args: string[]) => runKit(server, dir, [`${proxy.url}/trust/acme`, ...args]);
    const failsWith = async (problem: RegExp, args: string[] = []) => {
      const run = await kit(args);
      assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, problem);
      assert.match(run.stdout, /NOT VERIFIED: \d+ check\(s\) failed for "acme"/);
      return run.stdout;
    };
    let pins: string[] = [];

    await t.step(
      "passed through untouched, the profile verifies; its keys are printed",
      async () => {
        const run = await kit([]);
        assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
        assert.match(run.stdout, /ok {4}listing: versions 1-5, newest first/);
        assert.match(
          run.stdout,
          /ok {4}log: the project's 5 entries up to the checkpoint are exactly/,
        );
        pins = printedPins(run.stdout);
      },
    );

    await t.step("version 2 dropped from the listing", async () => {
      proxy.set(editListing((versions) => versions.filter((v) => v.version !== 2)));
      const out = await failsWith(
        /FAIL {2}listing: version\(s\) 2 of 1-5 missing from the listing/,
      );
      assert.match(
        out,
        /FAIL {2}version 3: version 2 is missing, so its prev sha256:\S+ is unchecked/,
      );
      assert.match(out, /FAIL {2}version 4: it follows version 3, which did not verify/);
      assert.match(
        out,
        /FAIL {2}log: version 2 is in the log \(entry 1, inclusion verified\) but not listed/,
      );
      assert.match(out, /ok {4}version 1:/);
    });

    await t.step(
      "the newest version hidden from the listing and the latest trust.json",
      async () => {
        const listing = editListing((versions) => versions.filter((v) => v.version !== 5));
        proxy.set(async (url, upstream) => {
          if (url.pathname === "/trust/acme/trust.json") {
            return await proxy.forward("/trust/acme/versions/4/trust.json");
          }
          return await listing(url, upstream);
        });
        const out = await failsWith(
          /FAIL {2}log: version 5 is in the log \(entry 4, inclusion verified\) but not listed/,
        );
        assert.match(out, /ok {4}listing: versions 1-4/, "the listing alone looks whole");
        assert.match(out, /ok {4}latest: .* is version 4/, "the latest document agrees with it");
      },
    );

    await t.step("the newest version hidden from the listing only", async () => {
      proxy.set(editListing((versions) => versions.filter((v) => v.version !== 5)));
      const out = await failsWith(/FAIL {2}latest: \S+ is version 5, but the listing ends at 4/);
      assert.match(out, /FAIL {2}log: version 5 is in the log/);
    });

    await t.step("the listing reordered", async () => {
      proxy.set(editListing((versions) => [...versions].reverse()));
      await failsWith(
        /FAIL {2}listing: out of order \(newest first expected\): version 2 comes after version 1/,
      );
    });

    await t.step("a version listed twice, in place of another", async () => {
      proxy.set(editListing((versions) => versions.map((v) => v.version === 3 ? versions[0] : v)));
      const out = await failsWith(/FAIL {2}listing: version\(s\) 5 listed twice/);
      assert.match(out, /FAIL {2}listing: version\(s\) 3 of 1-5 missing/);
    });

    await t.step("the JWKS serves another key under the publication key's id", async () => {
      const forger = await forgerKey();
      proxy.set(async (url, upstream) => {
        if (url.pathname !== "/.well-known/jwks.json") return undefined;
        const body = await (await upstream()).json();
        const [first, ...rest] = body.keys;
        return json({ keys: [{ ...first, x: forger.jwk.x }, ...rest] });
      });
      const out = await failsWith(
        /FAIL {2}JWKS: key "\S+" is not the key its id names \(its RFC 7638 thumbprint differs\)/,
      );
      assert.match(out, /FAIL {2}version 1: signed by key "\S+", which the JWKS does not hold/);
    });

    await t.step(
      "every signature forged with the proxy's own keys: trusted on first use, refused when pinned",
      async () => {
        const publication = await forgerKey(), logKey = await forgerKey();
        proxy.set(async (url, upstream) => {
          if (url.pathname === "/.well-known/jwks.json") return json({ keys: [publication.jwk] });
          if (url.pathname.endsWith("/trust.json.jws")) {
            const [header, payload] = (await (await upstream()).text()).split(".");
            const forged = encodeBase64Url(encoder.encode(JSON.stringify({
              ...JSON.parse(new TextDecoder().decode(decodeBase64Url(header))),
              kid: publication.kid,
            })));
            const signature = await crypto.subtle.sign(
              "Ed25519",
              publication.privateKey,
              encoder.encode(`${forged}.${payload}`),
            );
            return new Response(
              `${forged}.${payload}.${encodeBase64Url(new Uint8Array(signature))}`,
            );
          }
          if (url.pathname === "/log") {
            const body = await (await upstream()).json();
            return json({ ...body, verifierKey: noteVerifierKey(body.origin, logKey.raw) });
          }
          if (url.pathname === "/log/checkpoint") {
            const note = await (await upstream()).text();
            const text = note.slice(0, note.indexOf("\n\n") + 1);
            const name = text.split("\n")[0];
            return new Response(
              await signNote(text, { name, publicKey: logKey.raw, privateKey: logKey.privateKey }),
            );
          }
          return undefined;
        });
        const unpinned = await kit([]);
        assert.equal(unpinned.code, 0, `${unpinned.stdout}\n${unpinned.stderr}`);
        assert.notDeepEqual(printedPins(unpinned.stdout), pins, "it prints the forger's keys");
        assert.deepEqual(printedPins(unpinned.stdout)[1], `jwks=${publication.kid}`);

        const out = await failsWith(/FAIL {2}JWKS: the pinned key "\S+" is not served/, pins);
        assert.match(
          out,
          /FAIL {2}log checkpoint: the checkpoint carries no valid signature by the log's key \(checked with the pinned log key\)/,
        );
        const jwksOnly = await failsWith(
          /FAIL {2}version 1: signed by key "\S+", which is not pinned/,
          pins.slice(0, 2),
        );
        assert.match(
          jwksOnly,
          /ok {4}log checkpoint: .* signed by the log key the service publishes/,
        );
      },
    );

    await t.step("with nothing rewritten, the pinned keys verify again", async () => {
      proxy.set(() => Promise.resolve(undefined));
      const run = await kit(pins);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, /VERIFIED: "acme"/);
    });
  } finally {
    await proxy.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[e2e] verifier kit: a project with 150 versions verifies all of them, page by page", async () => {
  const dir = await Deno.makeTempDir();
  await using server: TestServer = await startTestServer({ worker: false });
  try {
    const api = jsonApi(server.baseUrl, await server.tokenFor("alice"));
    const projectId = await bootstrapAcme(api);
    for (let i = 0; i < 150; i++) {
      assert.equal((await api("POST", `/projects/${projectId}/publish`)).status, 201);
    }
    const run = await runKit(server, dir, ["acme"]);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /ok {4}listing: versions 1-150, newest first, on 2 page\(s\)/);
    const versions = [...run.stdout.matchAll(/^ok {4}version (\d+): signature, chain and log/gm)];
    assert.deepEqual(
      versions.map((m) => Number(m[1])),
      Array.from({ length: 150 }, (_, i) => i + 1),
    );
    assert.match(
      run.stdout,
      /ok {4}log: the project's 150 entries up to the checkpoint are exactly the 150 versions verified/,
    );
    assert.match(run.stdout, /VERIFIED: "acme"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
