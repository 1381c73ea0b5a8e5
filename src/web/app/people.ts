import './app.css';
import './people/people.css';
import { installErrorReporting, pageContext } from './api.ts';
import { mountPeople } from './people/people.ts';

installErrorReporting();
void mountPeople(pageContext().root);
