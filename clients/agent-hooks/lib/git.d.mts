/** Types of git.mjs (plain JS so hooks run without a TypeScript loader). */
/** The checked-out git branch of `cwd` (reads .git/HEAD of it or a parent), or undefined. */
export function gitBranch(cwd: string): string | undefined;
