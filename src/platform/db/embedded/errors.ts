/**
 * The one error type of the embedded cluster (its own file so that every part of embedded/ and the
 * callers of `openEmbeddedCluster` — `serve`, the CLI — can name it without importing the rest):
 * its message is the one line an operator reads, with the log tail when PostgreSQL said why.
 */
export class EmbeddedClusterError extends Error {}
