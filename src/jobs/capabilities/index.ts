import type { Capability } from '../capability.js';

/**
 * The built-in live catalog. A capability is listed here once the domain module it calls
 * has landed (never as a stub).
 */
export const BUILTIN_CAPABILITIES: readonly Capability[] = [];
