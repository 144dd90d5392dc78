// The mutants of a source file: small changes a test suite should notice, found on the file's
// TypeScript syntax tree (comparisons, boundaries, logic, arithmetic, negations, constants,
// removed calls and assignments, guards that never fire) and, in the SQL and Lua text of the
// stores and of the SQL generator, the comparisons and conjunctions that make a
// compare-and-set. Every mutant replaces one range of the file's text with another.
import ts from 'typescript';

export interface Mutant {
  /** Repository-relative path of the mutated file. */
  readonly file: string;
  /** 1-based line and column of the change. */
  readonly line: number;
  readonly col: number;
  readonly start: number;
  readonly end: number;
  readonly original: string;
  readonly replacement: string;
  /** The operator's family: boundary, equality, logical, arithmetic, negation, ... */
  readonly operator: string;
  /** The whole source line, trimmed (what the equivalent list matches on). */
  readonly code: string;
}

const BINARY: Partial<Record<ts.SyntaxKind, [string, string]>> = {
  [ts.SyntaxKind.LessThanToken]: ['boundary', '<='],
  [ts.SyntaxKind.LessThanEqualsToken]: ['boundary', '<'],
  [ts.SyntaxKind.GreaterThanToken]: ['boundary', '>='],
  [ts.SyntaxKind.GreaterThanEqualsToken]: ['boundary', '>'],
  [ts.SyntaxKind.EqualsEqualsEqualsToken]: ['equality', '!=='],
  [ts.SyntaxKind.ExclamationEqualsEqualsToken]: ['equality', '==='],
  [ts.SyntaxKind.EqualsEqualsToken]: ['equality', '!='],
  [ts.SyntaxKind.ExclamationEqualsToken]: ['equality', '=='],
  [ts.SyntaxKind.AmpersandAmpersandToken]: ['logical', '||'],
  [ts.SyntaxKind.BarBarToken]: ['logical', '&&'],
  [ts.SyntaxKind.PlusToken]: ['arithmetic', '-'],
  [ts.SyntaxKind.MinusToken]: ['arithmetic', '+'],
  [ts.SyntaxKind.AsteriskToken]: ['arithmetic', '/'],
  [ts.SyntaxKind.SlashToken]: ['arithmetic', '*'],
  [ts.SyntaxKind.PercentToken]: ['arithmetic', '*'],
  [ts.SyntaxKind.LessThanLessThanToken]: ['arithmetic', '>>'],
  [ts.SyntaxKind.GreaterThanGreaterThanToken]: ['arithmetic', '<<'],
  [ts.SyntaxKind.GreaterThanGreaterThanGreaterThanToken]: ['arithmetic', '<<'],
  [ts.SyntaxKind.AmpersandToken]: ['arithmetic', '|'],
  [ts.SyntaxKind.BarToken]: ['arithmetic', '&'],
  [ts.SyntaxKind.CaretToken]: ['arithmetic', '&'],
  [ts.SyntaxKind.PlusEqualsToken]: ['arithmetic', '-='],
  [ts.SyntaxKind.MinusEqualsToken]: ['arithmetic', '+='],
};

