/**
 * Running a benchmark from a test: `npm run bench -- <name> --smoke [args]` as a child process
 * (test/integration/bench/smoke.test.ts, test/guard/cpu-guard.guard.ts).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export type BenchRun = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/**
 * One bench in its own process group: when it exits, whatever it started and left behind (a
 * sandbox, a service) is killed with it, so a bench that dies cannot hold this file open until CI's
 * time runs out (a sync bench aborted once in CI and its sandbox kept the run waiting).
 */
function runBenchOnce(name: string, extra: string[], env: Record<string, string>): Promise<BenchRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/run.ts", name, "--smoke", ...extra], {
      cwd: ROOT,
      env: { ...process.env, NODE_NO_WARNINGS: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // the group is already gone
      }
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * A bench killed by a signal it did not send itself (SIGABRT of a native heap check, seen once in
 * CI under load: "corrupted size vs. prev_size" in the load-generating process) is run once more
 * and the first death is printed; a bench that fails by its own exit code, or dies twice, fails.
 */
export async function runBench(name: string, extra: string[] = [], env: Record<string, string> = {}): Promise<BenchRun> {
  const first = await runBenchOnce(name, extra, env);
  if (first.code !== null || first.signal === null) return first;
  console.log(`bench ${name} was killed by ${first.signal}; running it again. Its stderr:\n${first.stderr}`);
  return runBenchOnce(name, extra, env);
}
