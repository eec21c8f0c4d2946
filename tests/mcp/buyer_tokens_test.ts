/**
 * The MCP server with buyer tokens (issue 35), through the SDK's own client over Streamable
 * HTTP: a service token lists and reads what its buyer organization is granted, with the same
 * scope as the REST routes; it is refused outside the grant and at another trust center (a
 * tool error), and after revocation or expiry (401 in the error envelope, before any
 * JSON-RPC); every read lands in the vendor's inventory and summaries and in the buyer's own;
 * another buyer organization's token sees nothing of the first's grants; anonymous clients
 * keep the public tools only.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createTestApp, TEST_BASE_URL, type TestApp } from "../support/app.ts";
import { PDFDocument } from "@cantoo/pdf-lib";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";
import type { MailMessage } from "../../src/mail/mod.ts";
import { recordingMailer } from "../support/recording_mailer.ts";
import { MAX_EMBEDDED_DOCUMENT_BYTES } from "../../src/mcp/buyer_tools.ts";
import { setBuyerGrant } from "../../src/store/buyers.ts";
import { addDocument } from "../../src/store/documents.ts";
import { tokenHash } from "../../src/serve/buyer_sessions.ts";

const DAY = 24 * 60 * 60 * 1000;

/** A one-page PDF past the embedding bound: it carries an attachment of random bytes. */
async function largePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([400, 300]);
  const noise = new Uint8Array(MAX_EMBEDDED_DOCUMENT_BYTES + 256 * 1024);
  for (let i = 0; i < noise.length; i += 65536) {
    crypto.getRandomValues(noise.subarray(i, i + 65536));
  }
  await doc.attach(noise, "appendix.bin", { mimeType: "application/octet-stream" });
  return await doc.save();
}

/** A session token of `email` at `slug`'s trust center, through the emailed link. */
async function session(ctx: TestApp, sent: MailMessage[], slug: string, email: string) {
  const asked = await ctx.call("POST", `/public/trust/${slug}/buyer/sign-in`, { json: { email } });
  assert.equal(asked.status, 202, await asked.clone().text());
  await asked.body?.cancel();
  const link = sent.at(-1)!.text.match(/#sign-in=([A-Za-z0-9_-]{43})/);
  assert.ok(link);
  const res = await ctx.call("POST", `/public/trust/${slug}/buyer/sessions`, {
    json: { token: link[1] },
  });
  assert.equal(res.status, 201);
  return (await res.json()).sessionToken as string;
}

/** The SDK's client over Streamable HTTP, its requests answered by the in-process app. */
async function connect(ctx: TestApp, bearer?: string): Promise<Client> {
  const client = new Client({ name: "buyer-token-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${TEST_BASE_URL}/mcp`), {
      requestInit: bearer ? { headers: { authorization: `Bearer ${bearer}` } } : undefined,
      // In process, no client stack adds the Host header a real request carries.
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set("host", new URL(TEST_BASE_URL).host);
        return Promise.resolve(ctx.app.request(input, { ...init, headers }));
      },
    }),
  );
  return client;
}

type Content = {
  type: string;
  text?: string;
  uri?: string;
  mimeType?: string;
  resource?: { uri: string; mimeType: string; blob?: string; text?: string };
};

function textOf(result: unknown): string {
  return (result as { content?: Content[] }).content?.[0]?.text ?? "";
}

/** The SDK client's error for a 401 answered in the error envelope saying `message`. */
function refusedWith401(message: RegExp) {
  return (error: unknown) => {
    assert.equal((error as { code?: number }).code, 401);
    assert.match((error as Error).message, /"code":"unauthorized"/);
    assert.match((error as Error).message, message);
    return true;
  };
}

/** A raw POST /mcp (initialize) with `bearer`, for the HTTP layer's answer. */
function rawInitialize(ctx: TestApp, bearer: string) {
  return ctx.call("POST", "/mcp", {
    token: bearer,
    headers: { accept: "application/json, text/event-stream" },
    json: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    },
  });
}

