/** The web application plugin (pages under /, /sign-in, /orders, /projects, /organization, /static). */
export { webPlugin } from './web-plugin.js';
