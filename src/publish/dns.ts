/**
 * TXT lookups for custom-domain verification (DESIGN.md §7), against the system
 * resolver or the nameserver named by `DNS_NAMESERVER` (DESIGN.md §4).
 */
import { verificationRecordName, verificationRecordValue } from "./domain_name.ts";

/** How long one lookup may take unless the caller says otherwise. */
const DEFAULT_TIMEOUT_MS = 5_000;

/**
 * Looks up TXT records. Each record is returned as its list of character-strings,
 * exactly as they are on the wire (a record longer than 255 octets is necessarily
 * split into several); a name that does not exist (NXDOMAIN) or has no TXT records
 * (NODATA) yields `[]`, while a lookup that cannot be answered (timeout, unreachable
 * nameserver) rejects with a `DnsLookupError`.
 */
export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>;
}

/**
 * A DNS lookup that could not be answered: `kind` is `"timeout"` when no answer came
 * within the bound and `"failed"` for anything else. The message names the record,
 * the nameserver and the cause, so it can be shown to the user as-is; it is an
 * ordinary rejection for the request handler to map to a response, never a reason
 * for the process to stop.
 */
export class DnsLookupError extends Error {
  constructor(
    readonly kind: "timeout" | "failed",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "DnsLookupError";
  }
}

/**
 * Creates a `TxtResolver` backed by `Deno.resolveDns`. Without `nameserver` the
 * system's resolver configuration is used; with it every query goes to that
 * `host:port` (tests point it at a local server). A `host` that is not an IPv4 or
 * IPv6 literal is first resolved to an address, because `Deno.resolveDns` only
 * accepts an IP address for its nameserver. Each lookup, including that address
 * resolution, is bounded by `options.timeoutMs` (default 5 s) through an
 * `AbortSignal`: the resolver's own retries against an unresponsive nameserver take
 * 15 s or more, far longer than a request should wait.
 */
export function createTxtResolver(
  nameserver?: { host: string; port: number },
  options: { timeoutMs?: number } = {},
): TxtResolver {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`timeoutMs must be a positive number, got ${timeoutMs}`);
  }
  const via = nameserver ? ` via nameserver ${nameserver.host}:${nameserver.port}` : "";

  return {
    async resolveTxt(name: string): Promise<string[][]> {
      const what = `TXT lookup of ${name}${via}`;
      // A controller and a timer we clear ourselves rather than AbortSignal.timeout(),
      // whose timer would outlive a fast lookup.
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      try {
        const nameServer = nameserver
          ? {
            ipAddr: await nameserverAddress(nameserver.host, controller.signal),
            port: nameserver.port,
          }
          : undefined;
        return await Deno.resolveDns(name, "TXT", { nameServer, signal: controller.signal });
      } catch (error) {
        // NotFound is how Deno reports both NXDOMAIN and an empty answer (NODATA):
        // "no such record" is an answer, not a failure. Deno 2.x also reports a
        // SERVFAIL answer as NotFound, indistinguishably; for verification that only
        // means the domain stays pending until a later check succeeds.
        if (error instanceof Deno.errors.NotFound) return [];
        if (error instanceof DnsLookupError) throw error;
        if (controller.signal.aborted || error instanceof Deno.errors.TimedOut) {
          throw new DnsLookupError("timeout", `${what} timed out after ${timeoutMs} ms`, {
            cause: error,
          });
        }
        const detail = error instanceof Error ? error.message : String(error);
        throw new DnsLookupError("failed", `${what} failed: ${detail}`, { cause: error });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The nameserver's IP address: the host itself when it is a literal, else its first A (or AAAA) record. */
async function nameserverAddress(host: string, signal: AbortSignal): Promise<string> {
  const literal = host.replace(/^\[(.*)\]$/, "$1");
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(literal) || literal.includes(":")) return literal;
  if (host === "localhost") return "127.0.0.1";
  for (const type of ["A", "AAAA"] as const) {
    try {
      const [address] = await Deno.resolveDns(host, type, { signal });
      if (address) return address;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  throw new DnsLookupError("failed", `Nameserver host ${host} has no IP address`);
}

/**
 * Checks whether `domain` carries the verification TXT record for `token`
 * (DESIGN.md §7): a record at `_service.<domain>` whose value is
 * `trust-verification=<token>`. Each record's character-strings are joined with no
 * separator before the exact comparison, as DNS providers split long values
 * arbitrarily; `found` lists every record at that name in this joined form so a
 * failed check can show the user what is there instead, and `expected` is the value
 * that would have matched. A missing record is `verified: false` with `found: []`;
 * a lookup that cannot be answered rejects with `DnsLookupError`.
 */
export async function checkTxtVerification(
  resolver: TxtResolver,
  domain: string,
  token: string,
): Promise<{ verified: boolean; found: string[]; expected: string }> {
  // An empty token would make the bare prefix `trust-verification=` a match.
  if (token === "") throw new TypeError("Verification token must not be empty");
  const name = verificationRecordName(domain);
  const expected = verificationRecordValue(token);
  const records = await resolver.resolveTxt(name);
  const found = records.map((strings) => strings.join(""));
  return { verified: found.includes(expected), found, expected };
}
