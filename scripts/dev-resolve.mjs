// The resolve hook of dev-loader.mjs: a workspace package's entry resolves to its source file
// (workspace-sources.mjs), for importers inside this repository and outside node_modules.
import { workspaceSources } from './workspace-sources.mjs';

const root = new URL('../', import.meta.url).href;
const sources = workspaceSources();

export async function resolve(specifier, context, next) {
  const parent = context.parentURL;
  const source = sources.get(specifier);
  if (source && parent?.startsWith(root) && !parent.includes('/node_modules/')) {
    // Resolved by the next hook (tsx's), which knows how to load a .ts file.
    return next(source, context);
  }
  return next(specifier, context);
}
