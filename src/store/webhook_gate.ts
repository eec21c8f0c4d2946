/**
 * What keeps slow or dead webhook endpoints, the hosts they point at, and the buyers who
 * register them, from holding the workers: before an attempt, the endpoint's circuit (failed
 * attempts in a row), its destination's (attempts to the URL's origin, any endpoint's, without
 * an answer in a row) and the attempts in flight of its subscriber are checked, and the attempt
 * is marked in flight; after it, the circuits are updated and the mark removed. Marks expire by
 * themselves, so a crash in between leaves an endpoint blocked for one attempt's time at most.
 */
import {
  CIRCUIT_MAX_COOLDOWN_MS,
  circuitCooldownMs,
  type EndpointCircuit,
  MAX_IN_FLIGHT_PER_SUBSCRIBER,
} from "../domain/webhooks.ts";
import {
  webhookCircuitKey,
  webhookDestinationKey,
  webhookInFlightKey,
  webhookInFlightPrefix,
  webhookInFlightWritesKey,
} from "./keys.ts";

const MAX_TRIES = 10;

/** An attempt marked in flight, until when (epoch ms) the mark holds. */
interface InFlight {
  token: string;
  until: number;
}

/** Whether an attempt may start now; when not, when to look again and why. */
export type AttemptGate =
  | { ok: true; token: string }
  | { ok: false; untilMs: number; reason: string };

/** The endpoint an attempt goes to: its id, its subscriber (who registered it) and URL. */
export interface GatedEndpoint {
  id: string;
  createdBy: string;
  url?: string;
}

/** A destination's circuit is kept this long after its last change (its longest pause, and more). */
const DESTINATION_MEMORY_MS = CIRCUIT_MAX_COOLDOWN_MS + 3_600_000;

/** Where a URL's attempts connect: its origin (scheme, host, port), or null for a bad URL. */
export function destinationOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}

/**
 * Lets an attempt to `endpoint` start, marking it in flight for `holdMs`, unless the endpoint's
 * or its destination's circuit is open, an attempt to it is in flight, or its subscriber has
 * MAX_IN_FLIGHT_PER_SUBSCRIBER attempts in flight (checked against a marker every start
 * rewrites, so two starts on two instances cannot both pass the cap).
 */
export async function startAttempt(
  kv: Deno.Kv,
  endpoint: GatedEndpoint,
  options: { now: number; holdMs: number; busyRetryMs: number },
): Promise<AttemptGate> {
  const { now } = options;
  const inFlightKey = webhookInFlightKey(endpoint.createdBy, endpoint.id);
  const writesKey = webhookInFlightWritesKey(endpoint.createdBy);
  // An endpoint without a URL here (a caller that checks the endpoint alone) reads a key no
  // destination has.
  const destinationKey = webhookDestinationKey(destinationOf(endpoint.url ?? "") ?? "");
  const busy = { ok: false as const, untilMs: now + options.busyRetryMs };
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const [circuit, current, writes, host] = await kv.getMany<
      [EndpointCircuit, InFlight, string, EndpointCircuit]
    >([webhookCircuitKey(endpoint.id), inFlightKey, writesKey, destinationKey]);
    const openUntil = circuit.value?.openUntil ?? null;
    if (openUntil !== null && openUntil > now) {
      return {
        ok: false,
        untilMs: openUntil,
        reason: `The endpoint failed ${circuit.value!.failures} attempts in a row`,
      };
    }
    const hostOpenUntil = host.value?.openUntil ?? null;
    if (hostOpenUntil !== null && hostOpenUntil > now) {
      return {
        ok: false,
        untilMs: hostOpenUntil,
        reason: `The endpoint's host left ${host.value!.failures} attempts in a row unanswered`,
      };
    }
    if (current.value && current.value.until > now) {
      return { ...busy, reason: "An attempt to this endpoint is under way" };
    }
    let others = 0;
    for await (
      const entry of kv.list<InFlight>({ prefix: webhookInFlightPrefix(endpoint.createdBy) }, {
        limit: 100,
      })
    ) {
      if (entry.key.at(-1) !== endpoint.id && entry.value.until > now) others++;
    }
    if (others >= MAX_IN_FLIGHT_PER_SUBSCRIBER) {
      return { ...busy, reason: "The subscriber's other endpoints have attempts under way" };
    }
    const token = crypto.randomUUID();
    const committed = await kv.atomic().check(current, writes)
      .set(inFlightKey, { token, until: now + options.holdMs }, {
        expireIn: options.holdMs + 60_000,
      })
      .set(writesKey, token)
      .commit();
    if (committed.ok) return { ok: true, token };
  }
  return { ...busy, reason: "The subscriber's endpoints kept changing" };
}

