// Types of assets.mjs for the TypeScript that imports it (vitest.config.ts).
export declare const ASSETS_DIR: string;
export declare const WORKER_ASSETS: string;
export declare const TIKTOKEN_ENCODINGS: string[];
export declare function buildAssets(): Promise<string>;
