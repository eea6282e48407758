// The suites run from dist/ (see jest.config.js): errors and failure frames name the TypeScript
// sources through the source maps tsc writes beside each file.
process.setSourceMapsEnabled(true);
