import { registerConstraintConflict } from '../../platform/http/errors.js';

registerConstraintConflict('operators_email_key', 'an operator with this e-mail already exists');

export { OPERATOR_COOKIE } from './operator-auth.js';
export { type OperatorRoutesOptions, operatorRoutes } from './operators.routes.js';
export {
  createOperatorsService,
  type Operator,
  type OperatorsService,
  pruneExpiredOperatorSessions,
  type StoreLifecyclePort,
} from './operators.service.js';
