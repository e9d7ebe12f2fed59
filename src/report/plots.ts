/**
 * The report's plots, drawn by Observable Plot (`@observablehq/plot`) into a server-side DOM
 * (`linkedom`) and serialized as inline SVG: no script, no font, no request at view time.
 * Every plot carries a short `aria-label` and a longer `aria-description`, and the page puts the
 * same numbers in a table or sentence next to it (docs/reports.md, "Plots"). Data reaching a
 * plot is already aggregated (src/report/aggregate.ts): a plot's size does not grow with n.
 *
 * @module
 */
import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";
import {
  type DistributionView,
  formatInterval,
  formatNumber,
  type PillarView,
  type ProvEdge,
  type ProvNode,
  satisfies,
  type TrendPoint,
} from "./model.ts";

/** A drawn plot: its SVG markup and its text alternatives. */
export interface Figure {
  svg: string;
  /** Short label (the SVG's aria-label). */
  label: string;
  /** What the plot shows, in words (the SVG's aria-description and the caption). */
  description: string;
}

/** Colours (WCAG AA against white for lines and text). */
export const COLORS = {
  interval: "#1f5fa8",
  estimate: "#0b2545",
  threshold: "#b3261e",
  measured: "#4a78b5",
  censored: "#9a6700",
  satisfies: "#e3f1e6",
  VALIDATED: "#1a7f37",
  REFUTED: "#b3261e",
  INCONCLUSIVE: "#8a5a00",
} as const;

type Doc = NonNullable<Plot.PlotOptions["document"]>;
let doc: Doc | undefined;
function document(): Doc {
  doc ??= (parseHTML("<!doctype html><html><body></body></html>") as unknown as { document: Doc })
    .document;
  return doc;
}

let serial = 0;

function render(
  options: Plot.PlotOptions,
  label: string,
  description: string,
  kind: string,
): Figure {
  const el = Plot.plot({
    ...options,
    document: document(),
    className: `empiric-plot-${kind}-${++serial}`,
    ariaLabel: label,
    ariaDescription: description,
    style: undefined,
  }) as unknown as { outerHTML: string };
  return { svg: el.outerHTML, label, description };
}

function paddedDomain(values: number[], pad = 0.08): [number, number] {
  const lo = Math.min(...values), hi = Math.max(...values);
  if (lo === hi) {
    const d = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    return [lo - d, hi + d];
  }
  const d = (hi - lo) * pad;
  return [lo - d, hi + d];
}

/** Where a deciding pillar's compared bounds lie against the threshold, in words. */
export function standing(p: PillarView): string {
  const d = p.decision;
  if (!d) return "";
  const a = satisfies(d.low ?? -Infinity, d.comparator, d.threshold, d.center);
  const b = satisfies(d.high ?? Infinity, d.comparator, d.threshold, d.center);
  if (a && b) return "the whole interval satisfies the threshold";
  if (!a && !b) return "no part of the interval satisfies the threshold";
  return "the interval straddles the threshold";
}

/**
 * A forest-style plot of one pillar: its interval as a bar (an open-ended side as an arrow to
 * the edge), its estimate as a dot, and for the deciding pillar the threshold as a dashed rule
 * with the region that satisfies the claim shaded.
 */
