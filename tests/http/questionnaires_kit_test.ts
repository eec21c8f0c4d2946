/**
 * An answered questionnaire verified as a buyer does, offline: the kit is the copy of /verify.ts
 * the service serves, run by Deno with read access to one folder and no network, given the
 * manifest, the answered file, the JWKS and the published version the answers rest on. It
 * verifies; it fails after one answer cell changed, when another version is given in place of
 * the pinned one, and when the manifest's version number is swapped. A manifest that pins no
 * version (no answer cites a control) verifies with the doc's --version all the same.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { fixture, knowledgeBase, ok } from "../support/questionnaires.ts";

async function bytesOf(ctx: TestApp, path: string, token?: string): Promise<Uint8Array> {
  const res = await ctx.call("GET", path, { token });
  assert.equal(res.status, 200, path);
  return new Uint8Array(await res.arrayBuffer());
}

/** The kit run from `dir` with read access to it only. */
async function kit(dir: string, args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-lock",
      "--no-config",
      "--quiet",
      `--allow-read=${dir}`,
      `${dir}/verify.ts`,
      "questionnaire",
      ...args,
    ],
    cwd: dir,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

Deno.test("[questionnaires] the kit verifies an answered questionnaire offline, and catches changes", async (t) => {
  await using ctx = await createTestApp();
  const kb = await knowledgeBase(ctx);
  const upload = await ctx.call("POST", `/organizations/${kb.orgId}/questionnaires`, {
    token: kb.member,
    body: await fixture("caiq_v4.0.3.xlsx") as Uint8Array<ArrayBuffer>,
  });
  const { questionnaire } = await ok(upload, 201);
  const base = `/organizations/${kb.orgId}/questionnaires/${questionnaire.id}`;
  await ok(await ctx.call("POST", `${base}/accept-id-matches`, { token: kb.member }));
  const dir = await Deno.makeTempDir();
  try {
    const slug = kb.project.slug;
    const write = (name: string, bytes: Uint8Array) => Deno.writeFile(`${dir}/${name}`, bytes);
    await write("verify.ts", await bytesOf(ctx, "/verify.ts"));
    await write("jwks.json", await bytesOf(ctx, "/.well-known/jwks.json"));
    await write("answered.xlsx", await bytesOf(ctx, `${base}/export`, kb.member));
    const manifest = await bytesOf(ctx, `${base}/manifest`, kb.member);
    await write("manifest.jws", manifest);
    await write("v1.json", await bytesOf(ctx, `/trust/${slug}/versions/1/trust.json`));
    await write("v1.jws", await bytesOf(ctx, `/trust/${slug}/versions/1/trust.json.jws`));
    const args = ["manifest.jws", "answered.xlsx", "--jwks", "jwks.json"];

    await t.step("verifies: signature, file digest, the pinned version (JSON or JWS)", async () => {
      for (const version of ["v1.json", "v1.jws"]) {
        const run = await kit(dir, [...args, "--version", version]);
        assert.equal(run.code, 0, run.stdout + run.stderr);
        assert.match(run.stdout, /^ok {4}manifest: signed by key/m);
        assert.match(run.stdout, /^ok {4}file: answered\.xlsx is the answered file/m);
        assert.match(run.stdout, new RegExp(`^ok {4}${slug} v1: the trust.json`, "m"));
        assert.match(run.stdout, /VERIFIED/);
      }
      const unchecked = await kit(dir, args);
      assert.equal(unchecked.code, 0);
      assert.match(unchecked.stdout, /note {2}.* v1 not checked: give .*versions\/1\/trust\.json/);
    });

    await t.step(
      "no answer cites a control: --version as the doc shows still verifies",
      async () => {
        // The free-form CSV: only answers without citations are accepted, so the manifest pins
        // no version; a buyer following docs/verifier_kit.md still gives the latest trust.json.
        const csv = await ok(
          await ctx.call("POST", `/organizations/${kb.orgId}/questionnaires`, {
            token: kb.member,
            body: await fixture("free_form_utf8.csv") as Uint8Array<ArrayBuffer>,
          }),
          201,
        );
        const other = `/organizations/${kb.orgId}/questionnaires/${csv.questionnaire.id}`;
        const { rows } = await ok(
          await ctx.call("GET", `${other}/rows?limit=50`, { token: kb.member }),
        );
        // An edit cites nothing: the manifest pins no published version.
        await ok(
          await ctx.call("PATCH", `${other}/rows/${rows[0].key}`, {
            token: kb.member,
            json: { state: "edited", answer: "Yes, every year." },
          }),
        );
        await write("plain.csv", await bytesOf(ctx, `${other}/export`, kb.member));
        await write("plain.jws", await bytesOf(ctx, `${other}/manifest`, kb.member));
        const run = await kit(dir, [
          "plain.jws",
          "plain.csv",
          "--jwks",
          "jwks.json",
          "--version",
          "v1.json",
        ]);
        assert.equal(run.code, 0, run.stdout + run.stderr);
        assert.match(run.stdout, /^note {2}v1\.json: not needed, no answer rests on /m);
        assert.match(run.stdout, /^VERIFIED/m);
      },
    );

    await t.step("one answer cell changed: FAIL", async () => {
      const audit = (await ok(await ctx.call("GET", `${base}/rows?limit=1`, { token: kb.member })))
        .rows[0];
      await ok(
        await ctx.call("PATCH", `${base}/rows/${audit.key}`, {
          token: kb.member,
          json: { state: "edited", answer: "No." },
        }),
      );
      await write("changed.xlsx", await bytesOf(ctx, `${base}/export`, kb.member));
      const run = await kit(dir, ["manifest.jws", "changed.xlsx", "--jwks", "jwks.json"]);
      assert.equal(run.code, 1, run.stdout);
      assert.match(run.stdout, /^FAIL {2}file: changed\.xlsx is not the file the manifest signs/m);
      assert.match(run.stdout, /NOT VERIFIED/);
    });

    await t.step("another version in place of the pinned one: FAIL", async () => {
      await ok(
        await ctx.call("POST", `/projects/${kb.project.id}/publish`, { token: kb.owner }),
        201,
      );
      await write("v2.json", await bytesOf(ctx, `/trust/${slug}/versions/2/trust.json`));
      const run = await kit(dir, [...args, "--version", "v2.json"]);
      assert.equal(run.code, 1, run.stdout);
      assert.match(run.stdout, /^FAIL {2}v2\.json: .* v2 .* is not a version the manifest pins/m);
    });

    await t.step("the manifest's version number swapped: the signature fails", async () => {
      const [header, payload, signature] = new TextDecoder().decode(manifest).split(".");
      const json = new TextDecoder().decode(
        Uint8Array.from(
          atob(payload.replace(/-/g, "+").replace(/_/g, "/")),
          (c) => c.charCodeAt(0),
        ),
      );
      const swapped = json.replaceAll('"version":1', '"version":2');
      assert.notEqual(swapped, json);
      const forged = `${header}.${base64Url(new TextEncoder().encode(swapped))}.${signature}`;
      await write("forged.jws", new TextEncoder().encode(forged));
      const run = await kit(dir, ["forged.jws", "answered.xlsx", "--jwks", "jwks.json"]);
      assert.equal(run.code, 1, run.stdout);
      assert.match(run.stdout, /^FAIL {2}manifest: the JWS signature does not verify/m);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
