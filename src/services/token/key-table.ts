/** What both key tables (RSA signing keys, refresh token HMAC keys) offer their store. */
export type KeyTableRepository<Row> = {
  all(): Promise<Row[]>;
  retireAllExcept(keep: string, at: Date, until: Date): Promise<string[]>;
};

/** After a token names a kid we do not know, wait this long before asking the database again. */
const UNKNOWN_KID_COOLDOWN_MS = 5_000;

export type KeyTableOptions<Row, Loaded, Signer> = {
  repo: KeyTableRepository<Row>;
  now: () => number;
  /** How long an instance trusts its copy of the key table; another instance may rotate meanwhile. */
  cacheTtlMs: number;
  /** What this store keeps of the rows: imported keys, the JWKS. */
  build: (rows: Row[], previous: Loaded | undefined) => Loaded | Promise<Loaded>;
  signerOf: (loaded: Loaded) => Signer | null;
  /** Stores a new active key; answers its kid. */
  generate: () => Promise<string>;
};

/**
 * A key table as each instance sees it, shared by the signing keys and the refresh token keys: read
 * through a cache of `cacheTtlMs` (one read at a time), the newest active key signs and is generated
 * on first use, and rotation retires the others until `until` seconds (the longest lifetime of a
 * token they may have signed) plus the cache have passed.
 */
export function createKeyTable<Row, Loaded, Signer>(opts: KeyTableOptions<Row, Loaded, Signer>) {
  let loaded: { at: number; value: Loaded } | undefined;
  let loading: Promise<Loaded> | undefined;
  let lastUnknownKidReload = -Infinity;

  async function load(force = false): Promise<Loaded> {
    if (!force && loaded && opts.now() - loaded.at < opts.cacheTtlMs) return loaded.value;
    loading ??= opts.repo
      .all()
      .then((rows) => opts.build(rows, loaded?.value))
      .then((value) => {
        loaded = { at: opts.now(), value };
        return value;
      })
      .finally(() => (loading = undefined));
    return loading;
  }

  return {
    load,

    /** The current signer, generating the first key when the table has none. */
    async signer(): Promise<Signer> {
      const current = opts.signerOf(await load());
      if (current) return current;
      await opts.generate();
      const reloaded = opts.signerOf(await load(true));
      if (!reloaded) throw new Error("no key after generating one");
      return reloaded;
    },

    /**
     * A fresh copy of the table for a token naming a kid this copy lacks (another instance may have
     * rotated), at most once per cooldown, so forged kids cannot make every request query the
     * database; null inside the cooldown.
     */
    async reloadForUnknownKid(): Promise<Loaded | null> {
      if (opts.now() - lastUnknownKidReload < UNKNOWN_KID_COOLDOWN_MS) return null;
      lastUnknownKidReload = opts.now();
      return load(true);
    },

    /** Makes a new key the signer; the ones it replaces keep verifying for `keepSeconds` plus the cache. */
    async rotate(keepSeconds: number): Promise<{ kid: string; retired: string[] }> {
      const kid = await opts.generate();
      const now = opts.now();
      const retired = await opts.repo.retireAllExcept(kid, new Date(now), new Date(now + keepSeconds * 1000 + opts.cacheTtlMs));
      await load(true);
      return { kid, retired };
    },

    /** Runs a delete of expired keys and re-reads the table when it removed any. */
    async afterDelete(removed: number): Promise<number> {
      if (removed) await load(true);
      return removed;
    },
  };
}
