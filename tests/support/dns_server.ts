/**
 * A real DNS server for tests (npm `dns2`, UDP on 127.0.0.1, ephemeral port) that
 * answers TXT queries (and A/AAAA queries, from `addresses`) from maps the test edits while
 * it runs. Point the service at
 * it with `DNS_NAMESERVER=127.0.0.1:<port>` or `createTxtResolver({ host, port })`.
 */
import { dns2 } from "../deps.ts";

const { Packet } = dns2;

/** Longest character-string a TXT record can carry: its length prefix is one octet (RFC 1035 §3.3). */
const MAX_CHARACTER_STRING_OCTETS = 255;

/** DNS names compare case-insensitively and with or without the root dot. */
function canonicalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

/**
 * Name → TXT records, each record its list of character-strings (so a multi-part
 * record is `["trust-verification=abc", "def"]`). `set` refuses a string the wire
 * format cannot carry, so a broken fixture fails in the test that writes it rather
 * than as a garbled packet the resolver silently rejects.
 */
export class TxtRecords extends Map<string, string[][]> {
  override set(name: string, records: string[][]): this {
    for (const record of records) {
      if (!Array.isArray(record) || record.length === 0) {
        throw new TypeError(`TXT record for ${name} must be a non-empty list of strings`);
      }
      for (const s of record) {
        const octets = new TextEncoder().encode(s).length;
        if (octets > MAX_CHARACTER_STRING_OCTETS) {
          throw new TypeError(
            `TXT character-string for ${name} is ${octets} octets; split it (max ${MAX_CHARACTER_STRING_OCTETS})`,
          );
        }
      }
    }
    return super.set(name, records);
  }
}

/** A running test DNS server. */
export interface DnsTestServer {
  host: "127.0.0.1";
  port: number;
  /** Mutable: changes apply to the next query. Names match case-insensitively, trailing dot optional. */
  records: TxtRecords;
  /** Every question name received, in order, as sent (for asserting what was asked). */
  queries: string[];
  /** Name → IPv4 and IPv6 addresses, answered to A and AAAA queries (webhook host lookups). */
  addresses: Map<string, string[]>;
  /** Stops listening and frees the port. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts a UDP DNS server on 127.0.0.1 with an ephemeral port. It is authoritative
 * for whatever names `records` holds: a TXT query for one of them returns its
 * records (a name with `[]` returns an empty NOERROR answer, i.e. NODATA), any other
 * query type for a known name is NODATA too, and an unknown name is NXDOMAIN.
 * dns2's TXT encoder writes an array `data` as one length-prefixed
 * character-string per element, so multi-part records go out exactly as given.
 */
export async function startDnsServer(): Promise<DnsTestServer> {
  const records = new TxtRecords();
  const queries: string[] = [];
  const addressBook = new Map<string, string[]>();

  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      response.header.aa = 1;
      const [question] = request.questions;
      if (!question) {
        response.header.rcode = Packet.RCODE.FORMERR;
      } else {
        queries.push(question.name);
        const wanted = canonicalName(question.name);
        const entry = [...records].find(([name]) => canonicalName(name) === wanted);
        const hosted = [...addressBook].find(([name]) => canonicalName(name) === wanted);
        if (hosted) {
          const v6 = question.type === Packet.TYPE.AAAA;
          if (v6 || question.type === Packet.TYPE.A) {
            for (const address of hosted[1].filter((a) => a.includes(":") === v6)) {
              response.answers.push(
                Packet.createResourceFromQuestion(question, { ttl: 60, address }),
              );
            }
          }
        } else if (!entry) {
          response.header.rcode = Packet.RCODE.NXDOMAIN;
        } else if (question.type === Packet.TYPE.TXT) {
          for (const data of entry[1]) {
            response.answers.push(
              Packet.createResourceFromQuestion(question, { ttl: 60, data }),
            );
          }
        }
      }
      // A failed send (the client went away) must not become an unhandled rejection.
      send(response).catch(() => {});
    },
  });

  // dns2 re-emits socket errors as "error"; without a listener an EventEmitter
  // throws them, and a bind failure would otherwise leave `listen()` pending forever.
  const failed = new Promise<never>((_, reject) => server.once("error", reject));
  failed.catch(() => {});
  // `{ port: 0, address }` takes dns2's object path to dgram's bind(options), so the
  // OS picks the port; `listen()` resolves with `addresses()`, whose `udp.port` is it.
  const addresses = await Promise.race([
    server.listen({ udp: { port: 0, address: "127.0.0.1" } }),
    failed,
  ]);
  const port = addresses.udp?.port;
  if (!port) throw new Error("dns2 did not report the UDP port it bound");

  let closing: Promise<void> | undefined;
  return {
    host: "127.0.0.1",
    port,
    records,
    queries,
    addresses: addressBook,
    close() {
      closing ??= server.close();
      return closing;
    },
  };
}