Deno.test("[mcp] buyer tokens: granted documents listed and read, refusals, revocation, expiry and summaries", async (t) => {
  const mail = recordingMailer();
  await using ctx = await createTestApp({ mailer: mail.mailer });
  const ws = await documentsWorkspace(ctx);
  const { orgId, orgSlug, owner } = ws;
  const doc = async (title: string, bytes?: Uint8Array) =>
    (await (await upload(ctx, orgId, {
      token: owner,
      bytes: bytes ?? await makePdf(title),
      query: `title=${encodeURIComponent(title)}`,
    })).json()).document.id as string;
  const soc2 = await doc("SOC 2 report");
  const pentest = await doc("Pen test");
  const big = await doc("Architecture binder", await largePdf());
  await ctx.call("PUT", `/organizations/${orgId}/nda`, {
    token: owner,
    json: { text: "Keep it to yourselves." },
  });
  for (const id of [soc2, big]) {
    const rule = await ctx.call("PUT", `/organizations/${orgId}/access-rules/${id}`, {
      token: owner,
      json: { mode: "click-through", expiresInDays: 30 },
    });
    assert.equal(rule.status, 200, await rule.clone().text());
    await rule.body?.cancel();
  }
  // A second vendor with its own restricted document.
  const owner2 = await ctx.tokenFor("owner2", { email: "owner@globex.test" });
  const boot = await (await ctx.call("POST", "/onboarding/bootstrap", {
    token: owner2,
    json: { workspaceName: "Globex", projectName: "Globex Cloud", projectVisibility: "public" },
  })).json();
  const globexSlug = boot.organization.slug as string;
  const globexDoc = (await (await upload(ctx, boot.organization.id, {
    token: owner2,
    bytes: await makePdf("Globex SOC 2"),
    query: "title=Globex%20SOC%202",
  })).json()).document.id as string;
  assert.notEqual(globexSlug, orgSlug);

  // customer.test's admin asks (click-through grants at once) and makes a service token.
  const admin = await session(ctx, mail.sent, orgSlug, "ada@customer.test");
  const asked = await (await ctx.call("POST", `/public/trust/${orgSlug}/buyer/access`, {
    token: admin,
    json: { documentIds: [soc2, pentest, big], ndaVersion: 1, acceptNda: true },
  })).json();
  const outcomes = Object.fromEntries(
    asked.decisions.map((d: { documentId: string; outcome: string }) => [d.documentId, d.outcome]),
  );
  assert.deepEqual(outcomes, { [soc2]: "granted", [pentest]: "pending", [big]: "granted" });
  const createToken = async (name: string, expiresInDays: number) => {
    const res = await ctx.call("POST", `/public/trust/${orgSlug}/buyer/tokens`, {
      token: admin,
      json: { name, expiresInDays },
    });
    assert.equal(res.status, 201);
    return await res.json() as { secret: string; token: { id: string; expiresAt: string } };
  };
  const grc = await createToken("GRC platform", 5);
  // As a token made before the hash index existed: its record alone. MCP's first buyer
  // token backfills the index once (src/store/buyer_tokens.ts), so it reads like any other.
  await ctx.kv.delete(["buyer_tokens_by_hash", tokenHash(grc.secret)]);
  await ctx.kv.delete(["buyer_tokens_meta", "index"]);

  await t.step("anonymous clients keep the public tools only", async () => {
    const client = await connect(ctx);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(names.includes("list_documents"));
      assert.ok(!names.includes("list_granted_documents"));
      assert.ok(!names.includes("get_granted_document"));
      const call = await client.callTool({
        name: "list_granted_documents",
        arguments: { orgSlug },
      }).catch((error: Error) => ({ isError: true, content: [{ text: error.message }] }));
      assert.equal(call.isError, true);
    } finally {
      await client.close();
    }
  });

  await t.step("a service token lists its grants with expiry and reads a granted PDF", async () => {
    const client = await connect(ctx, grc.secret);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      assert.ok(names.includes("list_granted_documents") && names.includes("get_trust_profile"));
      for (const tool of tools.filter((x) => x.name.endsWith("_granted_document"))) {
        assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
        for (const schema of Object.values(tool.inputSchema.properties ?? {})) {
          assert.ok(((schema as { description?: string }).description ?? "").length >= 20);
        }
      }
      assert.match(client.getInstructions() ?? "", /buyer token of Acme's trust center/);

      const listed = await client.callTool({
        name: "list_granted_documents",
        arguments: { orgSlug },
      });
      assert.notEqual(listed.isError, true, textOf(listed));
      const documents = (listed.structuredContent as {
        documents: { id: string; title: string; expiresAt: string; downloadUrl: string }[];
      }).documents;
      assert.deepEqual(documents.map((d) => d.title), ["Architecture binder", "SOC 2 report"]);
      const soc2Entry = documents.find((d) => d.id === soc2)!;
      assert.equal(
        soc2Entry.expiresAt,
        new Date(ctx.clock.now().getTime() + 30 * DAY).toISOString(),
      );
      assert.equal(
        soc2Entry.downloadUrl,
        `${TEST_BASE_URL}/public/trust/${orgSlug}/buyer/documents/${soc2}`,
      );
      // The same body as the REST list with the same token.
      const rest = await (await ctx.call("GET", `/public/trust/${orgSlug}/buyer/documents`, {
        token: grc.secret,
      })).json();
      assert.deepEqual(listed.structuredContent, rest);

      const read = await client.callTool({
        name: "get_granted_document",
        arguments: { orgSlug, documentId: soc2 },
      });
      assert.notEqual(read.isError, true, textOf(read));
      const structured = read.structuredContent as { delivery: string; document: { id: string } };
      assert.equal(structured.delivery, "blob");
      assert.equal(structured.document.id, soc2);
      const embedded = (read.content as Content[]).find((c) => c.type === "resource")!;
      assert.equal(embedded.resource!.uri, soc2Entry.downloadUrl);
      assert.equal(embedded.resource!.mimeType, "application/pdf");
      const bytes = Uint8Array.from(atob(embedded.resource!.blob!), (ch) => ch.charCodeAt(0));
      assert.equal(new TextDecoder().decode(bytes.slice(0, 5)), "%PDF-");
      // Stamped for the token, as the REST download is: the same bytes.
      const download = await ctx.call("GET", `/public/trust/${orgSlug}/buyer/documents/${soc2}`, {
        token: grc.secret,
      });
      assert.equal(download.status, 200);
      assert.deepEqual(new Uint8Array(await download.arrayBuffer()), bytes);

      // Too large to embed: a link to the REST download, fetched with the same token.
      const large = await client.callTool({
        name: "get_granted_document",
        arguments: { orgSlug, documentId: big },
      });
      assert.notEqual(large.isError, true, textOf(large));
      assert.equal((large.structuredContent as { delivery: string }).delivery, "link");
      const link = (large.content as Content[]).find((c) => c.type === "resource_link")!;
      assert.equal(link.uri, `${TEST_BASE_URL}/public/trust/${orgSlug}/buyer/documents/${big}`);
      assert.ok(
        (large.structuredContent as { document: { size: number } }).document.size >
          MAX_EMBEDDED_DOCUMENT_BYTES,
      );
    } finally {
      await client.close();
    }
  });

  await t.step("refused outside the grant and at another trust center: tool errors", async () => {
    const client = await connect(ctx, grc.secret);
    try {
      for (
        const [args, message] of [
          [{ orgSlug, documentId: pentest }, /may not read this document now/],
          [{ orgSlug, documentId: globexDoc }, /may not read this document now/],
          [{ orgSlug, documentId: crypto.randomUUID() }, /may not read this document now/],
          [{ orgSlug: globexSlug, documentId: globexDoc }, /reads only the trust center/],
        ] as const
      ) {
        const result = await client.callTool({ name: "get_granted_document", arguments: args });
        assert.equal(result.isError, true, JSON.stringify(args));
        assert.match(textOf(result), message);
        assert.ok(!textOf(result).includes("Globex SOC 2"));
      }
      const other = await client.callTool({
        name: "list_granted_documents",
        arguments: { orgSlug: globexSlug },
      });
      assert.equal(other.isError, true);
      assert.match(textOf(other), /reads only the trust center/);
      const unknownArg = await client.callTool({
        name: "list_granted_documents",
        arguments: { orgSlug, domain: "other.test" },
      }).catch((error: Error) => ({ isError: true, content: [{ text: error.message }] }));
      assert.equal(unknownArg.isError, true);
      assert.match(textOf(unknownArg), /domain/);
    } finally {
      await client.close();
    }
  });

  await t.step(
    "another buyer organization's token sees nothing of the first's grants",
    async () => {
      const olga = await session(ctx, mail.sent, orgSlug, "olga@other.test");
      const client = await connect(ctx, olga);
      try {
        const listed = await client.callTool({
          name: "list_granted_documents",
          arguments: { orgSlug },
        });
        assert.deepEqual(listed.structuredContent, { documents: [] });
        const read = await client.callTool({
          name: "get_granted_document",
          arguments: { orgSlug, documentId: soc2 },
        });
        assert.equal(read.isError, true);
        assert.match(textOf(read), /may not read this document now/);
      } finally {
        await client.close();
      }
      const summary = await (await ctx.call("GET", `/public/trust/${orgSlug}/buyer/summary`, {
        token: olga,
      })).json();
      assert.deepEqual(summary.rows, []);
    },
  );

  await t.step("every MCP read lands in the inventory and both summaries", async () => {
    const vendor = await (await ctx.call("GET", `/organizations/${orgId}/access-summaries`, {
      token: owner,
    })).json();
    const row = vendor.rows.find((r: { person: string; documentId: string }) =>
      r.person === "token:GRC platform" && r.documentId === soc2
    );
    // Views: the MCP list and the REST list; downloads: the MCP read and the REST download.
    assert.equal(row.views, 2);
    assert.equal(row.downloads, 2);
    assert.equal(row.domain, "customer.test");
    // The too-large document was listed (views) but not read through MCP.
    const bigRow = vendor.rows.find((r: { person: string; documentId: string }) =>
      r.person === "token:GRC platform" && r.documentId === big
    );
    assert.equal(bigRow.downloads, 0);
    const events = await (await ctx.call("GET", `/organizations/${orgId}/access-events`, {
      token: owner,
    })).json();
    const downloads = events.events.filter((e: { kind: string; via: string; documentId: string }) =>
      e.kind === "download" && e.via === "service" && e.documentId === soc2
    );
    assert.equal(downloads.length, 2);
    const own = await (await ctx.call("GET", `/public/trust/${orgSlug}/buyer/summary`, {
      token: admin,
    })).json();
    assert.ok(
      own.rows.some((r: { person: string; documentId: string; downloads: number }) =>
        r.person === "token:GRC platform" && r.documentId === soc2 && r.downloads === 2
      ),
    );
  });

  await t.step("a granted text document (a signed manifest) comes as text, recorded", async () => {
    // A shared questionnaire's manifest is a restricted JWS document: stored as the service
    // stores one, then granted to customer.test as an owner's approval would.
    const jws = new TextEncoder().encode("eyJhbGciOiJFZERTQSJ9.eyJ2IjoxfQ.c2ln");
    const sha256 = await ctx.services.blobs.put("document", jws);
    assert.match(sha256, /[0-9a-f]{64}$/);
    const at = ctx.clock.now().toISOString();
    const manifest = await addDocument(ctx.kv, orgId, {
      id: crypto.randomUUID(),
      projectId: null,
      title: "Questionnaire (signed manifest)",
      description: "Signed manifest",
      type: "jws",
      contentType: "application/jose",
      size: jws.byteLength,
      sha256: sha256.split("/").pop()!,
      visibility: "restricted",
      unlisted: true,
      createdAt: at,
      updatedAt: at,
      createdBy: { userId: crypto.randomUUID(), email: "owner@acme.test" },
    });
    await setBuyerGrant(ctx.kv, orgId, "customer.test", {
      documentId: manifest.id,
      title: manifest.title,
      grantedAt: at,
      expiresAt: new Date(ctx.clock.now().getTime() + DAY).toISOString(),
      via: "approval",
      reason: "An owner approved",
      grantedTo: "ada@customer.test",
    });
    const client = await connect(ctx, grc.secret);
    try {
      const read = await client.callTool({
        name: "get_granted_document",
        arguments: { orgSlug, documentId: manifest.id },
      });
      assert.notEqual(read.isError, true, textOf(read));
      assert.equal((read.structuredContent as { delivery: string }).delivery, "text");
      const embedded = (read.content as Content[]).find((c) => c.type === "resource")!;
      assert.equal(embedded.resource!.mimeType, "application/jose");
      assert.equal(embedded.resource!.text, new TextDecoder().decode(jws));
    } finally {
      await client.close();
    }
    const events = await (await ctx.call("GET", `/organizations/${orgId}/access-events`, {
      token: owner,
    })).json();
    assert.ok(
      events.events.some((e: { kind: string; documentId: string; person: string }) =>
        e.kind === "download" && e.documentId === manifest.id && e.person === "token:GRC platform"
      ),
    );
  });

  await t.step("a revoked, unknown or expired token: 401 in the error envelope", async () => {
    const second = await createToken("Second", 90);
    const client = await connect(ctx, second.secret);
    await client.close();
    const revoked = await ctx.call(
      "DELETE",
      `/public/trust/${orgSlug}/buyer/tokens/${second.token.id}`,
      { token: admin },
    );
    assert.equal(revoked.status, 204);
    const afterRevoke = await rawInitialize(ctx, second.secret);
    assert.equal(afterRevoke.status, 401);
    assert.match((await afterRevoke.json()).error.message, /revoked/);
    await assert.rejects(connect(ctx, second.secret), refusedWith401(/revoked/));

    for (const bearer of ["tpb_" + "a".repeat(43), "tpb_short"]) {
      const unknown = await rawInitialize(ctx, bearer);
      assert.equal(unknown.status, 401);
      assert.equal((await unknown.json()).error.code, "unauthorized");
    }

    // GRC platform's token lasts 5 days; after 6 it is refused.
    ctx.clock.advance(6 * DAY);
    const expired = await rawInitialize(ctx, grc.secret);
    assert.equal(expired.status, 401);
    assert.equal((await expired.json()).error.code, "unauthorized");
    await assert.rejects(connect(ctx, grc.secret), refusedWith401(/expired/));
  });
});
