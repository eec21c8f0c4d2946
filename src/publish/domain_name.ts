/**
 * Custom-domain names (DESIGN.md §7): the one canonical form a domain is stored,
 * compared and looked up in, and the TXT record that proves control of it.
 */

/** Longest domain name, in octets of its textual form without the trailing dot (RFC 1035 §2.3.4). */
const MAX_NAME_LENGTH = 253;
/** Longest label (RFC 1035 §2.3.4). */
const MAX_LABEL_LENGTH = 63;
/**
 * Inputs longer than this are refused before any parsing: no valid name comes close,
 * and the URL parser should not be handed unbounded user input.
 */
const MAX_INPUT_LENGTH = 1024;
/** Letters, digits, hyphen; no leading or trailing hyphen (RFC 952 / RFC 1123 §2.1). */
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/**
 * Turns user input into the canonical form of a public domain name: trimmed,
 * lower-cased, at most one trailing dot removed, and Unicode labels converted to
 * their IDNA (punycode, `xn--`) form, so that `Bücher.Example.` and
 * `xn--bcher-kva.example` are the same domain for the uniqueness rule of DESIGN.md
 * §7. The conversion is the WHATWG URL host parser's (UTS #46 mapping), the same one
 * browsers apply to the address the trust page will be served at. Anything that is
 * not a public host name is refused with a `TypeError` whose message says why: IP
 * addresses, single-label names such as `localhost`, empty labels, labels longer
 * than 63 or names longer than 253 octets, characters other than letters, digits
 * and hyphens (so also `_` and `*` wildcards), labels starting or ending with a
 * hyphen, and anything that carries a port, path, query, fragment or user info.
 */
export function normalizeDomain(input: string): string {
  if (typeof input !== "string") throw new TypeError("Domain must be a string");
  const trimmed = input.trim();
  if (trimmed === "") throw new TypeError("Domain must not be empty");
  if (trimmed.length > MAX_INPUT_LENGTH) {
    throw new TypeError(`Domain must be at most ${MAX_NAME_LENGTH} characters long`);
  }
  // The URL parser would silently drop or reinterpret these (port, path, user info,
  // percent-escapes, IPv6 literals), so they are refused before it sees the input:
  // a user who typed `example.com:443` or `https://example.com/` should be told,
  // not have part of what they typed ignored.
  if (trimmed.startsWith("[") || (trimmed.match(/:/g)?.length ?? 0) > 1) {
    throw new TypeError(`Domain must be a host name, not an IP address: ${JSON.stringify(input)}`);
  }
  if (trimmed.includes("://")) {
    throw new TypeError(
      `Domain must be a bare host name, without a scheme: ${JSON.stringify(input)}`,
    );
  }
  if (trimmed.includes(":")) {
    throw new TypeError(`Domain must not include a port: ${JSON.stringify(input)}`);
  }
  if (/[/\\?#]/.test(trimmed)) {
    throw new TypeError(
      `Domain must not include a path, query or fragment: ${JSON.stringify(input)}`,
    );
  }
  if (trimmed.includes("@")) {
    throw new TypeError(`Domain must not include user info: ${JSON.stringify(input)}`);
  }
  if (trimmed.includes("*")) {
    throw new TypeError(`Domain must not be a wildcard: ${JSON.stringify(input)}`);
  }
  if (/[%\s]/.test(trimmed)) {
    throw new TypeError(`Domain contains invalid characters: ${JSON.stringify(input)}`);
  }

  let host: string;
  try {
    host = new URL(`http://${trimmed}`).hostname;
  } catch {
    // The parser rejects forbidden code points, invalid punycode (`xn--zz`) and
    // names whose last label is numeric but not a valid IPv4 address.
    throw new TypeError(`Domain is not a valid host name: ${JSON.stringify(input)}`);
  }
  // Stripped after conversion so that an ideographic full stop (`。`), which IDNA
  // maps to `.`, counts as the trailing dot too. Only one: `example.com..` has an
  // empty label and is refused below.
  if (host.endsWith(".")) host = host.slice(0, -1);

  const labels = host.split(".");
  // A numeric last label is how the URL parser recognises IPv4 (it also rewrites
  // forms like `0x7f.1` to `127.0.0.1`); no top-level domain is all digits.
  if (/^[0-9]+$/.test(labels[labels.length - 1])) {
    throw new TypeError(`Domain must be a host name, not an IP address: ${JSON.stringify(input)}`);
  }
  if (labels.some((label) => label === "")) {
    throw new TypeError(`Domain must not contain empty labels: ${JSON.stringify(input)}`);
  }
  if (labels.length < 2) {
    throw new TypeError(
      `Domain must be a fully qualified name with at least two labels: ${JSON.stringify(input)}`,
    );
  }
  if (host.length > MAX_NAME_LENGTH) {
    throw new TypeError(`Domain must be at most ${MAX_NAME_LENGTH} characters long`);
  }
  for (const label of labels) {
    if (label.length > MAX_LABEL_LENGTH) {
      throw new TypeError(
        `Domain label must be at most ${MAX_LABEL_LENGTH} characters long: ${
          JSON.stringify(label)
        }`,
      );
    }
    if (!LDH_LABEL.test(label)) {
      throw new TypeError(
        `Domain label must contain only letters, digits and inner hyphens: ${
          JSON.stringify(label)
        }`,
      );
    }
  }
  return host;
}

/**
 * Whether `host` is already a domain name in canonical form (lower-case LDH labels of at
 * most 63 octets, at most 253 in all, no trailing dot). The cheap check for a name that
 * arrives on every request (the Host header), before it may become part of a KV key:
 * anything else can never be a stored domain, so it needs no lookup.
 */
export function isCanonicalDomainName(host: string): boolean {
  if (host.length === 0 || host.length > MAX_NAME_LENGTH) return false;
  for (const label of host.split(".")) {
    if (label.length > MAX_LABEL_LENGTH || !LDH_LABEL.test(label)) return false;
  }
  return true;
}

/**
 * The name of the TXT record that proves control of `domain`:
 * `_service.<domain>` (DESIGN.md §7). `domain` is normalized first, so the record
 * name is always in canonical form whatever the caller passes.
 */
export function verificationRecordName(domain: string): string {
  return `_service.${normalizeDomain(domain)}`;
}

/**
 * The value the verification TXT record must hold for a given verification token:
 * `trust-verification=<token>` (DESIGN.md §7). It is compared exactly, after the
 * record's character-strings are joined.
 */
export function verificationRecordValue(token: string): string {
  return `trust-verification=${token}`;
}
