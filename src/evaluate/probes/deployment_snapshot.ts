/**
 * Probe for `evidence.deployment_snapshot`: does the snapshot report itself healthy?
 */
import { count, isObject, type JsonObject, lower, notAnObject, own, show } from "./_read.ts";
import { isKubernetesObject, readKubernetes } from "./kubernetes.ts";
import { fail, inFormat, pass, type ProbeResult, unknown } from "./types.ts";

const UNHEALTHY_STATUSES = ["unhealthy", "failed", "degraded", "down"];
const ENTRY_LISTS = ["services", "workloads"] as const;

/**
 * Answers whether a deployment snapshot does not report itself unhealthy. It is unhealthy
 * when `healthy` is false, when `status` is unhealthy, failed, degraded or down (any
 * case), or when any entry of `services[]` or `workloads[]` is unhealthy by the same
 * rules or has fewer `readyReplicas` than `replicas`. Kubernetes output (a List from
 * `kubectl get deploy -o json`, or one workload) is read by its workloads' status, as
 * `readKubernetes` describes. A snapshot that carries none of these signals (an empty
 * object, say) says nothing about health and is `unknown`, as is a payload that is not a
 * JSON object.
 */
export function isDeploymentHealthy(payload: unknown): ProbeResult {
  if (!isObject(payload)) return unknown(notAnObject(payload, "a deployment snapshot"));
  if (isKubernetesObject(payload)) return inFormat("kubernetes", readKubernetes(payload));
  return readSnapshot(payload);
}

function readSnapshot(payload: JsonObject): ProbeResult {
  const itself = problem(payload);
  if (itself) return inFormat("health-snapshot", fail(`Snapshot reports itself ${itself}`));
  let entries = 0;
  for (const list of ENTRY_LISTS) {
    const items = own(payload, list);
    if (!Array.isArray(items)) continue;
    for (const [i, item] of items.entries()) {
      if (!isObject(item)) continue;
      entries++;
      const found = problem(item);
      if (found) {
        return inFormat("health-snapshot", fail(`${list}[${i}]${nameOf(item)} is ${found}`));
      }
    }
  }
  const signals = typeof own(payload, "healthy") === "boolean" ||
    typeof own(payload, "status") === "string" || entries > 0;
  if (!signals) return unknown("Snapshot has no healthy, status, services[] or workloads[] signal");
  return inFormat(
    "health-snapshot",
    pass(
      entries > 0
        ? `Snapshot reports ${
          count(entries, "service or workload", "services or workloads")
        } healthy`
        : "Snapshot reports itself healthy",
    ),
  );
}

/** Why `item` reports itself unhealthy, or null when it does not. */
function problem(item: JsonObject): string | null {
  if (own(item, "healthy") === false) return "unhealthy (healthy: false)";
  const status = lower(own(item, "status"));
  if (status !== null && UNHEALTHY_STATUSES.includes(status)) return `${status} (status)`;
  const replicas = own(item, "replicas");
  const ready = own(item, "readyReplicas") ?? 0;
  if (typeof replicas === "number" && typeof ready === "number" && ready < replicas) {
    return `not ready (${ready} of ${replicas} replicas)`;
  }
  return null;
}

function nameOf(item: JsonObject): string {
  const name = own(item, "name");
  return typeof name === "string" ? ` ${show(name)}` : "";
}
