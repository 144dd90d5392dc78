// Helpers of the package test (pack.test.ts): commands run to completion, servers started and
// always stopped, the local better-sqlite3 prebuild, and the freshness of the built dist/.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What a finished command left: its exit code (null: killed by a signal) and output. */
export interface Ran {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs a command to its end and resolves what it left; never rejects on a failing exit. */
export function exec(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Ran> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        maxBuffer: 64 << 20,
        timeout: options.timeoutMs ?? 300_000,
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        const ms = performance.now() - start;
        if (error !== null && typeof error.code !== 'number' && error.signal == null) {
          reject(error); // could not start at all (ENOENT, ...)
          return;
        }
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, signal: error?.signal ?? null, stdout, stderr, ms });
      },
    );
  });
}

/** Runs a command and rejects, with its output, unless it exits 0. */
export async function mustRun(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Ran> {
  const ran = await exec(command, args, options);
  if (ran.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${options.cwd}) exited ${ran.code ?? ran.signal}\n` +
        `stdout:\n${ran.stdout}\nstderr:\n${ran.stderr}`,
    );
  }
  return ran;
}

/** A service started by {@link startServer}. */
export interface Server {
  /** The base URL it logged ('listening on URL'). */
  readonly url: string;
  /** The pid of the process that serves (from its log), which may be a child of `child`. */
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything it printed so far, stdout then stderr. */
  output(): string;
  /**
   * SIGTERM to the serving process, or to `child` (what a supervisor signals: the process it
   * started, e.g. npx); resolves the exit code of `child` (bounded wait).
   */
  stop(to?: 'server' | 'child'): Promise<number | null>;
  /** Kills `child`'s whole process group if anything of it still runs. Never throws. */
  kill(): void;
}

/**
 * Spawns a server in a process group of its own and resolves once it logged its
 * 'listening on URL' line (pino JSON on stdout, the line giving the serving process's pid);
 * rejects if it exits first or within `timeoutMs`, having killed it.
 */
export function startServer(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Server> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  const output = () => `${stdout}${stderr === '' ? '' : `\n[stderr]\n${stderr}`}`;
  const kill = () => {
    // The whole group, even after `child` ended: what it started (npx's shell and node) may not.
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise<Server>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      kill();
      reject(new Error(`${command} ${args.join(' ')}: ${why}\n${output()}`));
    };
    const timer = setTimeout(
      () => fail(`no 'listening on' line within ${options.timeoutMs ?? 60_000} ms`),
      options.timeoutMs ?? 60_000,
    );
    let listening = false;
    child.once('error', (e) => fail(`could not start: ${e.message}`));
    child.once('exit', (code, signal) => {
      if (!listening) fail(`exited (${code ?? signal}) before listening`);
    });
    let scanned = 0;
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const end = stdout.lastIndexOf('\n');
      if (end < scanned) return;
      const lines = stdout.slice(scanned, end).split('\n');
      scanned = end + 1;
      for (const line of lines) {
        let entry: { msg?: unknown; pid?: unknown };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue;
        }
        const m = typeof entry.msg === 'string' ? /^listening on (http:\S+)/.exec(entry.msg) : null;
        if (m === null || typeof entry.pid !== 'number') continue;
        clearTimeout(timer);
        listening = true;
        const pid = entry.pid;
        resolve({
          url: m[1] as string,
          pid,
          child,
          output,
          kill,
          stop: async (to = 'server') => {
            if (exitCode !== undefined) return exitCode;
            process.kill(to === 'server' ? pid : child.pid!, 'SIGTERM');
            let timeout: NodeJS.Timeout | undefined;
            const code = await Promise.race([
              exited,
              new Promise<'stuck'>((r) => {
                timeout = setTimeout(() => r('stuck'), 15_000);
              }),
            ]);
            clearTimeout(timeout);
            if (code === 'stuck') {
              kill();
              throw new Error(`still running 15 s after SIGTERM\n${output()}`);
            }
            return code;
          },
        });
        return;
      }
    });
  });
}

/**
 * Whether process `pid` still runs. A zombie has ended: an orphan's exit is reaped by whoever
 * adopted it (PID 1 or a subreaper), which may be slow to do so or never do it in a container.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/PID/stat: "PID (comm) STATE ..."; comm may hold spaces or parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return !existsSync('/proc/self'); // no procfs (not Linux): kill(0) said it runs
  }
}

/** Every file under `dir`, relative to it (symbolic links are not followed). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

/**
 * Whether `packages/NAME/dist` is missing or older than a file of `packages/NAME/src` (the
 * build empties dist first, so its oldest file tells when it was built).
 */
export function distIsStale(pkg: string): boolean {
  const dist = join(pkg, 'dist');
  if (!existsSync(dist)) return true;
  const mtimes = (dir: string) => filesUnder(dir).map((f) => statSync(join(dir, f)).mtimeMs);
  const built = Math.min(...mtimes(dist));
  return !Number.isFinite(built) || Math.max(...mtimes(join(pkg, 'src'))) > built;
}

/**
 * Packs this checkout's compiled better-sqlite3 binary as prebuild-install names a download
 * (`better-sqlite3-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`, holding
 * build/Release/better_sqlite3.node) into `folder`; resolves the environment that points the
 * install at it (npm passes npm_config_* variables on to the install script).
 */
export async function localPrebuild(root: string, folder: string): Promise<NodeJS.ProcessEnv> {
  const pkg = join(root, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {
    version: string;
  };
  mkdirSync(folder, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await mustRun(
    'tar',
    ['-czf', join(folder, name), '-C', pkg, 'build/Release/better_sqlite3.node'],
    {
      cwd: root,
    },
  );
  return { ...process.env, npm_config_better_sqlite3_local_prebuilds: folder };
}

/** The packages `npm ls --all --parseable` lists in `app` (name -> installed folders). */
export async function installedPackages(app: string): Promise<Map<string, string[]>> {
  const { stdout } = await mustRun('npm', ['ls', '--all', '--parseable'], { cwd: app });
  const found = new Map<string, string[]>();
  for (const path of new Set(stdout.trim().split('\n'))) {
    const at = path.lastIndexOf('/node_modules/');
    if (at < 0) continue; // the app itself
    const name = path.slice(at + '/node_modules/'.length);
    found.set(name, [...(found.get(name) ?? []), path]);
  }
  return found;
}

/** The entry points a package.json `exports` names, as import specifiers (no ./package.json). */
export function entryPoints(packageDir: string): { specifier: string; files: string[] }[] {
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | Record<string, string>>;
  };
  return Object.entries(pkg.exports)
    .filter(([subpath]) => subpath !== './package.json')
    .map(([subpath, target]) => ({
      specifier: pkg.name + subpath.slice(1),
      files: typeof target === 'string' ? [target] : Object.values(target),
    }));
}

/**
 * The files a package.json names (`main`, `types`, `bin`, every `exports` target) that the
 * packed file list lacks: a dist/ being rebuilt (emptied first) while it was packed.
 */
export function missingFromPack(packageDir: string, packedPaths: readonly string[]): string[] {
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    main?: string;
    types?: string;
    bin?: Record<string, string>;
  };
  const named = [
    pkg.main,
    pkg.types,
    ...Object.values(pkg.bin ?? {}),
    ...entryPoints(packageDir).flatMap((e) => e.files),
  ];
  const have = new Set(packedPaths);
  return [...new Set(named)]
    .filter((f): f is string => f !== undefined)
    .map((f) => f.replace(/^\.\//, ''))
    .filter((f) => !have.has(f));
}
