/**
 * The store used when none is named, written once: the embedded SQLite file `idforge.db` in
 * the working directory (leases, segments and counter marks in one file). The library's CLI
 * (`DEFAULT_STORE`), the bench's advice and @idforge/stores (its `DEFAULT_STORE_URL`), and so
 * the service, all read it here, through idforge/internal and idforge/sequences (which
 * exports it). A constant only: the core opens no store.
 */
export const DEFAULT_STORE_URL = 'sqlite:idforge.db';
