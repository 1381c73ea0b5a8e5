import './app.css';
import { installErrorReporting, pageContext } from './api.ts';
import { mountHome } from './home/home.ts';

installErrorReporting();
void mountHome(pageContext().root);
