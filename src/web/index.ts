/** The web application plugin (pages under /, /sign-in, /orders, /projects, /organization, /static). */
export { webPlugin, type WebPluginOptions } from './web-plugin.js';
