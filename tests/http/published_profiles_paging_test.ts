/**
 * GET /projects/{id}/published-profiles in pages: newest first, `limit` and `cursor`,
 * nextCursor in the body and Link rel="next", null on the last page; bad paging input is a
 * 400; the authorization matrix (anonymous 401, non-member 403, member 200).
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";

Deno.test("published-profiles pages with cursor and limit", async () => {
  await using t = await createTestApp();
  const token = await t.tokenFor("pia");
  const boot = await (await t.call("POST", "/onboarding/bootstrap", {
    token,
    json: { workspaceName: "Paging", projectName: "Pages" },
  })).json();
  const id = boot.project.id;
  for (let i = 0; i < 5; i++) {
    const res = await t.call("POST", `/projects/${id}/publish`, { token });
    assert.equal(res.status, 201);
    await res.body?.cancel();
  }
  const list = async (query: string) => {
    const res = await t.call("GET", `/projects/${id}/published-profiles${query}`, { token });
    assert.equal(res.status, 200);
    const body = await res.json();
    return {
      versions: body.publishedProfiles.map((p: { version: number }) => p.version),
      next: body.nextCursor,
      link: res.headers.get("link"),
    };
  };

  const all = await list("");
  assert.deepEqual(all, { versions: [5, 4, 3, 2, 1], next: null, link: null });
  const first = await list("?limit=2");
  assert.deepEqual(first.versions, [5, 4]);
  assert.equal(first.next, "4");
  assert.equal(first.link, `</projects/${id}/published-profiles?limit=2&cursor=4>; rel="next"`);
  const second = await list(`?limit=2&cursor=${first.next}`);
  assert.deepEqual(second.versions, [3, 2]);
  const last = await list(`?limit=2&cursor=${second.next}`);
  assert.deepEqual(last, { versions: [1], next: null, link: null });

  for (const bad of ["?limit=0", "?limit=101", "?cursor=abc", "?cursor=0"]) {
    const res = await t.call("GET", `/projects/${id}/published-profiles${bad}`, { token });
    assert.equal(res.status, 400, bad);
    assert.equal((await res.json()).error.code !== undefined, true);
  }

  const anonymous = await t.call("GET", `/projects/${id}/published-profiles`);
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
  const stranger = await t.call("GET", `/projects/${id}/published-profiles`, {
    token: await t.tokenFor("stranger"),
  });
  assert.equal(stranger.status, 403);
  await stranger.body?.cancel();
});
