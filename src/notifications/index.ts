export * from './events.js';
export * from './channels.js';
export * from './send.js';
