/** Every package entry ('idforge', 'idforge/coord', '@idforge/stores', ...) -> source URL. */
export function workspaceSources(): Map<string, string>;