export function forestPlot(p: PillarView, width = 560): Figure {
  const d = p.decision;
  const within = d?.comparator === "within";
  // The lines the claim is decided against: the threshold, or for within both ends of the band.
  const lines = !d ? [] : within ? [d.center - d.threshold, d.center + d.threshold] : [d.threshold];
  const points = [p.estimate];
  if (p.low !== null) points.push(p.low);
  if (p.high !== null) points.push(p.high);
  points.push(...lines);
  const log = p.statistic !== "proportion" && points.every((v) => v > 0) &&
    Math.max(...points) / Math.min(...points) > 30;
  let [x0, x1] = log
    ? [Math.min(...points) / 1.6, Math.max(...points) * 1.6]
    : paddedDomain(points, p.low === null || p.high === null ? 0.25 : 0.1);
  if (p.statistic === "proportion") {
    x0 = Math.max(x0, p.low === null ? -0.02 : Math.min(0, x0));
    x1 = Math.min(x1, 1.02);
    if (x0 >= x1) [x0, x1] = [0, 1];
  }
  const low = p.low ?? x0, high = p.high ?? x1;
  const marks: Plot.Markish[] = [];
  if (d) {
    const below = d.comparator.startsWith("<");
    const region = within
      ? { a: lines[0], b: lines[1] }
      : { a: below ? x0 : d.threshold, b: below ? d.threshold : x1 };
    marks.push(Plot.rect([region], {
      x1: "a",
      x2: "b",
      fill: COLORS.satisfies,
    }));
    marks.push(Plot.ruleX(lines, {
      stroke: COLORS.threshold,
      strokeWidth: 2,
      strokeDasharray: "5,3",
    }));
    marks.push(Plot.text(lines, {
      x: (v: number) => v,
      y: 0.85,
      text: (v: number) => `${within ? "bound" : "threshold"} ${formatNumber(v)}`,
      fill: COLORS.threshold,
      textAnchor: "start",
      dx: 4,
      fontSize: 11,
    }));
  }
  const bounded = [{
    a: p.low === null ? p.estimate : low,
    b: p.high === null ? p.estimate : high,
  }];
  marks.push(Plot.link(bounded, {
    x1: "a",
    x2: "b",
    y1: 0,
    y2: 0,
    stroke: COLORS.interval,
    strokeWidth: 4,
  }));
  for (const [open, edge] of [[p.low === null, x0], [p.high === null, x1]] as const) {
    if (!open) continue;
    marks.push(Plot.arrow([{ a: p.estimate, b: edge }], {
      x1: "a",
      x2: "b",
      y1: 0,
      y2: 0,
      stroke: COLORS.interval,
      strokeWidth: 2,
      strokeDasharray: "2,2",
      headLength: 10,
    }));
    marks.push(Plot.text([edge], {
      x: (v: number) => v,
      y: -0.75,
      text: () => "open-ended",
      textAnchor: edge === x0 ? "start" : "end",
      fill: COLORS.interval,
      fontSize: 11,
    }));
  }
  marks.push(Plot.dot([p.estimate], {
    x: (v: number) => v,
    y: 0,
    r: 5,
    fill: COLORS.estimate,
    stroke: "white",
    title: () => `estimate ${formatNumber(p.estimate)}`,
  }));
  const units = p.units && p.units !== "proportion" ? ` ${p.units}` : "";
  const level = p.confidence !== null ? `${formatNumber(p.confidence * 100)}% ` : "";
  const description = `${p.name}: estimate ${formatNumber(p.estimate)}${units}, ${level}interval ${
    formatInterval(p.low, p.high)
  }${d ? `; threshold ${d.comparator} ${formatNumber(d.threshold)}${units}: ${standing(p)}` : ""}${
    log ? " (logarithmic axis)" : ""
  }.`;
  return render(
    {
      width,
      height: 78,
      marginLeft: 16,
      marginRight: 16,
      marginTop: 8,
      x: {
        domain: [x0, x1],
        type: log ? "log" : "linear",
        label: [p.units && p.units !== "proportion" ? p.units : "", log ? "log scale" : ""].filter(
          Boolean,
        )
          .join(", ") || null,
        ...(log ? { tickFormat: logTick } : { ticks: 6 }),
        grid: true,
      },
      y: { domain: [-1, 1], axis: null },
      marks,
    },
    `Interval plot of ${p.name}`,
    description,
    "forest",
  );
}

/** Tick labels of a logarithmic axis: plain numbers at 1, 2 and 5 times a power of ten. */
function logTick(x: number): string {
  return /^[125](\.0*)?e/.test(x.toExponential()) ? formatNumber(x) : "";
}

