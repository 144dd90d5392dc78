// Reading the examples out of Markdown for test/docs/readme.test.ts: fenced blocks, the
// commands of a console block with their expected output, shell-like argument splitting,
// the shape a `gen` command's output must have, and the rewrite that turns a ts block into
// a module that checks its own `// =>` and `// throws` comments.
/** One fenced code block: its language and its lines, `line` is the first line's number. */
export interface Fence {
  readonly lang: string;
  readonly line: number;
  readonly lines: readonly string[];
}

/** The ``` blocks of a Markdown text (1-based line numbers of their first content line). */
export function fences(markdown: string): Fence[] {
  const out: Fence[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (open === null) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    if (end === lines.length) throw new Error(`unclosed fence opened at line ${i + 1}`);
    out.push({ lang: open[1]!, line: start + 1, lines: lines.slice(start, end) });
    i = end;
  }
  return out;
}

/** A `$ idforge ...` line of a console block and the lines after it. */
export interface Transcript {
  readonly line: number;
  readonly command: string;
  readonly argv: string[];
  readonly expected: string[];
}

/**
 * The commands of a console block. Every `$ ` line must be an `idforge` command (use a `sh`
 * block for anything else) and nothing may precede the first one. Trailing blank lines of an
 * output are dropped.
 */
export function transcripts(fence: Fence): Transcript[] {
  const out: { line: number; command: string; argv: string[]; expected: string[] }[] = [];
  fence.lines.forEach((text, i) => {
    const line = fence.line + i;
    if (text.startsWith('$ ')) {
      const argv = shellSplit(text.slice(2));
      if (argv[0] !== 'idforge') {
        throw new Error(`line ${line}: only "$ idforge ..." commands are checked: ${text}`);
      }
      out.push({ line, command: text.slice(2), argv: argv.slice(1), expected: [] });
    } else if (out.length === 0) {
      if (text.trim() !== '') throw new Error(`line ${line}: output before any "$ " command`);
    } else {
      out[out.length - 1]!.expected.push(text);
    }
  });
  for (const t of out) while (t.expected.at(-1)?.trim() === '') t.expected.pop();
  return out;
}

/**
 * Splits a command line as a POSIX shell would for plain words: whitespace separates,
 * '...' is literal, "..." is literal except \" and \\, a backslash outside quotes escapes the
 * next character. Pipes, redirections, variables and globs are not supported.
 */
export function shellSplit(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (c === "'" || c === '"') {
      const end = c === "'" ? line.indexOf("'", i + 1) : closingDouble(line, i + 1);
      if (end < 0) throw new Error(`unterminated ${c} in: ${line}`);
      const body = line.slice(i + 1, end);
      word += c === "'" ? body : body.replace(/\\(["\\])/g, '$1');
      i = end;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
    } else if ('|<>;&$`*?'.includes(c)) {
      throw new Error(`unsupported shell syntax "${c}" in: ${line}`);
    } else {
      word += c;
    }
  }
  if (inWord) words.push(word);
  return words;
}

function closingDouble(line: string, from: number): number {
  for (let i = from; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === '"') return i;
  }
  return -1;
}

const HEX = '[0-9a-f]';
/** Text form of each `gen` scheme, and its size in bytes (for --format hex/base64). */
export const GEN_SHAPES: Readonly<Record<string, { text: RegExp; bytes: number }>> = {
  uuidv4: {
    text: new RegExp(`^${HEX}{8}-${HEX}{4}-4${HEX}{3}-[89ab]${HEX}{3}-${HEX}{12}$`),
    bytes: 16,
  },
  uuidv7: {
    text: new RegExp(`^${HEX}{8}-${HEX}{4}-7${HEX}{3}-[89ab]${HEX}{3}-${HEX}{12}$`),
    bytes: 16,
  },
  ulid: { text: /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/, bytes: 16 },
  ksuid: { text: /^[0-9A-Za-z]{27}$/, bytes: 20 },
  snowflake: { text: /^(0|[1-9][0-9]{0,19})$/, bytes: 8 },
  // An optional prefix and "_", then the UUIDv7 in 26 lower-case base32 digits (hex/base64:
  // the UUID's 16 bytes).
  typeid: { text: /^([a-z]([a-z_]{0,61}[a-z])?_)?[0-7][0-9a-hjkmnp-tv-z]{25}$/, bytes: 16 },
};

/** The option `name` of argv (`--name v` or `--name=v`), or undefined. */
export function optionOf(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === name) return argv[i + 1];
    if (argv[i]!.startsWith(`${name}=`)) return argv[i]!.slice(name.length + 1);
  }
  return undefined;
}

