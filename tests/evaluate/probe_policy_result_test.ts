import { didPoliciesPass } from "../../src/evaluate/mod.ts";
import { CONFTEST_FAIL, CONFTEST_PASS, opaEval } from "./_fixtures.ts";
import { probeTable } from "./_table.ts";

Deno.test("[evaluate] didPoliciesPass() reads plain verdicts", async (t) => {
  await probeTable(t, didPoliciesPass, [
    {
      name: "passes passed: true",
      input: { passed: true, policy: "baseline" },
      expected: { outcome: "pass", reason: /^Policy result reports success \(passed\)$/ },
    },
    {
      name: "fails passed: false",
      input: { passed: false },
      expected: { outcome: "fail", reason: /reports failure \(passed\)/ },
    },
    {
      name: "passes result: PASSED, any case",
      input: { result: "PASSED" },
      expected: { outcome: "pass", reason: /\(result\)/ },
    },
    {
      name: "passes status: success",
      input: { status: "success" },
      expected: { outcome: "pass", reason: /\(status\)/ },
    },
    {
      name: "fails status: failure",
      input: { status: "failure" },
      expected: { outcome: "fail", reason: /\(status\)/ },
    },
    {
      name: "fails when any verdict fails",
      input: { passed: true, status: "failed" },
      expected: { outcome: "fail", reason: /\(status\)/ },
    },
    {
      name: "is unknown for a status that is no verdict",
      input: { status: "pending" },
      expected: { outcome: "unknown", reason: /no readable passed, result or status/ },
    },
    {
      name: "is unknown for passed given as a string",
      input: { passed: "yes" },
      expected: { outcome: "unknown", reason: /no readable/ },
    },
  ]);
});

Deno.test("[evaluate] didPoliciesPass() reads conftest and OPA output", async (t) => {
  await probeTable(t, didPoliciesPass, [
    {
      name: "passes conftest output with warnings but no failure",
      input: CONFTEST_PASS,
      expected: {
        outcome: "pass",
        reason: /^conftest: 6 successes, 1 warning, 0 failures in 2 files$/,
      },
    },
    {
      name: "fails conftest output with a failure and names it",
      input: CONFTEST_FAIL,
      expected: {
        outcome: "fail",
        reason:
          /^conftest: 5 successes, 0 warnings, 1 failure in 2 files; first: "Containers must not run as root"$/,
      },
    },
    {
      name: "is unknown for an array that is not conftest output",
      input: [{ file: "a.yaml" }],
      expected: { outcome: "unknown", reason: /conftest result 0 is not/ },
    },
    {
      name: "passes opa eval with an allow decision",
      input: opaEval("data.acme.authz.allow", true),
      expected: { outcome: "pass", reason: /^opa eval: 1 expression allowed$/ },
    },
    {
      name: "fails opa eval with a deny decision",
      input: opaEval("data.acme.authz.allow", false),
      expected: { outcome: "fail", reason: /^opa eval: "data\.acme\.authz\.allow" denies$/ },
    },
    {
      name: "passes opa eval with an empty deny set",
      input: opaEval("data.acme.k8s.deny", []),
      expected: { outcome: "pass", reason: /allowed/ },
    },
    {
      name: "fails opa eval with a non-empty deny set",
      input: opaEval("data.acme.k8s.deny", ["image must come from registry.acme.example"]),
      expected: { outcome: "fail", reason: /"data\.acme\.k8s\.deny" denies/ },
    },
    {
      name: "reads a whole package with allow and violation",
      input: opaEval("data.acme.k8s", { allow: true, violation: [{ msg: "no limits" }] }),
      expected: { outcome: "fail", reason: /denies/ },
    },
    {
      name: "is unknown for an expression with a number value",
      input: opaEval("count(data.acme.k8s.deny)", 0),
      expected: { outcome: "unknown", reason: /no boolean or deny-set value/ },
    },
    {
      name: "is unknown for undefined opa eval output ({})",
      input: {},
      expected: { outcome: "unknown", reason: /no readable/ },
    },
    {
      name: "passes the Data API's empty deny set",
      input: { decision_id: "4ca636c1-55e4-417a-b1d8-4aceb67960d1", result: [] },
      expected: { outcome: "pass", reason: /\(result\)/ },
    },
    {
      name: "fails the Data API's non-empty deny set",
      input: { result: ["bucket acme-logs is public"] },
      expected: { outcome: "fail", reason: /\(result\)/ },
    },
    {
      name: "reads the Data API's decision object",
      input: { result: { allow: true, deny: [] } },
      expected: { outcome: "pass", reason: /\(result\)/ },
    },
  ]);
});
