/** Line charts with uPlot, loaded on first use (not part of the first page's JavaScript). */
import { useEffect, useRef } from 'preact/hooks';

export interface Series {
  label: string;
  values: (number | null)[];
  color: string;
}

export function LineChart({
  title,
  x,
  series,
  xLabels,
  xName = 'Scan',
  height = 220,
}: {
  title: string;
  x: number[];
  series: Series[];
  xLabels?: string[];
  xName?: string;
  height?: number;
}) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let disposed = false;
    let plot: { destroy(): void } | undefined;
    void Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]).then(([{ default: UPlot }]) => {
      if (disposed || !holder.current) return;
      const width = Math.max(280, holder.current.clientWidth || 600);
      plot = new UPlot(
        {
          width,
          height,
          // One point per scan or period: x is its index, padded half a step each side; y starts at 0.
          scales: {
            x: { time: false, range: () => [-0.5, Math.max(0, x.length - 1) + 0.5] },
            y: { range: (_u: unknown, _min: number, max: number) => [0, Math.max(1, Math.ceil(max * 1.1))] },
          },
          axes: [{ splits: () => x, values: (_u: unknown, ticks: number[]) => ticks.map((t) => xLabels?.[t] ?? String(t)) }, {}],
          series: [
            { label: xName, value: (_u: unknown, v: number | null) => (v === null ? '–' : (xLabels?.[v] ?? String(v))) },
            ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: true, size: 6 } })),
          ],
          legend: { show: true },
        },
        [x, ...series.map((s) => s.values)] as never,
        holder.current,
      );
    });
    return () => {
      disposed = true;
      plot?.destroy();
    };
  }, [JSON.stringify({ x, series, xLabels })]);
  const summary = series.map((s) => `${s.label}: ${s.values.map((v) => v ?? '–').join(', ')}`).join('; ');
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={holder} class="chart-box" role="img" aria-label={`${title}. ${summary}`} />
    </figure>
  );
}

/** A horizontal bar per item, drawn with plain elements (no chart library needed, readable by screen readers). */
export function Bars({ title, items }: { title: string; items: { label: string; value: number; kind: string }[] }) {
  const max = Math.max(1, ...items.map((i) => i.value));
  return (
    <figure class="bars">
      <figcaption>{title}</figcaption>
      <dl>
        {items.map((item) => (
          <div class="bar-row" key={item.label}>
            <dt>{item.label}</dt>
            <dd>
              <span class={`bar b-${item.kind}`} style={{ width: `${(item.value / max) * 100}%` }} />
              <span class="bar-value">{item.value}</span>
            </dd>
          </div>
        ))}
      </dl>
    </figure>
  );
}
