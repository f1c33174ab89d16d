export { invitationRoutes } from './invitation.routes.js';
export { teamRoutes } from './team.routes.js';
export { createTeamService, type TeamService } from './team.service.js';
