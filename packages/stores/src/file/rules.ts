/**
 * What the file adapter knows of its backend without the registry (backend.ts,
 * `BackendRules`): its scheme (`file:PATH`, `file:///PATH`, a `\` ending the host of a URL
 * written on Windows). It has no driver, so no driver error to classify: what the file system
 * refuses is typed by store-path.ts before a failure reaches store-error.ts.
 */
import type { BackendRules, Classify } from '../backend.js';
import type { CallSite } from '../store-error.js';

export const fileRules: BackendRules = {
  name: 'file',
  url: { path: true, backslashEndsHost: true },
};

export const classifyFile: Classify = () => null;

/** A call to the file store at `address` (redacted), for its errors. */
export function fileSite(address: string): CallSite {
  return { backend: fileRules.name, address, classify: classifyFile };
}
