import './app.css';
import { installErrorReporting, pageContext } from './api.ts';
import { mountSheet } from './sheet/page.ts';

installErrorReporting();
const ctx = pageContext();
void mountSheet(ctx.root, ctx.id!, { userId: ctx.userId, userEmail: ctx.userEmail });
