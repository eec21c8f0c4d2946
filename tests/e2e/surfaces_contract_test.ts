/**
 * One truth across surfaces: on an organization that shows everything (certifications of
 * every status and scope, open and resolved updates, public and restricted answers and
 * documents, every control state), every MCP tool is called through the MCP SDK's own client,
 * which checks the structured output against the tool's declared output schema, and the
 * output is checked again with Ajv so a failure names the field; every public JSON read
 * /openapi.json lists is validated against the response schema it documents.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { addFormats, Ajv, Ajv2020 } from "../deps.ts";
import { startDnsServer } from "../support/dns_server.ts";
import {
  createResponseValidator,
  type OpenApiDocument,
  operations,
} from "../support/openapi_validator.ts";
import { startSurfacesFixture } from "./_surfaces.ts";

type Schema = Record<string, unknown>;

/** An Ajv validator for a JSON Schema in the dialect it names (2020-12, else draft-07). */
function schemaValidator(schema: Schema) {
  const dialect = String(schema.$schema ?? "");
  const ajv = dialect.includes("2020-12")
    ? new Ajv2020({ strict: false, allErrors: true })
    : new Ajv({ strict: false, allErrors: true });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  return ajv.compile(schema);
}

/**
 * The fields of `body` that `schema` does not document (which a client generated from the
 * document cannot read), by path. An object's documented fields are the union of the
 * `properties` of every schema it may match (through $ref, allOf, anyOf, oneOf); an object
 * whose schemas allow additional properties, or name none, is open.
 */
function undocumentedFields(
  doc: OpenApiDocument,
  schema: unknown,
  body: unknown,
  path = "",
): string[] {
  const flat = (node: unknown): Schema[] => {
    if (!node || typeof node !== "object") return [];
    const s = node as Schema;
    if (typeof s.$ref === "string") {
      return flat(doc.components.schemas[s.$ref.replace("#/components/schemas/", "")]);
    }
    const members = ["allOf", "anyOf", "oneOf"].flatMap((k) =>
      Array.isArray(s[k]) ? (s[k] as unknown[]).flatMap(flat) : []
    );
    return [s, ...members];
  };
  const schemas = flat(schema);
  if (Array.isArray(body)) {
    const items = schemas.map((s) => s.items).filter(Boolean);
    return body.flatMap((item, i) =>
      items.flatMap((it) => undocumentedFields(doc, it, item, `${path}/${i}`))
    );
  }
  if (!body || typeof body !== "object") return [];
  const withProperties = schemas.filter((s) => s.properties);
  const open = withProperties.length === 0 ||
    schemas.some((s) => s.additionalProperties !== undefined && s.additionalProperties !== false);
  const problems: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    const fieldSchemas = withProperties
      .map((s) => (s.properties as Record<string, unknown>)[key])
      .filter((f) => f !== undefined);
    if (fieldSchemas.length === 0) {
      if (!open) problems.push(`${path}/${key} is not documented`);
      continue;
    }
    const nested = fieldSchemas.map((f) => undocumentedFields(doc, f, value, `${path}/${key}`));
    // A field documented by several members is fine when any of them documents what it holds.
    if (nested.every((n) => n.length > 0)) problems.push(...nested[0]);
  }
  return problems;
}

function problemsOf(errors: { instancePath: string; message?: string; params?: unknown }[]) {
  return errors.map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
}

/** The structured content of one tools/call, sent as plain JSON-RPC (no SDK checks it). */
async function rawToolCall(base: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  return (await res.json()).result?.structuredContent;
}

