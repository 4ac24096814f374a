/**
 * `deno task keys`: create, list and revoke API keys in the service's
 * database (the same data directory and config the server uses).
 *
 * @module
 */
import { parseFlags, resolveConfig, runMain } from "./cli.ts";
import { hashToken, type Scope } from "../access/keys.ts";
import { openKeys } from "./server.ts";

const HELP = `cordon keys: manage API keys

  deno task keys create --name <name> --scopes execute[,approve,admin] [--namespace <ns>]
  deno task keys list
  deno task keys revoke <id>
  deno task keys hash <token>     (the sha256 a config file's "keys" entry takes)

Uses the data directory and config the server uses (--data-dir, --config, CORDON_DATA_DIR).
The token is printed once; only its hash is stored.`;

if (import.meta.main) {
  await runMain(async () => {
    const { values, positionals } = parseFlags(Deno.args, {
      name: { type: "string" },
      scopes: { type: "string" },
      namespace: { type: "string" },
      json: { type: "boolean" },
    });
    const [command, arg] = positionals;
    if (values.help || !command) {
      console.log(HELP);
      return;
    }
    if (command === "hash") {
      console.log(await hashToken(arg ?? ""));
      return;
    }
    const store = await openKeys(await resolveConfig(values));
    try {
      if (command === "create") {
        const { token, key } = await store.keys.create({
          name: values.name ?? "",
          scopes: (values.scopes ?? "execute").split(",").map((s) => s.trim()) as Scope[],
          namespace: values.namespace,
        });
        if (values.json) console.log(JSON.stringify({ token, key }));
        else {
          console.log(`created ${key.id} (${key.scopes.join(", ")}; namespace ${key.namespace})`);
          console.log(`token (shown once): ${token}`);
        }
      } else if (command === "list") {
        const keys = await store.keys.list();
        if (values.json) console.log(JSON.stringify(keys));
        else {
          for (const k of keys) {
            const state = k.revokedAt ? "revoked" : "active";
            console.log(
              `${k.id}\t${k.name}\t${k.scopes.join(",")}\t${k.namespace}\t${state}\t${k.source}`,
            );
          }
        }
      } else if (command === "revoke") {
        if (!(await store.keys.revoke(arg ?? ""))) {
          console.error(`cordon: there is no active key "${arg ?? ""}"`);
          Deno.exitCode = 1;
        } else console.log(`revoked ${arg}`);
      } else {
        console.error(`cordon: unknown command "${command}"\n\n${HELP}`);
        Deno.exitCode = 1;
      }
    } finally {
      store.close();
    }
  });
}