/** SQL (upper-case keywords) and Lua text: the comparisons and conjunctions of a condition. */
const SQL_TEXT: readonly [RegExp, string][] = [
  [/(?<=\s)<=(?=\s)/g, '<'],
  [/(?<=\s)>=(?=\s)/g, '>'],
  [/(?<=\s)<(?=\s)/g, '<='],
  [/(?<=\s)>(?=\s)/g, '>='],
  [/(?<=\s)<>(?=\s)/g, '='],
  [/(?<=\b(?:WHERE|AND|OR|ON|WHEN|IF)\s+[\w."]+\s*)=(?=\s)/g, '<>'],
  [/(?<=\s)AND(?=\s)/g, 'OR'],
  [/(?<=\s)OR(?=\s)/g, 'AND'],
];
const LUA_TEXT: readonly [RegExp, string][] = [
  [/(?<=\s)<=(?=\s)/g, '<'],
  [/(?<=\s)>=(?=\s)/g, '>'],
  [/(?<=\s)<(?=\s)/g, '<='],
  [/(?<=\s)>(?=\s)/g, '>='],
  [/(?<=\s)==(?=\s)/g, '~='],
  [/(?<=\s)~=(?=\s)/g, '=='],
  [/(?<=\s)and(?=\s)/g, 'or'],
  [/(?<=\s)or(?=\s)/g, 'and'],
];
const LOOKS_SQL = /\b(SELECT|UPDATE|INSERT|DELETE|WHERE|RETURNING|CREATE|BEGIN|IF|CASE)\b/;
const LOOKS_LUA = /redis\.call|\blocal\s/;

export interface Focus {
  /** Only inside these functions (by name: declarations, methods, variables holding arrows). */
  readonly functions?: readonly string[];
  /** Mutate SQL/Lua inside string literals and templates. */
  readonly text?: boolean;
}

type Add = (node: ts.Node, start: number, end: number, replacement: string, op: string) => void;

/** Every mutant of `text` (the file `file`), in source order. */
export function mutantsOf(file: string, text: string, focus: Focus = {}): Mutant[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Mutant[] = [];
  const add: Add = (_node, start, end, replacement, operator) => {
    const { line, character } = src.getLineAndCharacterOfPosition(start);
    const lineStart = src.getLineStarts()[line] ?? 0;
    const lineEnd = text.indexOf('\n', lineStart);
    const code = text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd).trim();
    const original = text.slice(start, end);
    out.push({
      file,
      line: line + 1,
      col: character + 1,
      start,
      end,
      original,
      replacement,
      operator,
      code,
    });
  };
  const visit = (node: ts.Node, inside: boolean) => {
    const here = inside || focused(node, src, focus.functions);
    if (ts.isTypeNode(node) || ts.isImportDeclaration(node) || ts.isEnumDeclaration(node)) return;
    if (here) mutateNode(node, src, add, focus.text === true);
    ts.forEachChild(node, (child) => visit(child, here));
  };
  visit(src, focus.functions === undefined);
  return out.sort((a, b) => a.start - b.start || a.end - b.end);
}

function focused(node: ts.Node, src: ts.SourceFile, names: readonly string[] | undefined) {
  if (names === undefined) return true;
  const name = functionName(node, src);
  return name !== undefined && names.includes(name);
}

function functionName(node: ts.Node, src: ts.SourceFile): string | undefined {
  if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node))
    return node.name?.getText(src);
  if (ts.isGetAccessor(node) || ts.isSetAccessor(node)) return node.name.getText(src);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node)) {
    return node.name.getText(src);
  }
  if (ts.isClassDeclaration(node)) return node.name?.getText(src);
  return undefined;
}

function mutateNode(node: ts.Node, src: ts.SourceFile, add: Add, text: boolean): void {
  if (ts.isBinaryExpression(node)) binary(node, src, add);
  else if (ts.isPrefixUnaryExpression(node)) prefix(node, src, add);
  else if (ts.isPostfixUnaryExpression(node)) {
    const op = node.operator === ts.SyntaxKind.PlusPlusToken ? '--' : '++';
    add(node, node.operand.end, node.end, op, 'arithmetic');
  } else if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) {
    const flipped = node.kind === ts.SyntaxKind.TrueKeyword ? 'false' : 'true';
    add(node, node.getStart(src), node.end, flipped, 'boolean');
  } else if (ts.isNumericLiteral(node) || ts.isBigIntLiteral(node)) constant(node, src, add);
  else if (ts.isIfStatement(node)) {
    add(node, node.expression.getStart(src), node.expression.end, 'false', 'condition');
  } else if (ts.isExpressionStatement(node) && removable(node.expression)) {
    add(node, node.getStart(src), node.end, ';', 'statement');
  } else if (text && isTextLiteral(node)) literal(node, src, add);
}

