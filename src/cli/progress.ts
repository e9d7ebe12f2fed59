/**
 * Run progress on stderr: a live bar on an interactive terminal (done/total, rate, ETA), plain
 * lines otherwise (every 10%), nothing with `--quiet`.
 *
 * @module
 */
import type { RunProgress } from "../ops/constants.ts";

/** Make a progress callback writing to `write`. */
export function progressReporter(
  write: (s: string) => void,
  interactive: boolean,
  monotonic: () => number,
): { onProgress: (p: RunProgress) => void; finish: () => void } {
  let lastLine = -1;
  let lastDraw = 0;
  let drawn = false;
  const t0 = monotonic();
  const onProgress = (p: RunProgress) => {
    const label = p.phase === "warmup" ? "warm-up" : p.phase === "analyze" ? "bootstrap" : "items";
    if (p.phase === "done") return;
    if (interactive) {
      const now = monotonic();
      if (now - lastDraw < 80 && p.done !== p.total) return;
      lastDraw = now;
      const width = 24;
      const frac = p.total > 0 ? p.done / p.total : 1;
      const bar = "█".repeat(Math.round(frac * width)).padEnd(width, "░");
      const secs = (now - t0) / 1000;
      const rate = p.phase === "measure" && secs > 0 ? p.done / secs : 0;
      const eta = rate > 0 ? Math.max(0, (p.total - p.done) / rate) : 0;
      const extra = p.phase === "measure"
        ? ` ${rate.toFixed(1)}/s ETA ${eta.toFixed(0)}s${p.failures ? ` ${p.failures} failed` : ""}`
        : "";
      write(`\r\x1b[2K${label.padEnd(9)} ${bar} ${p.done}/${p.total}${extra}`);
      drawn = true;
    } else if (p.phase === "measure" && p.total > 0) {
      const step = Math.floor((p.done / p.total) * 10);
      if (step !== lastLine && (step > lastLine || p.done === p.total)) {
        lastLine = step;
        write(
          `progress: ${p.done}/${p.total} items${p.failures ? `, ${p.failures} failed` : ""}\n`,
        );
      }
    }
  };
  return { onProgress, finish: () => drawn && write("\r\x1b[2K") };
}
