import type { EN } from './en';

/** Every language has every key of the English table: the type checker refuses a table that misses one. */
export type DashboardStrings = { readonly [K in keyof typeof EN]: string };
