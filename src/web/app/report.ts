import './app.css';
import { installErrorReporting, pageContext } from './api.ts';
import { mountReport } from './reports/page.ts';

installErrorReporting();
const ctx = pageContext();
void mountReport(ctx.root, ctx.id!, { userId: ctx.userId, userEmail: ctx.userEmail });
