/** The studio's default port (spec). Kept apart so the CLI can import it without loading the server. */
export const DEFAULT_PORT = 3333;