/**
 * Ends an attempt started with `token`: its in-flight mark goes, and the endpoint's circuit
 * counts it (a failure adds one and may open the circuit; a success closes it; null, no
 * attempt was made, changes nothing). Its destination's circuit counts whether the host
 * answered at all: an attempt left `unanswered` (a timeout, a connection that failed) adds one
 * and may open it, so every endpoint there waits; any answer closes it. Returns the endpoint's
 * circuit and the destination's as stored.
 */
export async function endAttempt(
  kv: Deno.Kv,
  endpoint: GatedEndpoint,
  options: {
    token: string;
    failed: boolean | null;
    now: number;
    cooldownMs?: number;
    unanswered?: boolean;
  },
): Promise<EndpointCircuit & { destination: EndpointCircuit | null }> {
  const inFlightKey = webhookInFlightKey(endpoint.createdBy, endpoint.id);
  const circuitKey = webhookCircuitKey(endpoint.id);
  const origin = destinationOf(endpoint.url ?? "");
  const destinationKey = webhookDestinationKey(origin ?? "");
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const [circuit, current, host] = await kv.getMany<
      [EndpointCircuit, InFlight, EndpointCircuit]
    >([circuitKey, inFlightKey, destinationKey]);
    const before = circuit.value ?? { failures: 0, openUntil: null };
    const failures = options.failed === null
      ? before.failures
      : options.failed
      ? before.failures + 1
      : 0;
    const cooldown = circuitCooldownMs(failures, options.cooldownMs);
    const next: EndpointCircuit = options.failed === null
      ? before
      : { failures, openUntil: cooldown > 0 ? options.now + cooldown : null };
    const op = kv.atomic().check(circuit, current);
    if (current.value?.token === options.token) op.delete(inFlightKey);
    if (options.failed !== null) {
      if (failures > 0) op.set(circuitKey, next);
      else if (circuit.value) op.delete(circuitKey);
    }
    let destination = host.value;
    // Not checked: attempts to one host end at once from many endpoints and instances, and a
    // count lost to a concurrent end only delays the pause by one attempt.
    if (origin !== null && options.failed !== null) {
      if (options.unanswered) {
        const hostFailures = (host.value?.failures ?? 0) + 1;
        const pause = circuitCooldownMs(hostFailures, options.cooldownMs);
        destination = {
          failures: hostFailures,
          openUntil: pause > 0 ? options.now + pause : null,
        };
        op.set(destinationKey, destination, { expireIn: DESTINATION_MEMORY_MS });
      } else if (host.value) {
        destination = null;
        op.delete(destinationKey);
      }
    }
    if ((await op.commit()).ok) return { ...next, destination };
  }
  throw new Error("The endpoint's state kept changing while an attempt was being ended");
}

/** An endpoint's circuit (null: no failure in a row). */
export async function getCircuit(kv: Deno.Kv, webhookId: string): Promise<EndpointCircuit | null> {
  return (await kv.get<EndpointCircuit>(webhookCircuitKey(webhookId))).value;
}

/** Forgets an endpoint's failed attempts (it was turned back on, or points somewhere new). */
export async function resetCircuit(kv: Deno.Kv, webhookId: string): Promise<void> {
  await kv.atomic().delete(webhookCircuitKey(webhookId)).commit();
}
