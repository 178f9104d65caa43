/** The organization member list. */
export { getOrganizationMembers } from './organization-members.service.js';
