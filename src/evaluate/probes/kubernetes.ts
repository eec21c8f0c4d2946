/**
 * Kubernetes workload health for `evidence.deployment_snapshot`: what `kubectl get deploy
 * -o json` (a List) or `kubectl get deploy NAME -o json` (one object) prints.
 */
import { count, isObject, type JsonObject, lower, own, show } from "./_read.ts";
import { fail, pass, type ProbeResult, unknown } from "./types.ts";

const WORKLOADS = ["Deployment", "StatefulSet", "ReplicaSet", "DaemonSet"];

/** A workload's health: a problem that fails, a gap that makes it unreadable, or fine. */
type Health = { problem: string } | { gap: string } | null;

/**
 * Whether `payload` is Kubernetes output this module reads: an object with `apiVersion`
 * and `kind` that is a List (`items[]`) or a workload.
 */
export function isKubernetesObject(payload: JsonObject): boolean {
  const kind = own(payload, "kind");
  return typeof own(payload, "apiVersion") === "string" && typeof kind === "string" &&
    (Array.isArray(own(payload, "items")) || WORKLOADS.includes(kind));
}

/**
 * Reads a Kubernetes List (`items[]`) or a single workload. Deployments, StatefulSets and
 * ReplicaSets are ready when `status.readyReplicas` reaches `spec.replicas` (1 when
 * unset, as the API defaults it); DaemonSets when `status.numberReady` reaches
 * `status.desiredNumberScheduled`. A Deployment whose `Available` condition is False, or
 * whose rollout hit its progress deadline, is unhealthy too. Other kinds in a List are
 * skipped; a List without any workload, or a workload without `status` (a manifest rather
 * than what the cluster reports), is `unknown`.
 */
export function readKubernetes(payload: JsonObject): ProbeResult {
  const kind = own(payload, "kind") as string;
  const items = own(payload, "items");
  const list = Array.isArray(items);
  const workloads = (list ? items : [payload]).filter((item): item is JsonObject =>
    isObject(item) && WORKLOADS.includes(own(item, "kind") as string)
  );
  if (workloads.length === 0) {
    return unknown(
      list
        ? `Kubernetes ${show(kind)} has no Deployment, StatefulSet, ReplicaSet or DaemonSet`
        : `Kubernetes kind ${show(kind)} is not a Deployment, StatefulSet, ReplicaSet or DaemonSet`,
    );
  }
  for (const workload of workloads) {
    const health = healthOf(workload);
    const name = `${own(workload, "kind")} ${show(nameOf(workload))}`;
    if (health !== null && "gap" in health) return unknown(`Kubernetes ${name} ${health.gap}`);
    if (health !== null) return fail(`Kubernetes ${name} is ${health.problem}`);
  }
  return pass(`Kubernetes: ${count(workloads.length, "workload")} ready`);
}

function healthOf(workload: JsonObject): Health {
  const status = own(workload, "status");
  if (!isObject(status)) return { gap: "has no status (a manifest, not what the cluster reports)" };
  const daemon = own(workload, "kind") === "DaemonSet";
  const spec = own(workload, "spec");
  const desired = daemon
    ? own(status, "desiredNumberScheduled") ?? 0
    : (isObject(spec) ? own(spec, "replicas") : undefined) ?? 1;
  // The API omits zero counts, so a missing readyReplicas means none is ready.
  const ready = own(status, daemon ? "numberReady" : "readyReplicas") ?? 0;
  if (!isCount(desired) || !isCount(ready)) {
    return { gap: "has replica counts that are not numbers" };
  }
  if (ready < desired) return { problem: `not ready (${ready} of ${desired} replicas)` };
  const conditions = own(status, "conditions");
  for (const condition of Array.isArray(conditions) ? conditions : []) {
    if (!isObject(condition)) continue;
    const [type, state, reason] = ["type", "status", "reason"].map((k) => own(condition, k));
    if (type === "Available" && lower(state) === "false") {
      return {
        problem: `unavailable (Available: False${typeof reason === "string" ? `, ${reason}` : ""})`,
      };
    }
    if (type === "Progressing" && reason === "ProgressDeadlineExceeded") {
      return { problem: "stalled (ProgressDeadlineExceeded)" };
    }
  }
  return null;
}

function nameOf(workload: JsonObject): unknown {
  const metadata = own(workload, "metadata");
  return isObject(metadata) ? own(metadata, "name") : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
