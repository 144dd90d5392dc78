/**
 * The public-ID keys of a CLI command: `--key-file F`, else `$IDFORGE_PUBLIC_KEYS`. A key file
 * readable by others is read, with a warning naming the fix (`chmod 600`).
 */
import { readFileSync, statSync } from 'node:fs';
import { type PublicKey, parsePublicKeys } from '../public/index.js';
import { type CliIo, UsageError } from './io.js';

/**
 * The keys from `file` (when given) or the environment. `command` prefixes the warning
 * (`idforge public`); `missing` is the usage error's text when neither is there. Throws
 * `UsageError` for a file that cannot be read, and what `parsePublicKeys` throws.
 */
export function loadPublicKeys(
  file: string | undefined,
  io: CliIo,
  command: string,
  missing: string,
): PublicKey[] {
  if (file === undefined) {
    const env = io.env?.IDFORGE_PUBLIC_KEYS;
    if (env === undefined || env.trim() === '') throw new UsageError(missing);
    return parsePublicKeys(env);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
    const mode = statSync(file).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      io.stderr.write(
        `${command}: warning: ${file} is readable by others (mode 0${mode.toString(8)}); chmod 600 ${file}\n`,
      );
    }
  } catch (e) {
    throw new UsageError(
      `--key-file: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? e})`,
    );
  }
  return parsePublicKeys(text);
}