/** The x domain of a distribution: the data, and the marks when they lie near it. */
function distributionDomain(d: DistributionView): { domain: [number, number]; off: string[] } {
  const bins = d.histogram;
  const log = d.scale === "log";
  const f = log ? Math.log10 : (x: number) => x;
  const g = log ? (x: number) => Math.pow(10, x) : (x: number) => x;
  let lo = f(bins.length ? bins[0].x0 : 1), hi = f(bins.length ? bins[bins.length - 1].x1 : 2);
  const span = hi - lo || 1;
  const off: string[] = [];
  const include = (x: number | null, what: string) => {
    if (x === null) return;
    const fx = log && x <= 0 ? -Infinity : f(x);
    if (fx >= lo - span && fx <= hi + span) {
      lo = Math.min(lo, fx);
      hi = Math.max(hi, fx);
    } else {
      off.push(
        `${what} ${formatNumber(x)} lies ${fx < lo ? "left" : "right"} of the plotted range`,
      );
    }
  };
  include(d.threshold, "the threshold");
  for (const iv of d.intervals) {
    include(iv.low, `${iv.pillar}'s lower bound`);
    include(iv.high, `${iv.pillar}'s upper bound`);
  }
  const pad = (hi - lo) * 0.03;
  return { domain: [g(lo - pad), g(hi + pad)], off };
}

function intervalMarks(
  d: DistributionView,
  domain: [number, number],
  withEstimate: boolean,
): Plot.Markish[] {
  const marks: Plot.Markish[] = [];
  for (const iv of d.intervals) {
    const a = Math.max(iv.low ?? domain[0], domain[0]);
    const b = Math.min(iv.high ?? domain[1], domain[1]);
    if (a < b) {
      marks.push(Plot.rect([{ a, b }], {
        x1: "a",
        x2: "b",
        fill: COLORS.interval,
        fillOpacity: 0.14,
        title: () => `${iv.pillar} interval ${formatInterval(iv.low, iv.high)}`,
      }));
    }
    if (withEstimate && iv.estimate >= domain[0] && iv.estimate <= domain[1]) {
      marks.push(Plot.ruleX([iv.estimate], {
        stroke: COLORS.interval,
        strokeWidth: 1.5,
        title: () => `${iv.pillar} = ${formatNumber(iv.estimate)}`,
      }));
    }
  }
  if (d.threshold !== null && d.threshold >= domain[0] && d.threshold <= domain[1]) {
    marks.push(Plot.ruleX([d.threshold], {
      stroke: COLORS.threshold,
      strokeWidth: 2,
      strokeDasharray: "5,3",
      title: () => `threshold ${formatNumber(d.threshold)}`,
    }));
  }
  return marks;
}

function unitsLabel(d: DistributionView): string {
  return d.units && d.units !== "proportion" ? `${d.metric} (${d.units})` : d.metric;
}

/** A histogram of a metric's values (failed items' censored latency stacked in amber). */
export function histogramPlot(d: DistributionView, width = 560): Figure {
  const { domain, off } = distributionDomain(d);
  const rows = d.histogram.flatMap((b) => [
    { x0: b.x0, x1: b.x1, n: b.count - b.censored, part: "measured" },
    ...(b.censored ? [{ x0: b.x0, x1: b.x1, n: b.censored, part: "failed (at least)" }] : []),
  ]);
  const marks: Plot.Markish[] = [
    ...intervalMarks(d, domain, true),
    Plot.rectY(rows, {
      x1: "x0",
      x2: "x1",
      y: "n",
      fill: (r: { part: string }) => (r.part === "measured" ? COLORS.measured : COLORS.censored),
      insetLeft: 0.5,
      insetRight: 0.5,
      title: (r: { x0: number; x1: number; n: number; part: string }) =>
        `${formatNumber(r.x0)} to ${formatNumber(r.x1)}: ${r.n} ${r.part}`,
    }),
    Plot.ruleY([0]),
  ];
  const peak = d.histogram.reduce((a, b) => (b.count > a.count ? b : a), d.histogram[0]);
  const parts = [
    `Histogram of ${d.n} values of ${unitsLabel(d)} in ${d.histogram.length} bins from ${
      formatNumber(d.histogram[0]?.x0)
    } to ${formatNumber(d.histogram.at(-1)?.x1)}`,
    peak
      ? `the tallest bin, ${formatNumber(peak.x0)} to ${formatNumber(peak.x1)}, holds ${peak.count}`
      : "",
    d.censored
      ? `${d.censored} failed items are shown at their time limit (known only to be at least that)`
      : "",
    d.overflow
      ? `${d.overflow.count} values above ${formatNumber(d.overflow.from)} (up to ${
        formatNumber(d.overflow.max)
      }) are counted but not drawn`
      : "",
    d.threshold !== null && !off.some((o) => o.startsWith("the threshold"))
      ? `the dashed red line is the threshold ${formatNumber(d.threshold)}`
      : "",
    d.scale === "log" ? "the x axis is logarithmic" : "",
    d.intervals.length
      ? "shaded: the confidence interval of " +
        d.intervals.map((i) => `${i.pillar} ${formatInterval(i.low, i.high)}`).join(", ")
      : "",
    ...off,
  ].filter(Boolean);
  return render(
    {
      width,
      height: 220,
      marginLeft: 48,
      x: {
        domain,
        type: d.scale,
        label: unitsLabel(d) + (d.scale === "log" ? ", log scale" : ""),
        ...(d.scale === "log" ? { tickFormat: logTick } : { ticks: 8 }),
      },
      y: { label: "items", grid: true },
      marks,
    },
    `Histogram of ${d.metric}`,
    parts.join("; ") + ".",
    "histogram",
  );
}

