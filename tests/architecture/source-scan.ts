import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT, forbiddenImport, sqlOffset } from '../../tools/lint/architecture.js';

/** One finding, located the way a reader jumps to it. */
export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly what: string;
}

/** Every .ts file under a repository folder, as repository-relative POSIX paths, sorted. */
export function tsFilesUnder(folder: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(REPO_ROOT, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(child);
    }
  };
  walk(folder);
  return out.sort();
}

const parse = (file: string, text: string): ts.SourceFile => ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
const lineOf = (sf: ts.SourceFile, pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;

/**
 * SQL statements in the string and template literals of a source text (comments are not literals,
 * so a comment quoting SQL is fine). The line is the statement's own line, inside a multi-line literal too.
 */
export function sqlInSource(file: string, text: string): Finding[] {
  const sf = parse(file, text);
  const found: Finding[] = [];
  const visit = (node: ts.Node): void => {
    let body: string | null = null;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) body = node.text;
    // An interpolation becomes a placeholder so a statement split around ${...} still reads as one.
    else if (ts.isTemplateExpression(node)) body = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' $1 ');
    if (body !== null) {
      const at = sqlOffset(body);
      if (at >= 0) {
        const skipped = body.slice(0, at).split('\n').length - 1;
        found.push({ file, line: lineOf(sf, node.getStart(sf)) + skipped, what: body.slice(at, at + 60).replace(/\s+/g, ' ') });
      }
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Module specifiers a source text imports or re-exports, statically or through import(). */
function importsOf(sf: ts.SourceFile): { specifier: string; line: number }[] {
  const out: { specifier: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    let spec: ts.Expression | undefined;
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) spec = node.moduleSpecifier;
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) spec = node.arguments[0];
    if (spec && ts.isStringLiteralLike(spec)) out.push({ specifier: spec.text, line: lineOf(sf, spec.getStart(sf)) });
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Imports a domain file may not have; `what` is the forbidden target as known-offenders.json names it. */
export function forbiddenImportsInSource(file: string, text: string): Finding[] {
  return importsOf(parse(file, text)).flatMap(({ specifier, line }) => {
    const target = forbiddenImport(file, specifier);
    return target === null ? [] : [{ file, line, what: target }];
  });
}

export const readRepoFile = (rel: string): string => readFileSync(path.join(REPO_ROOT, rel), 'utf8');

/** The architecture allowlist: offenders present when the rules landed, to be emptied (issue #18). */
export interface KnownOffenders {
  readonly imports: Readonly<Record<string, readonly string[]>>;
  readonly sql: readonly string[];
}

export function knownOffenders(): KnownOffenders {
  const raw = JSON.parse(readRepoFile('tests/architecture/known-offenders.json')) as KnownOffenders;
  return { imports: raw.imports, sql: raw.sql };
}
