/**
 * Reading the collector CLI's input files ("-" is stdin): a JSON object, a JSON array, or a
 * stream of JSON values written one after another, sent as an array of them.
 *
 * @module
 */
import { UsageError } from "./errors.ts";

/** Reads a file ("-" is stdin) as a JSON object, or throws a UsageError naming it. */
export async function readJsonObject(
  file: string,
  read: (file: string) => Promise<string>,
): Promise<Record<string, unknown>> {
  const value = await readJson(file, read);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${file} must hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * Reads an evidence document: a JSON object or a JSON array (conftest's `--output json`),
 * or a stream of JSON objects one after another (`govulncheck -json`, the lines of `yarn
 * npm audit --json`), sent as an array of them; or throws a UsageError naming the file.
 */
export async function readJsonDocument(
  file: string,
  read: (file: string) => Promise<string>,
): Promise<Record<string, unknown> | unknown[]> {
  const value = await readJson(file, read, true);
  if (typeof value !== "object" || value === null) {
    throw new UsageError(`${file} must hold a JSON object or array`);
  }
  return value as Record<string, unknown> | unknown[];
}

async function readJson(
  file: string,
  read: (file: string) => Promise<string>,
  stream = false,
): Promise<unknown> {
  let text: string;
  try {
    text = await read(file);
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const values = stream ? splitJsonStream(text) : null;
    if (values !== null) return values;
    throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
  }
}

/**
 * The values of a stream of JSON objects or arrays written one after another (JSON Lines,
 * or pretty-printed objects as govulncheck writes them), or null when `text` is not such a
 * stream of at least two values.
 */
export function splitJsonStream(text: string): unknown[] | null {
  const values: unknown[] = [];
  let depth = 0, start = -1, inString = false, escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      if (depth === 0) return null;
      inString = true;
    } else if (c === "{" || c === "[") {
      if (depth === 0) start = i;
      depth++;
    } else if (c === "}" || c === "]") {
      if (--depth < 0) return null;
      if (depth === 0) {
        try {
          values.push(JSON.parse(text.slice(start, i + 1)));
        } catch {
          return null;
        }
      }
    } else if (depth === 0 && !/\s/.test(c)) {
      return null;
    }
  }
  return depth === 0 && values.length >= 2 ? values : null;
}

/** Reads a file, or stdin for "-". */
export async function readInput(file: string): Promise<string> {
  if (file !== "-") return await Deno.readTextFile(file);
  return await new Response(Deno.stdin.readable).text();
}
