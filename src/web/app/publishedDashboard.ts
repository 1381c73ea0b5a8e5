import './dashboards/dashboards.css';
import { hydrateChart } from './dashboards/chart.ts';

// The published dashboard page (no session, no API): its charts' figures are in the page
// (computed by the server from the owner's sheets); this draws them.
for (const figure of document.querySelectorAll<HTMLElement>('.widget-chart figure.chart')) hydrateChart(figure);
