/** Projects: reads with visibility (project.service), writes for provisioning (project-writes.repository). */
export { BUILT_IN_DETECTION_THRESHOLDS } from './detection-defaults.js';
export { getProject, listProjects } from './project.service.js';