Deno.test("[contract] every MCP tool and public JSON read matches its declared schema", async (t) => {
  const dns = await startDnsServer();
  await using fx = await startSurfacesFixture({
    env: { DNS_NAMESERVER: `127.0.0.1:${dns.port}` },
  });
  const base = fx.server.baseUrl;
  try {
    const domain = await fetch(`${base}/projects/${fx.projectId}/domains`, {
      method: "POST",
      headers: { authorization: `Bearer ${fx.token}`, "content-type": "application/json" },
      body: JSON.stringify({ domain: "trust.globex.example" }),
    }).then((r) => r.json());
    dns.records.set("_service.trust.globex.example", [[domain.domain.instructions.recordValue]]);
    const verified = await fetch(
      `${base}/projects/${fx.projectId}/domains/${domain.domain.domain.id}/verify`,
      { method: "POST", headers: { authorization: `Bearer ${fx.token}` } },
    );
    assert.equal(verified.status, 200, await verified.text());

    await t.step(
      "the fixture shows every control state, certification status and kind",
      async () => {
        const { controls } = await (await fetch(`${base}/trust/globex/controls`)).json();
        const custom = Object.fromEntries(
          controls.filter((c: { key: string }) => c.key.startsWith("custom."))
            .map((c: { key: string; state: string; latestEvidenceAt: string | null }) => [
              c.key,
              `${c.state}${c.latestEvidenceAt === null ? " (not reported)" : ""}`,
            ]),
        );
        assert.deepEqual(custom, {
          "custom.pass": "pass",
          "custom.fail": "fail",
          "custom.unknown": "unknown",
          "custom.degraded": "degraded",
          "custom.stale": "stale",
          "custom.not-reported": "unknown (not reported)",
        });
        const { certifications } =
          await (await fetch(`${base}/public/trust/${fx.orgSlug}/certifications`))
            .json();
        assert.deepEqual(
          certifications.map((c: { framework: string; status: string; project: unknown }) =>
            `${c.framework} ${c.status} ${c.project ? "project" : "organization"}`
          ),
          [
            "soc2-type2 achieved organization",
            "iso27001-2022 in_progress project",
            "pci-dss-4.0 expired organization",
            "other achieved project",
          ],
        );
        const updates = await (await fetch(`${base}/trust/globex/updates`)).json();
        assert.equal(updates.updates.length, 5);
        assert.equal(
          updates.updates.filter((u: { resolvedAt: string | null }) => u.resolvedAt).length,
          2,
        );
      },
    );

    await t.step("only a version's certifications say they are signed with it", async () => {
      const live = await (await fetch(`${base}/public/trust/${fx.orgSlug}/certifications`)).json();
      assert.doesNotMatch(live.notice, /signed with this version/);
      assert.match(live.notice, /not signed/);
      const trustJson = await (await fetch(`${base}/trust/globex/trust.json`)).json();
      assert.match(trustJson.declaredByVendor.notice, /signed with this version/);
    });

    await t.step(
      "a cited certification reads the same in JSON, HTML, Markdown and CSV",
      async () => {
        const answers = `${base}/public/trust/${fx.orgSlug}/answers`;
        const { answers: list } = await (await fetch(answers)).json();
        const cited = list.flatMap((a: { citations: { kind: string; title: string }[] | null }) =>
          a.citations ?? []
        ).find((c: { kind: string }) => c.kind === "certification");
        assert.equal(cited.title, "SOC 2 Type II (achieved)");
        for (const suffix of [".html", ".md", ".csv"]) {
          const text = await (await fetch(`${answers}${suffix}`)).text();
          // Markdown escapes the parentheses of the title.
          const plain = text.replaceAll("\\", "");
          assert.ok(plain.includes(`Certification: ${cited.title}`), suffix);
        }
      },
    );

    const client = new Client({ name: "surfaces-contract", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      const { tools } = await client.listTools();
      const calls: Record<string, Record<string, unknown>[]> = {
        get_trust_profile: [{ projectSlug: "globex" }],
        get_trust_controls: [{ projectSlug: "globex" }, { projectSlug: "globex-labs" }],
        get_trust_signals: [{ projectSlug: "globex" }, { projectSlug: "globex-labs" }],
        get_trust_json: [{ projectSlug: "globex" }],
        get_trust_history: [{ projectSlug: "globex" }, { projectSlug: "globex", limit: 1 }],
        search_trust_profiles: [{ query: "globex" }],
        get_subprocessors: [{ orgSlug: fx.orgSlug }],
        list_documents: [{ orgSlug: fx.orgSlug }],
        get_trust_updates: [{ projectSlug: "globex" }, { projectSlug: "globex", limit: 2 }],
        list_organization_projects: [{ orgSlug: fx.orgSlug }],
        get_certifications: [{ orgSlug: fx.orgSlug }],
        get_trust_frameworks: [{ projectSlug: "globex" }],
        search_answers: [{ orgSlug: fx.orgSlug }, { orgSlug: fx.orgSlug, q: "penetration" }],
        answer_questionnaire: [{
          orgSlug: fx.orgSlug,
          questions: [{ text: "Who performed your last penetration test?" }, {
            text: "Do you encrypt data at rest?",
            id: "CEK-03.1",
          }],
        }],
      };
      assert.deepEqual(Object.keys(calls).sort(), tools.map((tool) => tool.name).sort());
      for (const tool of tools) {
        for (const args of calls[tool.name]) {
          await t.step(`MCP ${tool.name} ${JSON.stringify(args)}`, async () => {
            const validate = schemaValidator(tool.outputSchema as Schema);
            const problems = (structured: unknown) =>
              validate(structured) ? [] : problemsOf(validate.errors ?? []);
            let result;
            try {
              result = await client.callTool({ name: tool.name, arguments: args });
            } catch (error) {
              // The SDK names no field: read the same call raw and let Ajv name it.
              const raw = await rawToolCall(base, tool.name, args);
              assert.fail(
                `the SDK client refused the result: ${(error as Error).message}\n${
                  problems(raw).join("\n")
                }`,
              );
            }
            assert.notEqual(result.isError, true, JSON.stringify(result.content));
            assert.deepEqual(problems(result.structuredContent), []);
          });
        }
      }
    } finally {
      await client.close();
    }

    const doc: OpenApiDocument = await (await fetch(`${base}/openapi.json`)).json();
    const validate = createResponseValidator(doc);
    const reads = [...operations(doc).values()].filter(({ method, operation }) =>
      method === "GET" && !operation.security?.length &&
      Object.keys(operation.responses["200"]?.content ?? {}).some((type) => type.includes("json"))
    );
    const params: Record<string, (string | number)[]> = {
      projectSlug: ["globex", "globex-labs"],
      orgSlug: [fx.orgSlug],
      version: [1, 2],
      document: ["trust.json", "oscal-assessment-results.json", "vsa.intoto.json"],
      updateId: fx.updateIds,
      index: [0, 1],
      domain: ["trust.globex.example"],
      token: [fx.accessToken],
    };
    const queries: Record<string, Record<string, string>[]> = {
      searchTrustProfiles: [{ query: "globex" }],
      getLogConsistencyProof: [{ from: "1", to: "3" }],
      getOrganizationAnswers: [{}, { q: "encrypt" }, { q: "penetration" }],
      listTrustVersions: [{}, { limit: "1" }],
      listTrustUpdates: [{}, { limit: "2" }],
      accessRequestForm: [{ document: fx.documentIds.restricted }, { answers: "1" }],
    };
    /**
     * Every combination of the path's parameters; the second project (one version, no
     * updates) only where no version or update is named.
     */
    const pathsOf = (template: string): string[] => {
      const name = template.match(/\{([^}]+)\}/)?.[1];
      if (!name) return [template];
      assert.ok(params[name], `a value for {${name}}`);
      const values = name === "projectSlug" && /\{(version|updateId)\}/.test(template)
        ? params[name].slice(0, 1)
        : params[name];
      return values.flatMap((value) =>
        pathsOf(template.replace(`{${name}}`, encodeURIComponent(String(value))))
      );
    };
    for (const op of reads) {
      const id = op.operation.operationId;
      // Readiness answers 503 here (no job worker runs); its 503 body is checked all the same.
      const expected = id === "readiness" ? 503 : 200;
      for (const path of pathsOf(op.path)) {
        for (const query of queries[id] ?? [{}]) {
          const url = new URL(path, base);
          for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
          await t.step(`GET ${url.pathname}${url.search}`, async () => {
            const res = await fetch(url, { headers: { accept: "application/json" } });
            const type = res.headers.get("content-type") ?? "";
            const text = await res.text();
            assert.equal(res.status, expected, text.slice(0, 300));
            const body = type.includes("json") ? JSON.parse(text) : text;
            assert.deepEqual(validate(op, res.status, type, body), [], id);
            const media = Object.entries(op.operation.responses[String(res.status)]?.content ?? {})
              .find(([m]) => type.startsWith(m));
            if (media && media[0].includes("json")) {
              assert.deepEqual(undocumentedFields(doc, media[1].schema, body), [], id);
            }
          });
        }
      }
    }
  } finally {
    await dns.close();
  }
});
