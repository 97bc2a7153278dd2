/** The progress of a followed scan on stderr: a bar redrawn in place on a terminal, else one line per change. */
import type { ScanResults } from '../follow.js';

export interface ProgressPrinter {
  /** Called with every in-progress results body. */
  update(body: ScanResults): void;
  /** Ends the bar's line (on a terminal), once following is over. */
  end(): void;
}

export function progressPrinter(tty: boolean, log: (line: string) => void): ProgressPrinter {
  let last = '';
  return {
    update(body) {
      const percent = Math.round(Number(body?.progress_percent ?? (body?.status === 'completed' ? 100 : 0)));
      const phase = typeof body?.phase === 'string' ? body.phase : body?.status;
      const findings =
        typeof body?.findings === 'number' ? body.findings : ['completed', 'failed', 'cancelled'].includes(body?.status) ? Number(body?.failed ?? 0) : null;
      const line = `progress ${percent}% status=${body?.status} phase=${phase}${findings === null ? '' : ` findings=${findings}`}`;
      if (tty) {
        const width = 30;
        const filled = Math.round((Math.min(100, Math.max(0, percent)) / 100) * width);
        log(
          `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(percent).padStart(3)}% ${String(phase).padEnd(10)}${findings === null ? '' : ` ${findings} finding(s)`}`,
        );
      } else if (line !== last) log(`${line}\n`);
      last = line;
    },
    end() {
      if (tty) log('\n');
    },
  };
}
