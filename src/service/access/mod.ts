/**
 * Who may do what: API keys (random tokens shown once, stored hashed), their
 * scopes and namespaces, and what a key's caller may see.
 *
 * @module
 */
export { type ApiKeyInfo, ApiKeys, hashToken, type Principal, type Scope, SCOPES } from "./keys.ts";
export { isAdmin, namespaceFor, visibleExecution } from "./scope.ts";
