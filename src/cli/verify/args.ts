/**
 * The verifier kit's command line: the usage text, the options and the keys a buyer pins.
 *
 * @module
 */
import { VKEY } from "./log_proofs.ts";

export function usage(moduleUrl: string): string {
  const module = servedFrom(moduleUrl) ? moduleUrl : "<server>/verify.ts";
  return `Usage: deno run --allow-net ${module} <trust page URL or slug> [options]

A custom domain's URL (https://trust.example.com/) verifies the project that
verified the domain, read through the service (--server, or where this file
was loaded from), and checks the domain's own change of holder.

A trust center's URL (<server>/public/trust/<organization>) checks the
organization slug's change of holder against the log and lists the projects
it publishes, each with the command that verifies it.

Verifies every version of a trust profile: the listing is complete and in
order, each JWS signature verifies against the service's JWKS, each version
is chained to the previous one, each is in the publication log, the log's
entries of the project are exactly the versions verified, and (with
--checkpoint) the log only grew since a checkpoint you pinned earlier.

Options:
  --server <url>             the service (default: from the URL, else where this file was loaded from)
  --pin jwks=<kid>[,<kid>…]  trust only these JWKS keys (their RFC 7638 thumbprints) for the JWS
  --pin log=<verifier key>   check the log's checkpoints with this key, not the one the service
                             publishes at /log (--vkey <key> is the same)
  --pin publisher=<N>        accept the change of publisher the log recorded at entry N (the
                             slug now belongs to the publisher named there; a different change fails)
  --pin domain=<N>           the same for a custom domain's change of holder (a custom domain URL)
  --pin organization=<N>     the same for an organization slug's change of holder (a trust center URL)
  --checkpoint <file>        a checkpoint saved earlier (needs --allow-read)
  --save-checkpoint <file>   write the verified latest checkpoint, to pin next time (needs --allow-write)
  help, --help               print this text

Without --pin, the keys are trusted on first use and printed, with the command
that pins them: run that one from then on, so a server that swaps its keys fails.

An answered questionnaire and its signed manifest are verified offline with
"verify.ts questionnaire --help" (needs --allow-read only).

Exit status: 0 verified; 1 a check failed; 2 usage error; 3 the service could not be read.`;
}

/** A mistake in the command line: exit status 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Keys trusted whatever the service says: JWKS key ids and the log's verifier key; and the
 * change of publisher under the slug the buyer accepted (its entry's leaf index).
 */
export interface Pins {
  jwks?: string[];
  log?: string;
  publisher?: number;
  /** The custom domain's change of holder the buyer accepted (its entry's leaf index). */
  domain?: number;
  /** The organization slug's change of holder the buyer accepted (its entry's leaf index). */
  organization?: number;
}

export interface Options {
  server: string;
  /** The project's slug ("" until a custom domain's is read from the service). */
  slug: string;
  /** A custom domain the buyer reads the profile at: its project is the one verified. */
  domain?: string;
  /** A trust center's organization slug: its change of holder is checked, its projects listed. */
  organization?: string;
  checkpoint?: string;
  saveCheckpoint?: string;
  pins: Pins;
  /** How to run this kit again (its URL or path), for the command that pins the keys. */
  kit?: string;
}

function servedFrom(moduleUrl: string): string | undefined {
  const url = new URL(moduleUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  return new URL(".", url).href.replace(/\/$/, "");
}

/** How to name this module in a command: its URL when served, else its path. */
export function kitReference(moduleUrl: string): string {
  const url = new URL(moduleUrl);
  return url.protocol === "file:" ? decodeURIComponent(url.pathname) : url.href;
}

export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A custom domain: two labels or more, as the service accepts them (lowercased by URL). */
export const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]*$/;
/** The paths a custom domain serves its project's pages at (any of them names the domain). */
const DOMAIN_PAGES = ["/", "/trust.json", "/index.html", "/index.md"];
/** An RFC 7638 SHA-256 thumbprint, base64url without padding: how the service names its keys. */
const KID = /^[A-Za-z0-9_-]{43}$/;