/** Whether `b` is strictly greater than `a`: decimal Snowflakes by value, the rest as text. */
type Increases = (a: string, b: string) => boolean;

/**
 * A predicate for one output line of `idforge gen <scheme>` in `format`, and, for the text
 * format of the schemes that promise it (uuidv7, snowflake, typeid, ulid --monotonic), the order the
 * lines must strictly increase in.
 */
export function genShape(argv: readonly string[]): {
  line: (l: string) => boolean;
  ordered: Increases | undefined;
} {
  const scheme = argv[1] ?? '';
  const shape = GEN_SHAPES[scheme];
  if (shape === undefined) throw new Error(`gen: no shape for scheme "${scheme}"`);
  const format = optionOf(argv, '--format') ?? 'text';
  const promised =
    scheme === 'uuidv7' ||
    scheme === 'snowflake' ||
    scheme === 'typeid' ||
    (scheme === 'ulid' && argv.includes('--monotonic'));
  const ordered: Increases | undefined =
    format !== 'text' || !promised
      ? undefined
      : scheme === 'snowflake'
        ? (a, b) => BigInt(b) > BigInt(a)
        : (a, b) => b > a;
  switch (format) {
    case 'text':
      return { line: (l) => shape.text.test(l), ordered };
    case 'hex':
      return { line: (l) => new RegExp(`^${HEX}{${2 * shape.bytes}}$`).test(l), ordered };
    case 'base64':
      return {
        line: (l) =>
          /^[A-Za-z0-9+/]+=*$/.test(l) && Buffer.from(l, 'base64').length === shape.bytes,
        ordered,
      };
    case 'json':
      return {
        line: (l) => {
          const ids: unknown = JSON.parse(l);
          return (
            Array.isArray(ids) && ids.every((id) => typeof id === 'string' && shape.text.test(id))
          );
        },
        ordered,
      };
    default:
      throw new Error(`gen: no shape for --format ${format}`);
  }
}

/** The number of IDs a `gen` output holds (a JSON array counts its elements). */
export function genCount(argv: readonly string[], lines: readonly string[]): number {
  if (optionOf(argv, '--format') !== 'json') return lines.length;
  return lines.reduce((n, l) => n + (JSON.parse(l) as unknown[]).length, 0);
}

const ASSIGN =
  /^(\s*)((?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*.+?);?\s*\/\/ (=>|throws) (.+)$/;
const EXPR = /^(\s*)(.+?);?\s*\/\/ (=>|throws) (.+)$/;

/**
 * A ts block as a module: `from 'idforge'` (or any entry of the workspace packages, 'idforge/coord',
 * '@idforge/stores', ...) imports its source file as `sources` maps it, and a line ending in
 * `// => VALUE` asserts that its expression (or the variable it declares) deep-equals VALUE
 * (any JavaScript expression: JSON, `123n`, `undefined`), while `// throws NAME` asserts that
 * the expression throws an error whose name is NAME (the assertions come from `assertUrl`,
 * test/helpers/readme-assert.ts). `where` labels them with the file name.
 */
export function exampleModule(
  fence: Fence,
  sources: ReadonlyMap<string, string>,
  assertUrl: string,
  where: string,
): string {
  const body = fence.lines.map((text, i) => {
    const at = JSON.stringify(`${where}:${fence.line + i}`);
    const code = text.replace(/from\s+(['"])((?:@idforge\/)?[\w/-]+)\1/g, (m, _q, spec: string) => {
      const url = sources.get(spec);
      return url === undefined ? m : `from ${JSON.stringify(url)}`;
    });
    const decl = ASSIGN.exec(code);
    if (decl !== null) {
      const [, indent, statement, name, kind, expected] = decl;
      if (kind === 'throws')
        throw new Error(`${at}: "// throws" needs an expression, not a declaration`);
      return `${indent}${statement}; __expect(${name}, (${expected}), ${at});`;
    }
    const expr = EXPR.exec(code);
    if (expr === null) return code;
    const [, indent, expression, kind, expected] = expr;
    return kind === '=>'
      ? `${indent}__expect((${expression}), (${expected}), ${at});`
      : `${indent}__throws(() => (${expression}), ${JSON.stringify(expected!.trim())}, ${at});`;
  });
  const helpers = JSON.stringify(assertUrl);
  return [
    ...body,
    `import { expectValue as __expect, expectThrows as __throws } from ${helpers};`,
    '',
  ].join('\n');
}