/** The empirical CDF of a metric, with each quantile pillar's level, interval and the threshold. */
export function ecdfPlot(d: DistributionView, width = 560): Figure {
  const points = d.ecdf ?? [];
  const { domain, off } = distributionDomain(d);
  const levels = d.intervals.filter((i) => i.p !== null);
  const marks: Plot.Markish[] = [
    ...intervalMarks(d, domain, false),
    Plot.ruleY(levels.map((i) => i.p!), {
      stroke: "#555",
      strokeDasharray: "2,3",
      title: (p: number) => `p = ${p}`,
    }),
    Plot.line(points, {
      x: "x",
      y: "p",
      curve: "step-after",
      stroke: COLORS.estimate,
      strokeWidth: 1.5,
      clip: true,
    }),
    Plot.dot(levels, {
      x: "estimate",
      y: "p",
      r: 4,
      fill: COLORS.interval,
      stroke: "white",
      title: (i: { pillar: string; estimate: number }) =>
        `${i.pillar} = ${formatNumber(i.estimate)}`,
    }),
  ];
  const description = [
    `Empirical cumulative distribution of ${d.n} values of ${
      unitsLabel(d)
    } (drawn through ${points.length} points)`,
    ...levels.map((i) =>
      `${i.pillar}: the curve crosses ${i.p} at ${formatNumber(i.estimate)}, interval ${
        formatInterval(i.low, i.high)
      } (shaded)`
    ),
    d.threshold !== null && !off.some((o) => o.startsWith("the threshold"))
      ? `the dashed red line is the threshold ${formatNumber(d.threshold)}`
      : "",
    d.scale === "log" ? "the x axis is logarithmic" : "",
    ...off,
  ].filter(Boolean).join("; ") + ".";
  return render(
    {
      width,
      height: 220,
      marginLeft: 48,
      x: {
        domain,
        type: d.scale,
        label: unitsLabel(d) + (d.scale === "log" ? ", log scale" : ""),
        ...(d.scale === "log" ? { tickFormat: logTick } : { ticks: 8 }),
      },
      y: { domain: [0, 1], label: "fraction of items ≤ x", grid: true },
      marks,
    },
    `Cumulative distribution of ${d.metric}`,
    description,
    "ecdf",
  );
}

/** A 0/1 metric: how many items scored 1 and 0 (failed items stacked in amber). */
export function binaryPlot(d: DistributionView, width = 560): Figure {
  const b = d.binary!;
  const rows = [
    { value: "1", n: b.ones, part: "measured" },
    { value: "0", n: b.zeros - b.failedZeros, part: "measured" },
    { value: "0", n: b.failedZeros, part: "failed" },
  ].filter((r) => r.n > 0);
  const description = `${d.metric}: ${b.ones} of ${d.items} items scored 1 and ${b.zeros} scored 0${
    b.failedZeros ? ` (${b.failedZeros} of them because the item failed)` : ""
  }.`;
  return render(
    {
      width,
      height: 90,
      marginLeft: 40,
      x: { label: "items", grid: true },
      y: { domain: ["1", "0"], label: d.metric },
      marks: [
        Plot.barX(rows, {
          x: "n",
          y: "value",
          fill: (
            r: { part: string },
          ) => (r.part === "measured" ? COLORS.measured : COLORS.censored),
          title: (r: { value: string; n: number; part: string }) => `${r.value}: ${r.n} ${r.part}`,
        }),
        Plot.ruleX([0]),
      ],
    },
    `Counts of ${d.metric}`,
    description,
    "binary",
  );
}

