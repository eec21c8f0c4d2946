import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import { mcpManifest, serverCards } from "../../src/mcp/discovery.ts";
import { mcpAllowedHosts, mcpAllowedOrigins } from "../../src/mcp/hosts.ts";

const TABLE = [
  {
    name: "a public deployment: both configured hosts, with and without the port",
    env: {
      BASE_URL: "https://trust.example.com",
      TRUST_PAGE_BASE: "https://pages.example.org:8443",
    },
    hosts: [
      "trust.example.com",
      "trust.example.com:443",
      "pages.example.org",
      "pages.example.org:8443",
    ],
    origins: ["https://trust.example.com", "https://pages.example.org:8443"],
  },
  {
    name: "the default base: every loopback name on the port",
    env: {},
    hosts: [
      "localhost",
      "localhost:8000",
      "127.0.0.1",
      "127.0.0.1:8000",
      "[::1]",
      "[::1]:8000",
    ],
    origins: ["http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000"],
  },
];

Deno.test("[mcp] allowed hosts and origins come from BASE_URL and TRUST_PAGE_BASE", async (t) => {
  for (const row of TABLE) {
    await t.step(row.name, () => {
      const config = loadConfig(row.env);
      assert.deepEqual(mcpAllowedHosts(config), row.hosts);
      assert.deepEqual(mcpAllowedOrigins(config), row.origins);
    });
  }
});

Deno.test("[mcp] the server card is named in reverse DNS after BASE_URL's host", () => {
  const config = loadConfig({ BASE_URL: "https://trust.example.com" });
  const [card] = serverCards(config);
  assert.equal(card.name, "com.example.trust/trust-profile-service");
  assert.equal(card.remotes[0].url, "https://trust.example.com/mcp");
  assert.equal(mcpManifest(config).transport.url, card.remotes[0].url);
});
