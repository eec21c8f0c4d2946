/** Options for {@linkcode canonicalJson}. */
export interface CanonicalJsonOptions {
  /** Deepest allowed nesting of arrays and objects; the top-level container is depth 1. */
  maxDepth?: number;
}

const DEFAULT_MAX_DEPTH = 64;

type Frame =
  | { kind: "array"; container: readonly unknown[]; index: number }
  | { kind: "object"; container: Record<string, unknown>; keys: string[]; index: number };

/**
 * Serializes `value` as RFC 8785 (JCS) canonical JSON: no whitespace, object keys sorted by
 * UTF-16 code units, numbers and strings written exactly as ECMAScript's JSON.stringify
 * writes them. Only JSON data is accepted (null, booleans, finite numbers, well-formed
 * strings, arrays and plain objects); anything else, a cycle, or nesting deeper than
 * `maxDepth` (default 64) throws a TypeError naming the offending JSON path. The walk uses
 * an explicit stack, so hostile input can never overflow the call stack.
 */
export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const out: string[] = [];
  const stack: Frame[] = [];
  // Containers currently being written: seeing one again means the input is cyclic.
  const open = new Set<object>();

  const write = (item: unknown): void => {
    if (item === null) {
      out.push("null");
      return;
    }
    switch (typeof item) {
      case "boolean":
        out.push(item ? "true" : "false");
        return;
      case "number":
        if (!Number.isFinite(item)) {
          throw new TypeError(`Cannot canonicalize the number ${item} at "${pathOf(stack)}"`);
        }
        // ECMAScript's Number-to-String is the serialization RFC 8785 mandates.
        out.push(JSON.stringify(item));
        return;
      case "string":
        out.push(stringLiteral(item, stack));
        return;
      case "object":
        break;
      default:
        throw new TypeError(`Cannot canonicalize a ${typeof item} at "${pathOf(stack)}"`);
    }
    if (open.has(item)) {
      throw new TypeError(`Cannot canonicalize a cyclic value at "${pathOf(stack)}"`);
    }
    if (stack.length >= maxDepth) {
      throw new TypeError(
        `Cannot canonicalize nesting deeper than ${maxDepth} at "${pathOf(stack)}"`,
      );
    }
    if (Array.isArray(item)) {
      out.push("[");
      stack.push({ kind: "array", container: item, index: 0 });
    } else if (isPlainObject(item)) {
      out.push("{");
      // The default sort compares UTF-16 code units, which is the order RFC 8785 requires.
      const keys = Object.keys(item).sort();
      stack.push({ kind: "object", container: item, keys, index: 0 });
    } else {
      const name = item.constructor?.name ?? "object";
      throw new TypeError(`Cannot canonicalize a ${name} at "${pathOf(stack)}"`);
    }
    open.add(item);
  };

  write(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const length = frame.kind === "array" ? frame.container.length : frame.keys.length;
    if (frame.index === length) {
      out.push(frame.kind === "array" ? "]" : "}");
      open.delete(frame.container);
      stack.pop();
      continue;
    }
    if (frame.index > 0) out.push(",");
    // Advancing first makes error paths point at the member being written.
    const index = frame.index++;
    if (frame.kind === "array") {
      write(frame.container[index]);
    } else {
      const key = frame.keys[index];
      out.push(stringLiteral(key, stack), ":");
      write(frame.container[key]);
    }
  }
  return out.join("");
}

function stringLiteral(text: string, stack: readonly Frame[]): string {
  // RFC 8785 requires I-JSON, whose strings must be Unicode: lone surrogates are not.
  if (!text.isWellFormed()) {
    throw new TypeError(`Cannot canonicalize a string with a lone surrogate at "${pathOf(stack)}"`);
  }
  return JSON.stringify(text);
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// A JSON Pointer (RFC 6901) to the value being written, built only when an error is thrown.
function pathOf(stack: readonly Frame[]): string {
  return stack.map((frame) => {
    const index = frame.index - 1;
    const segment = frame.kind === "array" ? String(index) : frame.keys[index];
    return "/" + segment.replaceAll("~", "~0").replaceAll("/", "~1");
  }).join("");
}
