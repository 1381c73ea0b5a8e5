import './dashboards.css';
import {
  ArcElement, BarController, BarElement, CategoryScale, Chart, Filler, Legend, LinearScale, LineController, LineElement,
  PieController, PointElement, ScatterController, Title, Tooltip, type ChartConfiguration,
} from 'chart.js';
import { h } from '../dom.ts';
import { chartSummary, type ChartData } from './chartData.ts';

Chart.register(ArcElement, BarController, BarElement, CategoryScale, Filler, Legend, LinearScale, LineController, LineElement, PieController, PointElement, ScatterController, Title, Tooltip);

/** Colours of series without their own (and of pie slices). */
const PALETTE = ['#2f6fde', '#e8833a', '#3aa76d', '#c8414b', '#8e5bd0', '#c9a227', '#2aa4b8', '#7a7f8a'];

const POSITION = { BOTTOM: 'bottom', TOP: 'top', LEFT: 'left', RIGHT: 'right' } as const;

/** Chart.js's configuration for the figures of a chart widget. */
export function chartConfig(d: ChartData): ChartConfiguration {
  const legend = d.legend === 'NONE' ? { display: false } : { display: true, position: POSITION[d.legend] };
  const common = { responsive: true, maintainAspectRatio: false, animation: false as const };
  if (d.type === 'PIE') {
    const s = d.series[0];
    return {
      type: 'pie',
      data: { labels: d.labels, datasets: [{ label: s?.label ?? '', data: (s?.values ?? []).map((v) => v ?? 0), backgroundColor: d.labels.map((_, i) => PALETTE[i % PALETTE.length]!) }] },
      options: { ...common, plugins: { legend } },
    };
  }
  if (d.type === 'SCATTER') {
    // the categories are the x values
    const xs = d.labels.map((l) => Number(l.replace(/[,\s]/g, '')));
    return {
      type: 'scatter',
      data: { datasets: d.series.map((s, i) => ({ label: s.label, backgroundColor: s.color ?? PALETTE[i % PALETTE.length]!, data: s.values.flatMap((y, j) => (y === null || !Number.isFinite(xs[j]!) ? [] : [{ x: xs[j]!, y }])) })) },
      options: { ...common, plugins: { legend }, scales: { x: { type: 'linear', title: { display: !!d.axisTitles.x, text: d.axisTitles.x ?? '' } }, y: { title: { display: !!d.axisTitles.y, text: d.axisTitles.y ?? '' } } } },
    };
  }
  const horizontal = d.type === 'BAR';
  const datasets = d.series.map((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length]!;
    const line = s.type === 'LINE' || s.type === 'AREA';
    return {
      type: line ? ('line' as const) : ('bar' as const),
      label: s.label,
      data: s.values,
      backgroundColor: line ? `${color}55` : color,
      borderColor: color,
      fill: s.type === 'AREA',
      spanGaps: true,
    };
  });
  const cat = { title: { display: !!d.axisTitles.x, text: d.axisTitles.x ?? '' } };
  const val = { beginAtZero: true, title: { display: !!d.axisTitles.y, text: d.axisTitles.y ?? '' } };
  return {
    type: d.type === 'LINE' || d.type === 'AREA' ? 'line' : 'bar',
    data: { labels: d.labels, datasets },
    options: { ...common, indexAxis: horizontal ? 'y' : 'x', plugins: { legend }, scales: horizontal ? { y: cat, x: val } : { x: cat, y: val } },
  } as ChartConfiguration;
}

/** Draws the chart on a canvas (whose parent gives it its size). */
export function drawChart(canvas: HTMLCanvasElement, d: ChartData): Chart {
  return new Chart(canvas, chartConfig(d));
}

/** The chart's figures as a table (the text alternative of the drawing). */
export function chartTable(title: string, d: ChartData): HTMLTableElement {
  const head = h('tr', {}, h('th', { scope: 'col' }, d.categoryTitle || 'Category'), ...d.series.map((s) => h('th', { scope: 'col' }, s.label)));
  const body = d.labels.map((l, i) => h('tr', {}, h('th', { scope: 'row' }, l), ...d.series.map((s) => h('td', {}, s.values[i] === null || s.values[i] === undefined ? '' : String(s.values[i])))));
  return h('table', { class: 'chart-data' }, h('caption', {}, title ? `Data of the chart ${title}` : 'Data of the chart'), h('thead', {}, head), h('tbody', {}, ...body));
}

/**
 * A chart widget's body: the canvas (role img, named by a summary) and the figures as a table.
 * The table is always in the accessibility tree (a screen reader reads it); on screen it stays
 * hidden until "Show the data" is pressed.
 */
export function renderChart(host: HTMLElement, title: string, d: ChartData): Chart | null {
  const table = chartTable(title, d);
  table.classList.add('visually-hidden');
  const toggle = h('button', { type: 'button', class: 'link small chart-toggle', 'aria-expanded': 'false' }, 'Show the data');
  toggle.addEventListener('click', () => {
    const shown = table.classList.toggle('visually-hidden') === false;
    toggle.setAttribute('aria-expanded', String(shown));
    toggle.textContent = shown ? 'Hide the data' : 'Show the data';
  });
  if (d.series.length === 0 || d.labels.length === 0) {
    host.append(h('p', { class: 'note' }, 'This chart has no data to show.'));
    return null;
  }
  const canvas = h('canvas', { role: 'img', 'aria-label': chartSummary(title, d) });
  host.append(h('div', { class: 'chart-box' }, canvas), toggle, table);
  return drawChart(canvas, d);
}

/** Wires a server-rendered chart (the published page): its canvas, its JSON figures, its table. */
export function hydrateChart(figure: HTMLElement): Chart | null {
  const json = figure.querySelector('script[type="application/json"]');
  const canvas = figure.querySelector('canvas');
  const table = figure.querySelector('table');
  const toggle = figure.querySelector<HTMLButtonElement>('.chart-toggle');
  if (toggle && table) {
    toggle.hidden = false;
    toggle.addEventListener('click', () => {
      const shown = table.classList.toggle('visually-hidden') === false;
      toggle.setAttribute('aria-expanded', String(shown));
      toggle.textContent = shown ? 'Hide the data' : 'Show the data';
    });
  }
  if (!json || !canvas) return null;
  return drawChart(canvas, JSON.parse(json.textContent ?? '{}') as ChartData);
}