export function parsePin(value: string, pins: Pins): void {
  const at = value.indexOf("=");
  const [kind, text] = at < 0 ? [value, ""] : [value.slice(0, at), value.slice(at + 1)];
  if (kind === "jwks") {
    const kids = text.split(",").filter((kid) => kid !== "");
    const bad = kids.find((kid) => !KID.test(kid));
    if (kids.length === 0 || bad !== undefined) {
      throw new UsageError(`--pin jwks= takes key ids (RFC 7638 thumbprints), not "${bad ?? ""}"`);
    }
    pins.jwks = [...new Set([...(pins.jwks ?? []), ...kids])];
  } else if (kind === "log") {
    if (!VKEY.test(text)) {
      throw new UsageError(
        `--pin log= takes the log's verifier key (name+hash+key), not "${text}"`,
      );
    }
    if (pins.log !== undefined && pins.log !== text) {
      throw new UsageError("Two different log keys are pinned");
    }
    pins.log = text;
  } else if (kind === "publisher" || kind === "domain" || kind === "organization") {
    if (!/^(0|[1-9][0-9]{0,14})$/.test(text)) {
      throw new UsageError(`--pin ${kind}= takes a log entry's index, not "${text}"`);
    }
    if (pins[kind] !== undefined && pins[kind] !== Number(text)) {
      throw new UsageError(
        kind === "publisher"
          ? "Two different changes of publisher are pinned"
          : kind === "domain"
          ? "Two different changes of the domain's holder are pinned"
          : "Two different changes of the organization slug's holder are pinned",
      );
    }
    pins[kind] = Number(text);
  } else {
    throw new UsageError(
      `--pin takes jwks=<kid>[,<kid>…], log=<verifier key>, publisher=<entry>, domain=<entry> or organization=<entry>`,
    );
  }
}

/** Parses the command line; `null` asks for the usage text. */
export function parseArgs(args: string[], moduleUrl: string): Options | null {
  const values = new Map<string, string>();
  const pins: Pins = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "help" || arg === "--help" || arg === "-h") return null;
    if (arg.startsWith("--")) {
      const name = arg.slice(2);
      if (!["server", "checkpoint", "save-checkpoint", "vkey", "pin"].includes(name)) {
        throw new UsageError(`Unknown option "${arg}"`);
      }
      const value = args[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      if (name === "pin") parsePin(value, pins);
      else if (name === "vkey") parsePin(`log=${value}`, pins);
      else values.set(name, value);
    } else positional.push(arg);
  }
  if (positional.length !== 1) throw new UsageError("Name one trust page URL or slug");
  const target = positional[0];
  let server = values.get("server");
  let slug: string;
  let domain: string | undefined;
  let organization: string | undefined;
  if (/^https?:\/\//.test(target)) {
    const url = new URL(target);
    const center = url.pathname.match(/^(.*?)\/public\/trust\/([^/.]+)\/?$/);
    const match = url.pathname.match(/^(.*?)\/trust\/([^/.]+)/);
    if (center) {
      // A trust center: the organization's slug, on the service it is served from.
      organization = center[2];
      slug = "";
      server ??= `${url.origin}${center[1]}`;
    } else if (match) {
      slug = match[2];
      server ??= `${url.origin}${match[1]}`;
    } else if (DOMAIN_PAGES.includes(url.pathname) && DOMAIN.test(url.hostname)) {
      // A custom domain: its project is read from the service that serves it.
      domain = url.hostname;
      slug = "";
      server ??= servedFrom(moduleUrl);
      if (!server) {
        throw new UsageError(`"${target}" is a custom domain: name the service with --server`);
      }
    } else {
      throw new UsageError(`"${target}" is not a /trust/<slug> page nor a custom domain's`);
    }
  } else {
    slug = target;
    server ??= servedFrom(moduleUrl);
  }
  if (organization !== undefined) {
    if (!SLUG.test(organization)) {
      throw new UsageError(`"${organization}" is not an organization slug`);
    }
    if (pins.publisher !== undefined || pins.domain !== undefined || pins.jwks !== undefined) {
      throw new UsageError(
        "A trust center's URL takes --pin organization= and --pin log= only (its projects are verified one by one)",
      );
    }
  } else if (domain === undefined && !SLUG.test(slug)) {
    throw new UsageError(`"${slug}" is not a project slug`);
  }
  if (domain === undefined && pins.domain !== undefined) {
    throw new UsageError("--pin domain= is for a custom domain's URL");
  }
  if (organization === undefined && pins.organization !== undefined) {
    throw new UsageError("--pin organization= is for a trust center's URL");
  }
  if (!server) throw new UsageError("Give a trust page URL or --server");
  return {
    server: server.replace(/(?<!\/)\/+$/, ""),
    slug,
    ...(domain === undefined ? {} : { domain }),
    ...(organization === undefined ? {} : { organization }),
    checkpoint: values.get("checkpoint"),
    saveCheckpoint: values.get("save-checkpoint"),
    pins,
    kit: kitReference(moduleUrl),
  };
}
