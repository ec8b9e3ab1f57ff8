// Types of ./ledger-copies.mjs (plain JavaScript, run by the benches as it is).
export declare function ledgerCopies(dir: string, n: number, prefix: string): string[];
