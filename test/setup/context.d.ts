declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of a maintenance database on the server the suite runs against. */
    adminUrl: string;
    /** Name of the migrated template database that each test file copies. */
    templateDatabase: string;
    /** `embedded` or `postgres`. */
    databaseMode: string;
    /** TEST_REDIS_URL, when set. */
    redisUrl: string;
  }
}

export {};
