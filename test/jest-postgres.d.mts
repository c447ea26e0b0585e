// Declarations of ./jest-postgres.mjs for the TypeScript tests and fixtures that import it.
export declare function findInitdb(): string | undefined;
export default function startTestPostgres(globalConfig?: unknown): Promise<void>;
export declare function stopTestPostgres(): Promise<void>;