function binary(node: ts.BinaryExpression, src: ts.SourceFile, add: Add): void {
  const rule = BINARY[node.operatorToken.kind];
  if (rule === undefined) return;
  const [op, to] = rule;
  // `a + b` on text is concatenation: its '-' is NaN, caught by any test of the text.
  if (to === '-' && (stringy(node.left) || stringy(node.right))) return;
  add(node, node.operatorToken.getStart(src), node.operatorToken.end, to, op);
}

function stringy(node: ts.Expression): boolean {
  return (
    ts.isStringLiteral(node) ||
    ts.isTemplateExpression(node) ||
    ts.isNoSubstitutionTemplateLiteral(node) ||
    (ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.PlusToken &&
      (stringy(node.left) || stringy(node.right)))
  );
}

function prefix(node: ts.PrefixUnaryExpression, src: ts.SourceFile, add: Add): void {
  const start = node.getStart(src);
  if (node.operator === ts.SyntaxKind.ExclamationToken) add(node, start, start + 1, '', 'negation');
  else if (node.operator === ts.SyntaxKind.PlusPlusToken)
    add(node, start, start + 2, '--', 'arithmetic');
  else if (node.operator === ts.SyntaxKind.MinusMinusToken)
    add(node, start, start + 2, '++', 'arithmetic');
  else if (node.operator === ts.SyntaxKind.MinusToken && !ts.isLiteralExpression(node.operand)) {
    add(node, start, start + 1, '', 'negation');
  }
}

/** Small integers (boundaries, offsets, counts) and hex masks: 0→1, 1→0, n→n+1. */
function constant(node: ts.NumericLiteral | ts.BigIntLiteral, src: ts.SourceFile, add: Add): void {
  const raw = node.getText(src);
  const big = raw.endsWith('n');
  const digits = big ? raw.slice(0, -1) : raw;
  if (!/^(0x[0-9a-f_]+|\d[\d_]*)$/i.test(digits)) return;
  const value = BigInt(digits.replaceAll('_', ''));
  const hex = digits.toLowerCase().startsWith('0x');
  if (!hex && value > 64n) return;
  if (!big && value > BigInt(Number.MAX_SAFE_INTEGER) - 1n) return;
  const next = value === 1n ? 0n : value + 1n;
  const text = hex ? `0x${next.toString(16)}` : next.toString();
  add(node, node.getStart(src), node.end, big ? `${text}n` : text, 'constant');
}

/** A statement that does something: a call, an await, an assignment, an increment, a delete. */
function removable(e: ts.Expression): boolean {
  if (ts.isCallExpression(e) || ts.isAwaitExpression(e) || ts.isDeleteExpression(e)) return true;
  if (ts.isPostfixUnaryExpression(e) || ts.isPrefixUnaryExpression(e)) return true;
  if (ts.isVoidExpression(e)) return removable(e.expression);
  return (
    ts.isBinaryExpression(e) &&
    e.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
    e.operatorToken.kind <= ts.SyntaxKind.LastAssignment
  );
}

function isTextLiteral(node: ts.Node): boolean {
  return (
    ts.isStringLiteral(node) ||
    ts.isNoSubstitutionTemplateLiteral(node) ||
    ts.isTemplateHead(node) ||
    ts.isTemplateMiddle(node) ||
    ts.isTemplateTail(node)
  );
}

function literal(node: ts.Node, src: ts.SourceFile, add: Add): void {
  const start = node.getStart(src);
  const raw = src.text.slice(start, node.end);
  const part = ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node);
  const whole = part ? templateText(node) : raw;
  const rules = LOOKS_LUA.test(whole) ? LUA_TEXT : LOOKS_SQL.test(whole) ? SQL_TEXT : [];
  for (const [pattern, to] of rules) {
    for (const m of raw.matchAll(pattern)) {
      if (m.index === undefined || m.index === 0) continue;
      add(node, start + m.index, start + m.index + m[0].length, to, 'text');
    }
  }
}

/** The text of the whole template a template part belongs to (to tell SQL from prose). */
function templateText(node: ts.Node): string {
  let top: ts.Node = node;
  while (top.parent !== undefined && !ts.isTemplateExpression(top) && !ts.isSourceFile(top)) {
    top = top.parent;
  }
  return top.getText();
}
