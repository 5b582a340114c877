/** Reported in `meta.version` of every platform response. */
export const SERVICE_VERSION = '0.1.0';
/** Account Jobs interface version (spec §9). */
export const JOBS_API_VERSION = '1.0.0';
