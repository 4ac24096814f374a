/**
 * What a sandbox child may do, decided per execution. Two children with the
 * same {@link policyKey} are interchangeable, which is what lets the pool
 * hand out pre-spawned children.
 *
 * @module
 */
import { CordonError } from "../errors.ts";
import type { Language } from "./languages.ts";

/** A child's permissions and heap. */
export interface SandboxPolicy {
  /** V8 old-space cap in MiB (`--max-old-space-size`). */
  heapMiB: number;
  /** Hosts the child may reach (`host` or `host:port`); empty means no network. */
  netAllow: readonly string[];
  /** The one directory the child may read and write (a workspace's real path). */
  workspaceDir?: string;
  /** The language its guest runs, when not TypeScript (its children load an interpreter). */
  language?: Language;
}

/**
 * Addresses a child never reaches, even when a host is allowed. Deno checks
 * these against the addresses a name resolves to, so a public name pointing
 * at loopback or a metadata service is refused too.
 *
 * Deno 2.9.6 takes IPv4 ranges here but refuses IPv6 ranges (`fc00::/7`
 * fails to parse, measured), so IPv6 is denied by exact address (loopback,
 * unspecified) and IPv6 literals may not be allowed at all (see
 * {@link normalizeNetAllow}). The host's own interface addresses are added
 * by {@link hostDeniedAddresses}.
 */
export const DENIED_NET_RANGES: readonly string[] = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "[::1]",
  "[::]",
  "localhost",
];

/**
 * This host's own interface addresses as `--deny-net` entries: a server the
 * host runs on `0.0.0.0` must not be reachable through a public address.
 */
export function hostDeniedAddresses(): string[] {
  const out = new Set<string>();
  let interfaces: Deno.NetworkInterfaceInfo[] = [];
  try {
    interfaces = Deno.networkInterfaces();
  } catch {
    return [];
  }
  for (const i of interfaces) {
    // Link-local IPv6 carries a zone (`%eth0`) that Deno cannot parse; fe80:: is not routable.
    if (i.address.includes("%") || i.address.startsWith("fe80:")) continue;
    out.add(i.family === "IPv6" ? `[${i.address}]` : i.address);
  }
  return [...out].sort();
}

/** A host name, IPv4 or bracketed IPv6, with an optional port. No wildcards, no paths. */
const HOST_PATTERN =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** How many hosts one policy may allow (a command-line length guard). */
export const MAX_NET_ALLOW_HOSTS = 64;

/**
 * Checks and normalizes a host allow-list.
 * Throws `invalid_request` for anything that is not a plain host.
 */
export function normalizeNetAllow(hosts: readonly string[] | undefined): string[] {
  if (!hosts || hosts.length === 0) return [];
  if (hosts.length > MAX_NET_ALLOW_HOSTS) {
    throw new CordonError("invalid_request", `Cannot allow more than ${MAX_NET_ALLOW_HOSTS} hosts`);
  }
  const out = new Set<string>();
  for (const raw of hosts) {
    const host = String(raw).trim().toLowerCase();
    if (host.startsWith("[")) {
      throw new CordonError(
        "invalid_request",
        `Cannot allow "${raw}": IPv6 literals cannot be allowed, because private IPv6 ranges (and IPv4-mapped addresses such as [::ffff:127.0.0.1]) cannot be denied to the sandbox; allow a host name`,
      );
    }
    if (!HOST_PATTERN.test(host)) {
      throw new CordonError(
        "invalid_request",
        `Cannot allow host "${raw}": give a host name or address with an optional port, no scheme, path or wildcard`,
      );
    }
    out.add(host);
  }
  return [...out].sort();
}

/** A stable key: equal keys mean interchangeable children. */
export function policyKey(policy: SandboxPolicy): string {
  return `${policy.heapMiB}|${policy.netAllow.join(",")}|${policy.workspaceDir ?? ""}|${
    policy.language ?? ""
  }`;
}
