export * from './session.repository.js';