/** The lineage trend: each proof's observed value and interval, the threshold, colour by verdict. */
export function trendPlot(
  points: TrendPoint[],
  threshold: { value: number; comparator: string; units: string; metric: string },
  width = 560,
): Figure {
  const ys = points.flatMap((p) =>
    [p.observed, p.low, p.high].filter((v): v is number => v !== null)
  );
  const near = ys.length ? paddedDomain(ys, 0) : [0, 1];
  const span = near[1] - near[0] || Math.abs(near[0]) || 1;
  const withThreshold = threshold.value >= near[0] - span && threshold.value <= near[1] + span;
  let [y0, y1] = paddedDomain(withThreshold ? [...ys, threshold.value] : ys, 0.1);
  if (y0 === y1) [y0, y1] = [y0 - 1, y1 + 1];
  const rows = points.map((p, i) => ({
    ...p,
    i,
    lo: p.low ?? y0,
    hi: p.high ?? y1,
    label: `${p.createdAt.slice(0, 16).replace("T", " ")}${p.current ? " (this)" : ""}`,
  }));
  const marks: Plot.Markish[] = [
    Plot.ruleX(rows, {
      x: "i",
      y1: "lo",
      y2: "hi",
      stroke: (r: TrendPoint) => COLORS[r.outcome],
      strokeWidth: 3,
      strokeOpacity: 0.55,
    }),
    Plot.dot(rows, {
      x: "i",
      y: "observed",
      r: (r: TrendPoint) => (r.current ? 6 : 4),
      fill: (r: TrendPoint) => COLORS[r.outcome],
      stroke: (r: TrendPoint) => (r.current ? "black" : "white"),
      strokeWidth: 1.5,
      title: (r: TrendPoint & { label: string }) =>
        `${r.label}: ${r.outcome}, ${formatNumber(r.observed)} ${
          formatInterval(r.low, r.high)
        }, proof ${r.proofId.slice(0, 12)}`,
    }),
  ];
  if (withThreshold) {
    marks.unshift(Plot.ruleY([threshold.value], {
      stroke: COLORS.threshold,
      strokeWidth: 2,
      strokeDasharray: "5,3",
    }));
  }
  const units = threshold.units && threshold.units !== "proportion" ? ` ${threshold.units}` : "";
  const first = points[0], last = points[points.length - 1];
  const description =
    `${threshold.metric} over ${points.length} proofs of this scenario on this substrate, oldest first: from ${
      formatNumber(first.observed)
    }${units} (${first.outcome}) to ${
      formatNumber(last.observed)
    }${units} (${last.outcome}); bars are intervals, the dashed red line the threshold ${
      formatNumber(threshold.value)
    }${units}${withThreshold ? "" : " (outside the plotted range)"}.`;
  return render(
    {
      width,
      height: 200,
      marginLeft: 52,
      marginBottom: 36,
      x: {
        type: "point",
        domain: rows.map((r) => r.i),
        tickFormat: (i: number) => String(i + 1),
        label: "proofs, oldest first →",
        labelAnchor: "right",
        padding: 0.5,
        ticks: rows.length > 8
          ? rows.filter((_, i) => i % Math.ceil(rows.length / 8) === 0).map((r) => r.i)
          : undefined,
      },
      y: { domain: [y0, y1], label: `${threshold.metric}${units}`, grid: true },
      marks,
    },
    `Trend of ${threshold.metric}`,
    description,
    "trend",
  );
}

const KIND_STYLE = {
  entity: { symbol: "circle", fill: "#fff4b3" },
  activity: { symbol: "square", fill: "#cfd9ff" },
  agent: { symbol: "triangle", fill: "#ffe0b3" },
} as const;

