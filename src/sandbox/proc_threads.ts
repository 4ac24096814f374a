/**
 * Whether a process has stopped, thread by thread, as Linux's /proc shows it: what
 * `SandboxChild.suspend` (child.ts) waits on after SIGSTOP.
 *
 * @module
 */

/**
 * True when every thread of `pid` is stopped (`T`/`t` in /proc), false while one still runs,
 * undefined when /proc cannot say (the process is gone, or this is not Linux).
 */
export async function allThreadsStopped(pid: number): Promise<boolean | undefined> {
  let tasks: Deno.DirEntry[];
  try {
    tasks = await Array.fromAsync(Deno.readDir(`/proc/${pid}/task`));
  } catch {
    return undefined;
  }
  for (const task of tasks) {
    let stat: string;
    try {
      stat = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/stat`);
    } catch {
      continue; // That thread ended meanwhile.
    }
    // The state follows the command name, which is in parentheses and may hold anything.
    const at = stat.lastIndexOf(")") + 2;
    const state = stat.slice(at, at + 1);
    if (state !== "T" && state !== "t") return false;
  }
  return tasks.length > 0;
}
