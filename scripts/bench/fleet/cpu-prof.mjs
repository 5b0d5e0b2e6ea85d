// Preloaded by profile.ts (NODE_OPTIONS=--import, since Node 20 refuses --cpu-prof there): profiles
// the server's node process (the one running scripts/start.ts) with the inspector and writes
// CPU.<pid>.cpuprofile into PITWALL_CPU_PROF_DIR when it exits. Profiling starts on SIGUSR2 (after
// the warm-up: start-up compiles modules for seconds). Other processes are left alone.
import fs from "node:fs";
import inspector from "node:inspector";
import path from "node:path";

const dir = process.env.PITWALL_CPU_PROF_DIR;
if (dir && process.argv.some((a) => a.endsWith("scripts/start.ts"))) {
  const session = new inspector.Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 500 });
  process.on("SIGUSR2", () => session.post("Profiler.start"));
  // Main-thread sessions answer synchronously, so this works inside an exit handler.
  process.on("exit", () =>
    session.post("Profiler.stop", (err, res) => {
      if (!err)
        fs.writeFileSync(
          path.join(dir, `CPU.${process.pid}.cpuprofile`),
          JSON.stringify(res.profile),
        );
    }),
  );
}