/** The provenance graph in four columns: inputs, the run and its agents, pillars, the result. */
export function provenancePlot(
  graph: { nodes: ProvNode[]; edges: ProvEdge[] },
  width = 720,
): Figure {
  const columns = new Map<number, ProvNode[]>();
  for (const n of graph.nodes) columns.set(n.column, [...(columns.get(n.column) ?? []), n]);
  // The run first in its column, agents below it.
  for (const [c, list] of columns) {
    columns.set(c, list.sort((a, b) => Number(a.kind === "agent") - Number(b.kind === "agent")));
  }
  // Agents sit side by side on one row below the run, so that no arrow passes through a node.
  const agents = (columns.get(1) ?? []).filter((n) => n.kind === "agent");
  if (agents.length) columns.set(1, (columns.get(1) ?? []).filter((n) => n.kind !== "agent"));
  const height1 = (columns.get(1)?.length ?? 0) + (agents.length ? 1 : 0);
  const rowsMax = Math.max(1, height1, ...[...columns.values()].map((l) => l.length));
  const pos = new Map<string, { x: number; y: number }>();
  for (const [c, list] of columns) {
    const offset = (rowsMax - (c === 1 ? height1 : list.length)) / 2;
    list.forEach((n, i) => pos.set(n.id, { x: c, y: offset + i }));
  }
  const agentRow = (rowsMax - height1) / 2 + height1 - 1;
  agents.forEach((n, i) =>
    pos.set(n.id, { x: 1 + (i - (agents.length - 1) / 2) * 0.6, y: agentRow })
  );
  const nodes = graph.nodes.map((n) => ({ ...n, ...pos.get(n.id)! }));
  const height = 40 + rowsMax * 52;
  const marginX = 90;
  // Pixels per unit on each axis, to stop each arrow short of the nodes it joins.
  const px = (width - 2 * marginX) / 3, py = (height - 40) / Math.max(1, rowsMax - 0.4);
  const drawn = graph.edges.filter((e) => e.drawn && pos.has(e.from) && pos.has(e.to)).map((e) => {
    const a = pos.get(e.from)!, b = pos.get(e.to)!;
    const dx = (b.x - a.x) * px, dy = (b.y - a.y) * py;
    const len = Math.hypot(dx, dy) || 1;
    const cut = Math.min(12 / len, 0.45);
    return {
      ...e,
      x1: a.x + (b.x - a.x) * cut,
      y1: a.y + (b.y - a.y) * cut,
      x2: b.x - (b.x - a.x) * cut,
      y2: b.y - (b.y - a.y) * cut,
    };
  });
  const short = (s: string) => (s.length > 26 ? s.slice(0, 25) + "…" : s);
  const shortAgent = (s: string) => (s.length > 18 ? s.slice(0, 17) + "…" : s);
  const description = `Provenance graph: ${
    graph.nodes.filter((n) => n.kind === "entity").length
  } entities (circles), ${
    graph.nodes.filter((n) => n.kind === "activity").length
  } activity (square), ${
    graph.nodes.filter((n) => n.kind === "agent").length
  } agents (triangles); arrows point from a thing to what it came from (${drawn.length} of ${graph.edges.length} relations drawn; all are listed below the graph).`;
  return render(
    {
      width,
      height,
      marginLeft: marginX,
      marginRight: marginX,
      marginTop: 16,
      marginBottom: 24,
      x: { domain: [0, 3], axis: null },
      y: { domain: [-0.3, rowsMax - 0.7], axis: null, reverse: true },
      marks: [
        Plot.link(drawn, {
          x1: "x1",
          y1: "y1",
          x2: "x2",
          y2: "y2",
          stroke: "#666",
          strokeWidth: 1.2,
          markerEnd: "arrow",
          title: (e: ProvEdge) => e.relation,
        }),
        Plot.dot(nodes, {
          x: "x",
          y: "y",
          r: 8,
          symbol: (n: ProvNode) => KIND_STYLE[n.kind].symbol,
          fill: (n: ProvNode) => KIND_STYLE[n.kind].fill,
          stroke: "#333",
          title: (n: ProvNode) => `${n.kind} ${n.type}: ${n.id}`,
        }),
        Plot.text(nodes, {
          x: "x",
          y: "y",
          text: (n: ProvNode) => (n.kind === "agent" ? shortAgent(n.label) : short(n.label)),
          dy: 17,
          fontSize: 11,
          fill: "#222",
        }),
      ],
      symbol: { type: "identity" },
      color: { type: "identity" },
    },
    "Provenance graph",
    description,
    "provenance",
  );
}
