/**
 * Every regular expression of a source tree, and what a maintained super-linear-regex checker
 * finds in it. The checker is scslre (the analysis behind eslint-plugin-regexp's
 * `no-super-linear-backtracking` and `no-super-linear-move` rules), run on the pattern as
 * `@eslint-community/regexpp` parses it. The patterns are collected from the TypeScript AST of
 * each file: regular expression literals, and `new RegExp(…)` / `RegExp(…)` whose pattern (and
 * flags) are string literals or template literals without substitutions. A `RegExp` built from
 * anything else is listed as unchecked, so a new one cannot slip by.
 */
// deno-lint-ignore-file no-import-prefix
import ts from "npm:typescript@5.9.3";
import { RegExpParser } from "npm:@eslint-community/regexpp@4.12.2";
import { analyse } from "npm:scslre@0.3.0";

/** One regular expression found in a source file. */
export interface FoundRegex {
  file: string;
  line: number;
  source: string;
  flags: string;
}

/** A `RegExp` whose pattern is not a literal: it cannot be checked statically. */
export interface UncheckedRegex {
  file: string;
  line: number;
  text: string;
}

/** What the checker says about one pattern. */
export interface Finding {
  /** scslre's kind: "Trade" and "Self" backtrack, "Move" costs O(n²) over a search. */
  type: string;
  exponential: boolean;
  /** The repeated character an attack string is made of (scslre's description). */
  message: string;
}

function literalText(node: ts.Node | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  return undefined;
}

/** The regular expressions of one TypeScript source, by position. */
export function regexesOf(file: string, text: string): {
  found: FoundRegex[];
  unchecked: UncheckedRegex[];
} {
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FoundRegex[] = [];
  const unchecked: UncheckedRegex[] = [];
  const lineOf = (node: ts.Node) =>
    sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
  const visit = (node: ts.Node) => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const raw = node.getText(sourceFile);
      const slash = raw.lastIndexOf("/");
      found.push({
        file,
        line: lineOf(node),
        source: raw.slice(1, slash),
        flags: raw.slice(slash + 1),
      });
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      ts.isIdentifier(node.expression) && node.expression.text === "RegExp"
    ) {
      const [pattern, flags] = node.arguments ?? [];
      const source = literalText(pattern);
      const flagText = flags === undefined ? "" : literalText(flags);
      if (source === undefined || flagText === undefined) {
        unchecked.push({ file, line: lineOf(node), text: node.getText(sourceFile) });
      } else found.push({ file, line: lineOf(node), source, flags: flagText });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return { found, unchecked };
}

/** Every `.ts`/`.tsx` file under a directory, sorted. */
export async function sourceFiles(dir: URL): Promise<URL[]> {
  const out: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.isDirectory ? `${entry.name}/` : entry.name, dir);
    if (entry.isDirectory) out.push(...await sourceFiles(url));
    else if (/\.tsx?$/.test(entry.name)) out.push(url);
  }
  return out.sort((a, b) => a.href.localeCompare(b.href));
}

const parser = new RegExpParser({ ecmaVersion: 2025 });

/**
 * What scslre finds in a pattern: each way an input of one repeated character makes it take
 * super-linear (polynomial or exponential) time, through backtracking or through a search that
 * tries it at every position. Empty: the pattern runs in linear time on such inputs.
 */
export function superLinearFindings(source: string, flags: string): Finding[] {
  const literal = parser.parseLiteral(`/${source}/${flags}`);
  const { reports } = analyse(literal, { reportTypes: { Move: true, Self: true, Trade: true } });
  return reports.map((report) => ({
    type: report.type,
    exponential: report.exponential,
    message: `${report.type}${report.exponential ? " (exponential)" : ""}: attack character ${
      describeCharacter(report.character)
    }`,
  }));
}

function describeCharacter(character: { literal: { source: string } } | unknown): string {
  const literal = (character as { literal?: { source?: string } }).literal;
  return literal?.source ?? String(character);
}
