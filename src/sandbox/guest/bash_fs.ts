/**
 * The filesystem a bash block sees, assembled from just-bash's own parts: the
 * workspace directory as `/` (`ReadWriteFs`: paths are resolved inside it,
 * symlinks are neither made nor followed), or an in-memory filesystem when
 * the run has no workspace; `/tmp` in memory; and `/dev` and `/proc` as small
 * in-memory folders that refuse every change (writes to `/dev/null` vanish),
 * so `> /dev/null` works and nothing under them reaches the disk or the
 * host's devices. These three shadow the workspace's folders of the same
 * names and are not listed in `/`. Over it all, a path naming anything above
 * `/` is refused, and a file is created only in a folder that exists.
 *
 * @module
 */

/** The part of just-bash's module the guest uses. */
export interface JustBash {
  /** The interpreter. */
  Bash: new (options: Record<string, unknown>) => {
    exec(
      script: string,
      options: { stdin?: string; rawScript?: boolean },
    ): Promise<{ stdout: string; stderr: string; exitCode: number }>;
  };
  /** A real directory as the filesystem's root. */
  ReadWriteFs: new (options: Record<string, unknown>) => object;
  /** A filesystem held in memory. */
  InMemoryFs: new (files?: Record<string, unknown>, options?: Record<string, unknown>) => object;
  /** One filesystem with others mounted in it. */
  MountableFs: new (
    options: { base: object; mounts: { mountPoint: string; filesystem: object }[] },
  ) => object;
  /** Every built-in command's name. */
  getCommandNames(): string[];
  /** A command written in TypeScript, run by the interpreter like its own. */
  defineCommand(
    name: string,
    execute: (args: string[], ctx: CommandContext) => Promise<{
      stdout: string;
      stderr: string;
      exitCode: number;
    }>,
  ): object;
}

/** What a command defined with `defineCommand` is given. */
export interface CommandContext {
  /** The block's filesystem. */
  fs: {
    resolvePath(base: string, path: string): string;
    stat(path: string): Promise<{ isDirectory: boolean; mode: number }>;
  };
  /** The shell's working directory. */
  cwd: string;
  /** The shell's variables. */
  env: Map<string, string>;
  /** What the command reads on standard input (a pipe into it). */
  stdin?: string;
}

/** How large a file a script may read whole, and how much it may keep in memory. */
export interface BashFsLimits {
  /** The largest workspace file read whole. */
  maxFileReadBytes: number;
  /** The most bytes the in-memory parts (`/tmp`, or `/` without a workspace) hold. */
  maxMemoryBytes: number;
}

const CHANGES = new Set([
  "writeFile",
  "appendFile",
  "mkdir",
  "rm",
  "cp",
  "mv",
  "chmod",
  "symlink",
  "link",
  "utimes",
]);

function refused(op: string, path: string): Error {
  return Object.assign(new Error(`EACCES: permission denied, ${op} '${path}'`), {
    code: "EACCES",
  });
}

/**
 * `inner` mounted at `mount`, read-only: every change is refused with `EACCES`, except that
 * writes to the `sinks` (paths inside the mount, `/null`) succeed and keep nothing.
 */
export function sealedFs(inner: object, mount: string, sinks: ReadonlySet<string>): object {
  return new Proxy(inner, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof key !== "string" || typeof value !== "function") return value;
      if (!CHANGES.has(key)) return value.bind(target);
      return (path: string) => {
        if ((key === "writeFile" || key === "appendFile") && sinks.has(path)) {
          return Promise.resolve();
        }
        return Promise.reject(refused(key, mount + path));
      };
    },
  });
}

/**
 * The workspace as a filesystem. `exists` and `stat` answer "no such file" from one `lstat` when
 * nothing is at the path: bash looks every command up as files (`/usr/bin/echo`, `/bin/echo`,
 * `/usr/bin`) before its built-ins, and `ReadWriteFs`'s checks through Node's fs cost ~0.4 ms
 * each (`echo` in a loop was 12 times slower, measured). A path that exists goes through
 * `ReadWriteFs`, which refuses symlinks. `exists` never asks Node's `access`: in Deno 2.9 it reads
 * the user id and, under `--deny-sys`, rejects a promise nobody awaits, which killed the child on
 * `[ -e file ]` (measured).
 */
function workspaceFs(jb: JustBash, root: string, maxFileReadBytes: number): object {
  const fs = new jb.ReadWriteFs({ root, allowSymlinks: false, maxFileReadSize: maxFileReadBytes });
  const stat = (fs as { stat(path: string): Promise<unknown> }).stat.bind(fs);
  const absent = (path: string) => {
    if (!path.startsWith("/") || path.includes("\0") || path.split("/").includes("..")) {
      return false;
    }
    try {
      Deno.lstatSync(root + path);
      return false;
    } catch (err) {
      return err instanceof Deno.errors.NotFound;
    }
  };
  return Object.assign(fs, {
    exists: (path: string) =>
      absent(path) ? Promise.resolve(false) : stat(path).then(() => true, () => false),
    stat: (path: string) =>
      absent(path)
        ? Promise.reject(fsError("ENOENT", `no such file or directory, stat '${path}'`))
        : stat(path),
  });
}

