// Types for architecture.js, which stays JavaScript so eslint.config.js can load it without a TypeScript loader.
import type { ESLint } from 'eslint';

export declare const REPO_ROOT: string;
export declare const DOMAIN_FOLDERS: readonly string[];
export declare const ADAPTER_FOLDERS: readonly string[];
export declare function repoPath(file: string): string | null;
export declare function isDomainFile(rel: string): boolean;
export declare function isOutsideStore(rel: string): boolean;
export declare function forbiddenImport(rel: string, specifier: string): string | null;
export declare function sqlOffset(text: string): number;
export declare const plugin: ESLint.Plugin;
