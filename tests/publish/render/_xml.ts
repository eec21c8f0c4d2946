/**
 * A strict little well-formedness check for the XML the renderers write (Atom, SVG):
 * every tag matches, attributes are quoted, and text holds no raw `<` or stray `&`.
 * Deno has no DOMParser; this is enough to catch an unescaped vendor string.
 */
import assert from "node:assert/strict";

const TAG = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/y;
const STRAY_AMP = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;

/** Asserts `xml` is well-formed and returns the element names in document order. */
export function assertWellFormedXml(xml: string): string[] {
  let i = 0;
  if (xml.startsWith("<?xml")) i = xml.indexOf("?>") + 2;
  const open: string[] = [];
  const names: string[] = [];
  let roots = 0;
  while (i < xml.length) {
    const c = xml[i];
    if (c === "<") {
      TAG.lastIndex = i;
      const m = TAG.exec(xml);
      assert.ok(m, `Malformed tag at ${i}: ${JSON.stringify(xml.slice(i, i + 60))}`);
      const [whole, closing, name, attributes, selfClosing] = m;
      assert.doesNotMatch(attributes, STRAY_AMP, `Stray & in an attribute of <${name}>`);
      if (closing) {
        assert.equal(open.pop(), name, `Mismatched </${name}> at ${i}`);
      } else {
        if (open.length === 0) roots++;
        names.push(name);
        if (!selfClosing) open.push(name);
      }
      i += whole.length;
    } else if (c === "&") {
      ENTITY.lastIndex = i;
      const m = ENTITY.exec(xml);
      assert.ok(m, `Stray & at ${i}: ${JSON.stringify(xml.slice(i, i + 20))}`);
      i += m[0].length;
    } else {
      assert.ok(open.length > 0 || /\s/.test(c), `Text outside the root element at ${i}`);
      i++;
    }
  }
  assert.deepEqual(open, [], "Unclosed elements");
  assert.equal(roots, 1, "Exactly one root element");
  return names;
}
