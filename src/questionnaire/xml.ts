/**
 * A small XML tokenizer for the parts of a workbook: start tags (with attributes), end tags and
 * text, each with its position in the source so a part can be patched in place. It knows the five
 * predefined entities and character references, skips comments and processing instructions,
 * reads CDATA as text, and refuses a DOCTYPE (so no entity expansion exists to abuse) and what
 * is not well-formed (a second root, an end tag that does not close the open element, an
 * element left open, text outside the root) once the tokens are read to the end. Names keep
 * their prefix in `qname`; `name` is the local name, which is what the readers match on.
 */
import { QuestionnaireFileError } from "./types.ts";

export type XmlToken =
  | {
    kind: "open";
    name: string;
    qname: string;
    attrs: Record<string, string>;
    selfClosing: boolean;
    start: number;
    end: number;
  }
  | { kind: "close"; name: string; start: number; end: number }
  | { kind: "text"; text: string; start: number; end: number };

function malformed(message: string): QuestionnaireFileError {
  return new QuestionnaireFileError("malformed", `Not a readable workbook: ${message}.`);
}

const ENTITIES: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
};

/** Text with its entity and character references replaced. */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
    }
    const known = ENTITIES[ref];
    if (known === undefined) throw malformed(`unknown entity ${whole}`);
    return known;
  });
}

/** Text escaped for an element's content or an attribute value; characters XML forbids dropped. */
export function escapeXml(text: string): string {
  return text
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "")
    .replace(
      /[&<>"]/g,
      (c) => c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;",
    );
}

/** An element name, prefixed or not (ASCII letters; other name characters are allowed on). */
const NAME =
  /^[A-Za-z_\u00c0-\uffff][\w.\-\u00b7-\uffff]*(:[A-Za-z_\u00c0-\uffff][\w.\-\u00b7-\uffff]*)?$/;

/** Whitespace as `\s` sees it in a tag: space, tab, CR, LF (and the rarer ones XML never uses). */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c || c === 0x0b ||
    c === 0xa0 || c === 0xfeff || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/**
 * The attributes of a start tag's body (what follows its name), in one pass: each `name =
 * "value"` or `name = 'value'`, where a name is a run of characters other than whitespace and
 * `=`; anything else (a name without `=`, a value without quotes, an unclosed quote) is skipped
 * and the scan goes on at the next name, as the pattern this replaces did. Every character is
 * looked at a bounded number of times: an unclosed quote is searched for once, and no later
 * quote of its kind exists to search for again, so a tag of n characters costs O(n) (the
 * pattern backtracked: `<a ` and 120,000 characters without `=` took seconds).
 */
function attributes(body: string, from: number): Record<string, string> {
  const attrs: Record<string, string> = {};
  const length = body.length;
  let at = from;
  while (at < length) {
    const c = body.charCodeAt(at);
    if (isSpace(c) || c === 0x3d /* = */) {
      at++;
      continue;
    }
    const nameStart = at;
    while (at < length) {
      const n = body.charCodeAt(at);
      if (isSpace(n) || n === 0x3d) break;
      at++;
    }
    const nameEnd = at;
    while (at < length && isSpace(body.charCodeAt(at))) at++;
    if (body.charCodeAt(at) !== 0x3d) continue; // a name without a value: the next name starts here
    at++;
    while (at < length && isSpace(body.charCodeAt(at))) at++;
    const quote = body.charCodeAt(at);
    if (quote !== 0x22 && quote !== 0x27) continue; // an unquoted value is read as a name
    const close = body.indexOf(quote === 0x22 ? '"' : "'", at + 1);
    if (close < 0) continue; // unclosed: the quote starts a name
    attrs[body.slice(nameStart, nameEnd)] = decodeEntities(body.slice(at + 1, close));
    at = close + 1;
  }
  return attrs;
}

function localName(qname: string): string {
  const colon = qname.indexOf(":");
  return colon < 0 ? qname : qname.slice(colon + 1);
}

/** The tokens of an XML document, lazily, in order. */
export function* xmlTokens(xml: string): Generator<XmlToken> {
  let at = 0;
  const length = xml.length;
  // Well-formedness: one root element, every element closed by its own end tag, no text outside.
  const open: string[] = [];
  let roots = 0;
  const text = (start: number, end: number): XmlToken => {
    const raw = xml.slice(start, end);
    if (open.length === 0 && raw.trim() !== "" && raw !== "\ufeff") {
      throw malformed("text outside the root element");
    }
    return { kind: "text", text: decodeEntities(raw), start, end };
  };
  while (at < length) {
    const lt = xml.indexOf("<", at);
    if (lt < 0) {
      yield text(at, length);
      break;
    }
    if (lt > at) yield text(at, lt);
    const next = xml.charCodeAt(lt + 1);
    if (next === 0x3f /* ? */) {
      at = closeAfter(xml, "?>", lt);
    } else if (next === 0x21 /* ! */) {
      if (xml.startsWith("<!--", lt)) at = closeAfter(xml, "-->", lt);
      else if (xml.startsWith("<![CDATA[", lt) && open.length > 0) {
        const end = closeAfter(xml, "]]>", lt);
        yield { kind: "text", text: xml.slice(lt + 9, end - 3), start: lt, end };
        at = end;
      } else throw malformed("a document type declaration");
    } else if (next === 0x2f /* / */) {
      const end = closeAfter(xml, ">", lt);
      const qname = xml.slice(lt + 2, end - 1).trim();
      if (!NAME.test(qname) || open.pop() !== qname) throw malformed(`a misplaced </${qname}>`);
      yield { kind: "close", name: localName(qname), start: lt, end };
      at = end;
    } else {
      const end = tagEnd(xml, lt);
      const selfClosing = xml.charCodeAt(end - 2) === 0x2f;
      const body = xml.slice(lt + 1, selfClosing ? end - 2 : end - 1);
      const space = body.search(/\s/);
      const qname = space < 0 ? body : body.slice(0, space);
      if (!NAME.test(qname)) throw malformed("a broken tag");
      if (open.length === 0 && ++roots > 1) throw malformed("a second root element");
      const attrs = space >= 0 ? attributes(body, space) : {};
      if (!selfClosing) open.push(qname);
      yield { kind: "open", name: localName(qname), qname, attrs, selfClosing, start: lt, end };
      at = end;
    }
  }
  if (open.length > 0) throw malformed(`an unclosed <${open[open.length - 1]}>`);
  if (roots === 0) throw malformed("no root element");
}

function closeAfter(xml: string, marker: string, from: number): number {
  const found = xml.indexOf(marker, from);
  if (found < 0) throw malformed("an unclosed markup");
  return found + marker.length;
}

/** The end of a start tag: the first ">" outside a quoted attribute value. */
function tagEnd(xml: string, from: number): number {
  let quote = 0;
  for (let i = from + 1; i < xml.length; i++) {
    const c = xml.charCodeAt(i);
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x3e) return i + 1;
  }
  throw malformed("an unclosed tag");
}

/** `_xHHHH_` escapes of OOXML strings (characters XML cannot carry) decoded. */
export function decodeOoxmlEscapes(text: string): string {
  if (!text.includes("_x")) return text;
  return text.replace(
    /_x([0-9A-Fa-f]{4})_/g,
    (_, hex: string) => String.fromCharCode(parseInt(hex, 16)),
  );
}
