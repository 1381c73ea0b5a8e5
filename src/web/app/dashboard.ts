import './app.css';
import { api, installErrorReporting, pageContext } from './api.ts';
import { mountDashboard } from './dashboards/page.ts';

installErrorReporting();
const ctx = pageContext();
void mountDashboard(ctx.root, ctx.id!, api);
