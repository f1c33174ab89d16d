export { onboardingRoutes } from './onboarding.routes.js';
export { createOnboardingService, type OnboardingService } from './onboarding.service.js';
export { signupRoutes } from './signup.routes.js';
export { createSignupService, pruneExpiredSignups, type SignupService } from './signup.service.js';
