/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/gateway', '<rootDir>/test', '<rootDir>/clients'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  // ESM-only packages we load are compiled to CommonJS for Jest's module loader.
  transformIgnorePatterns: ['/node_modules/(?!(@scure/bip32|@scure/base|@noble/hashes|@noble/curves|micro-key-producer|otplib|@otplib/[^/]+)/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Every /v1 response of every test is validated against the served OpenAPI document.
  setupFilesAfterEnv: ['<rootDir>/test/support/openapi-setup.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};