/** The filesystem of one bash block: the workspace at `root` (or memory), with its mounts. */
export function bashFs(jb: JustBash, root: string | undefined, limits: BashFsLimits): object {
  const memory = () => new jb.InMemoryFs({}, { maxTotalBytes: limits.maxMemoryBytes });
  const base = root === undefined ? memory() : workspaceFs(jb, root, limits.maxFileReadBytes);
  const sealed = (mount: string, files: Record<string, unknown>, sinks: string[] = []) => ({
    mountPoint: mount,
    filesystem: sealedFs(new jb.InMemoryFs(files), mount, new Set(sinks)),
  });
  const devices = { "/null": "", "/zero": "", "/stdin": "", "/stdout": "", "/stderr": "" };
  const mounts = [
    { mountPoint: "/tmp", filesystem: memory() },
    sealed("/dev", devices, ["/null", "/stdout", "/stderr"]),
    sealed("/proc", {}),
  ];
  return guarded(new jb.MountableFs({ base, mounts }), base as Changes, ["tmp", "dev", "proc"]);
}

interface Changes {
  stat(path: string): Promise<{ isDirectory: boolean }>;
  exists(path: string): Promise<boolean>;
  resolvePath(base: string, path: string): string;
  [op: string]: unknown;
}

/** Which argument of each change names the path it creates. */
const CREATES: Readonly<Record<string, number>> = {
  writeFile: 0,
  appendFile: 0,
  cp: 1,
  mv: 1,
  link: 1,
  symlink: 1,
};

function fsError(code: string, text: string): Error {
  return Object.assign(new Error(`${code}: ${text}`), { code });
}

/**
 * Whether `path` (from `base`) names something above `/`: it goes up from `/` and then down
 * again (`../x` from `/`, `/tmp/../../etc`). Going up alone (`..` from `/`) stays at `/`, as in
 * bash, so parent walks (`cd ..`, `rg` looking for ignore files) end there.
 */
export function climbsAboveRoot(base: string, path: string): boolean {
  let depth = 0;
  let above = false;
  for (const part of (path.startsWith("/") ? path : `${base}/${path}`).split("/")) {
    if (part === "..") {
      if (depth === 0) above = true;
      else depth--;
    } else if (part !== "" && part !== ".") {
      if (above) return true;
      depth++;
    }
  }
  return false;
}

/**
 * `fs` with two rules of its own, and its mounts (`mounts`, names in `/`) left out of the listing
 * of `/`. A path that names something above `/` is refused (`EACCES`)
 * instead of meaning the same name at `/`: `echo x > ../../x` is an attempt to leave the
 * workspace and fails as one. And a
 * change that creates a file needs its folder to exist, as in bash: just-bash's filesystems make
 * missing parents, so `echo x > /etc/x` would quietly make `/etc`.
 */
function guarded(fs: object, base: Changes, mounts: readonly string[]): object {
  return new Proxy(fs as Changes, {
    get(inner, key) {
      const value = Reflect.get(inner, key, inner);
      if (typeof key !== "string" || typeof value !== "function") return value;
      if (key === "readdir" || key === "readdirWithFileTypes") {
        // The mounts are not listed in `/` (`ls /`, `find .` show the workspace), unless the
        // workspace has folders of their names, which they shadow.
        return async (path: string, ...rest: unknown[]) => {
          const entries = await value.call(inner, path, ...rest) as (string | { name: string })[];
          if (inner.resolvePath("/", path) !== "/") return entries;
          const own = new Set<string>();
          for (const name of mounts) if (await base.exists(`/${name}`)) own.add(name);
          return entries.filter((e) => {
            const name = typeof e === "string" ? e : e.name;
            return !mounts.includes(name) || own.has(name);
          });
        };
      }
      if (key === "resolvePath") {
        return (base: string, path: string) => {
          if (climbsAboveRoot(base, path)) {
            throw fsError("EACCES", `permission denied, '${path}' is above '/'`);
          }
          return inner.resolvePath(base, path);
        };
      }
      const at = CREATES[key];
      if (at === undefined) return value.bind(inner);
      return async (...args: unknown[]) => {
        const path = String(args[at]);
        const parent = path.slice(0, path.lastIndexOf("/")) || "/";
        const isDir = await inner.stat(parent).then((s) => s.isDirectory, () => false);
        if (!isDir) throw fsError("ENOENT", `no such file or directory, ${key} '${path}'`);
        return await value.apply(inner, args);
      };
    },
  });
}
